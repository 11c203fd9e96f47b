// CompiledFlag.decidedBySplit (experiments count only units the split decided) and an environment's own
// rules (`environments.<env>.targeting` replaces the flag's targeting there, whole).
import { expect, test } from 'bun:test'
import { compileFlag } from '../../server/engine/compile'
import { validateFlag } from '../../server/engine/validate'
import type { FlagDefinition } from '../../server/engine/types'

const flag: FlagDefinition = {
  key: 'f',
  enabled: true,
  value: 'A',
  variants: { a: 'A', b: 'B' },
  default_variant: 'a',
  off_variant: 'a',
  targeting: {
    overrides: { vip: 'b' },
    rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'staff' }], variant: 'b' }],
    rollout: {
      attribute: 'user_id',
      distribution: [
        { variant: 'a', weight: 50 },
        { variant: 'b', weight: 50 },
      ],
    },
  },
  environments: {
    production: { enabled: true, targeting: { rollout: { attribute: 'user_id', distribution: [{ variant: 'b', weight: 100 }] } } },
    staging: { enabled: false },
  },
}
const compiled = compileFlag(flag, new Map())
const users = Array.from({ length: 200 }, (_, i) => `u${i}`)

test('the split decides units that reach it; overrides, rules, a missing attribute and a disabled environment do not', () => {
  for (const user_id of users) expect(compiled.decidedBySplit(compiled.evaluate({ user_id }))).toBe(true)
  expect(compiled.decidedBySplit(compiled.evaluate({ user_id: 'vip' }))).toBe(false)
  expect(compiled.decidedBySplit(compiled.evaluate({ user_id: 'u1', plan: 'staff' }))).toBe(false)
  // no user_id: outside the rollout, served the off variant `a` with reason rollout, yet not the split's
  expect(compiled.evaluate({}).variant).toBe('a')
  expect(compiled.decidedBySplit(compiled.evaluate({}))).toBe(false)
  expect(compiled.decidedBySplit(compiled.evaluate({ user_id: 'u1', environment: 'staging' }))).toBe(false)
})

test("an environment's own rules replace the flag's there, whole; others keep the flag's", () => {
  const production = new Set(users.map((user_id) => compiled.evaluate({ user_id, environment: 'production' }).variant))
  expect(production).toEqual(new Set(['b']))
  // the flag's override and rule are not part of production's own rules
  expect(compiled.evaluate({ user_id: 'vip', environment: 'production' }).variant).toBe('b')
  expect(compiled.decidedBySplit(compiled.evaluate({ user_id: 'u1', plan: 'staff', environment: 'production' }))).toBe(true)
  expect(new Set(users.map((user_id) => compiled.evaluate({ user_id, environment: 'development' }).variant))).toEqual(new Set(['a', 'b']))
  expect(compiled.branchOf(compiled.evaluate({ user_id: 'u1', environment: 'production' }))).toBe('b')
})

test("an environment's own rules are validated with their path", () => {
  const issues = validateFlag(
    { ...flag, environments: { production: { enabled: true, targeting: { rollout: { attribute: '', distribution: [] } } } } },
    { segmentKeys: new Set() },
  )
  expect(issues.map((i) => i.path)).toContain('environments.production.targeting.rollout.attribute')
})

test('rolloutShare: the percentage or the variant weight the rollout serves, per environment', () => {
  expect(compiled.rolloutShare('b')).toBe(50)
  expect(compiled.rolloutShare('c')).toBe(0)
  expect(compiled.rolloutShare()).toBeNull()
  expect(compiled.forEnvironment('production').rolloutShare('b')).toBe(100)
  expect(compiled.forEnvironment('production').rolloutShare('a')).toBe(0)
  const percentage = compileFlag(
    { key: 'p', enabled: true, value: true, targeting: { rollout: { attribute: 'user_id', percentage: 12.5 } } },
    new Map(),
  )
  expect(percentage.rolloutShare()).toBe(12.5)
  expect(percentage.rolloutShare('b')).toBeNull()
  expect(compileFlag({ key: 'q', enabled: true, value: true }, new Map()).rolloutShare()).toBeNull()
})
