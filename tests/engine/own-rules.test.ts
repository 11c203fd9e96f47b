// An environment's own rules (docs/behaviour.md §4, step 1): `environments.<env>.targeting` replaces the
// flag's targeting in that environment, whole; absent, the flag's applies. Validation, explain, OpenFeature.
import { describe, expect, test } from 'bun:test'
import {
  compileFlag,
  explainFlag,
  resolveOpenFeature,
  segmentKeysOf,
  validateFlag,
  type EvaluationContext,
  type FlagDefinition,
  type SegmentDefinition,
} from '../../server/engine'

const SEGMENTS = new Map<string, SegmentDefinition>([
  ['staff', { key: 'staff', conditions: [{ property: 'custom.staff', operator: 'equals', value: true }] }],
])
const flag: FlagDefinition = {
  key: 'checkout',
  enabled: true,
  value: 'old',
  targeting: {
    overrides: { 'u-vip': 'vip' },
    rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: 'pro' }],
  },
  environments: {
    staging: { enabled: true, value: 'stage' },
    production: {
      enabled: true,
      targeting: {
        rules: [{ conditions: [{ operator: 'in_segment', value: 'staff' }], value: 'staff' }],
        rollout: { percentage: 100, attribute: 'user_id' },
      },
    },
    development: { enabled: false, targeting: { rules: [{ conditions: [], value: 'dev' }] } },
  },
}
const compiled = compileFlag(flag, SEGMENTS)
const run = (ctx: EvaluationContext) => compiled.evaluate(ctx)

describe('evaluation', () => {
  test("an environment with own rules uses them, not the flag's", () => {
    expect(run({ user_id: 'u-1', plan: 'pro', environment: 'production' })).toEqual({ value: 'old', type: 'string', reason: 'rollout' })
    expect(run({ user_id: 'u-1', environment: 'production', custom: { staff: true } })).toEqual({
      value: 'staff',
      type: 'string',
      reason: 'targeting',
    })
    // the flag's individual override is the flag's rules: not production's
    expect(run({ user_id: 'u-vip', environment: 'production' }).reason).toBe('rollout')
    expect(run({ environment: 'production' })).toEqual({ value: null, type: 'null', reason: 'rollout' })
  })
  test("environments without own rules, and no environment, use the flag's", () => {
    expect(run({ user_id: 'u-vip', environment: 'staging' })).toEqual({ value: 'vip', type: 'string', reason: 'override' })
    expect(run({ user_id: 'u-1', plan: 'pro', environment: 'staging' })).toEqual({ value: 'pro', type: 'string', reason: 'targeting' })
    expect(run({ user_id: 'u-1', environment: 'staging' })).toEqual({ value: 'stage', type: 'string', reason: 'environment_override' })
    expect(run({ user_id: 'u-1', custom: { staff: true } })).toEqual({ value: 'old', type: 'string', reason: 'default' })
  })
  test("the environment's switch still decides first", () => {
    expect(run({ user_id: 'u-1', environment: 'development' })).toEqual({ value: null, type: 'null', reason: 'disabled' })
  })
  test('the fall-through of own rules is the environment override', () => {
    const f = compileFlag(
      {
        key: 'f',
        enabled: false,
        value: 1,
        environments: {
          production: {
            enabled: true,
            value: 2,
            targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'x' }], value: 3 }] },
          },
        },
      },
      SEGMENTS,
    )
    expect(f.evaluate({ environment: 'production' })).toEqual({ value: 2, type: 'number', reason: 'environment_override' })
    expect(f.evaluate({ environment: 'production', plan: 'x' })).toEqual({ value: 3, type: 'number', reason: 'targeting' })
    expect(f.evaluate({ plan: 'x' })).toEqual({ value: null, type: 'null', reason: 'disabled' })
  })
  test('variants: own rules name variants and split by weight', () => {
    const f = compileFlag(
      {
        key: 'v',
        enabled: true,
        value: 'a',
        variants: { a: 'a', b: 'b', c: 'c' },
        default_variant: 'a',
        targeting: { rules: [{ conditions: [], variant: 'b' }] },
        environments: {
          production: {
            enabled: true,
            variant: 'c',
            targeting: {
              rollout: {
                distribution: [
                  { variant: 'b', weight: 50 },
                  { variant: 'c', weight: 50 },
                ],
                attribute: 'user_id',
              },
            },
          },
        },
      },
      SEGMENTS,
    )
    expect(f.evaluate({ user_id: 'x' }).variant).toBe('b')
    const seen = new Set(Array.from({ length: 50 }, (_, i) => f.evaluate({ user_id: `u${i}`, environment: 'production' }).variant))
    expect([...seen].sort()).toEqual(['b', 'c'])
    expect(f.evaluate({ user_id: 'u1', environment: 'production' }).reason).toBe('rollout')
  })
  test('branches, the rules that decide, and OpenFeature answers are per environment', () => {
    const staff = run({ user_id: 'u-1', environment: 'production', custom: { staff: true } })
    expect(compiled.branchOf(staff)).toBe('rule-1')
    expect(compiled.rulesIn('production')).toBe('own')
    expect(compiled.rulesIn('staging')).toBe('flag')
    expect(compiled.rulesIn(undefined)).toBe('flag')
    expect(compiled.forEnvironment('production').rolloutAttribute).toBe('user_id')
    expect(compiled.forEnvironment('staging').rolloutAttribute).toBeNull()
    // production rolls out by user_id: without it, OpenFeature's TARGETING_KEY_MISSING; staging has no rollout
    expect(resolveOpenFeature('checkout', compiled, { environment: 'production' })).toMatchObject({ errorCode: 'TARGETING_KEY_MISSING' })
    expect(resolveOpenFeature('checkout', compiled, { environment: 'staging' })).toEqual({
      value: 'stage',
      reason: 'DEFAULT',
      variant: 'default',
    })
  })
  test("segments used only by own rules are the flag's segments", () => {
    expect(segmentKeysOf(flag)).toEqual(['staff'])
  })
})

describe('explain', () => {
  test("the trace names production's own rules and follows them", () => {
    const ctx = { user_id: 'u-1', plan: 'pro', environment: 'production', custom: { staff: true } }
    const e = explainFlag(flag, SEGMENTS, undefined, ctx, Date.now())
    expect(e.result).toEqual(run(ctx))
    expect(e.trace[0]).toMatchObject({
      step: 'environment_override',
      environment: 'production',
      applied: true,
      rules: "production's own rules",
    })
    expect(e.trace.at(-1)).toMatchObject({ step: 'rule', rule: 1, matched: true, decided: true })
    expect(e.trace.some((s) => s.step === 'individual_override')).toBe(false)
  })
  test('an environment without own rules says nothing new', () => {
    const e = explainFlag(flag, SEGMENTS, undefined, { user_id: 'u-vip', environment: 'staging' }, Date.now())
    expect(e.trace[0]).not.toHaveProperty('rules')
    expect(e.trace.at(-1)).toMatchObject({ step: 'individual_override', decided: true })
  })
})

describe('validation', () => {
  const opts = { segmentKeys: new Set(['staff']), environments: new Set(['staging', 'production']) }
  test("own rules are checked like the flag's, with their paths", () => {
    const issues = validateFlag(
      {
        key: 'f',
        enabled: true,
        value: true,
        environments: {
          production: {
            enabled: true,
            targeting: {
              rules: [
                { conditions: [{ property: 'n', operator: 'greater_than', value: 'x' }], value: 'yes' },
                { conditions: [{ operator: 'in_segment', value: 'nope' }] },
              ],
              rollout: { percentage: 101, attribute: 'user_id' },
            },
          },
        },
      },
      opts,
    )
    const paths = issues.map((i) => i.path)
    expect(paths).toContain('environments.production.targeting.rules[0].conditions[0].value')
    expect(paths).toContain('environments.production.targeting.rules[0].value') // a string in a boolean flag
    expect(paths).toContain('environments.production.targeting.rules[1].conditions[0].value')
    expect(paths).toContain('environments.production.targeting.rules[1].value')
    expect(paths).toContain('environments.production.targeting.rollout.percentage')
    expect(issues[0]!.message).toStartWith("production's own rules: Rule 1, condition 1:")
  })
  test("variants: own rules must name the flag's variants", () => {
    const issues = validateFlag(
      {
        key: 'f',
        enabled: true,
        value: 'a',
        variants: { a: 'a', b: 'b' },
        default_variant: 'a',
        environments: {
          staging: {
            enabled: true,
            targeting: {
              rules: [{ conditions: [], variant: 'zzz' }],
              rollout: { distribution: [{ variant: 'a', weight: 60 }], attribute: 'user_id' },
            },
          },
        },
      },
      opts,
    )
    expect(issues.map((i) => i.path).sort()).toEqual([
      'environments.staging.targeting.rollout.distribution',
      'environments.staging.targeting.rules[0].variant',
    ])
  })
  test("limits are the flag's: 200 rules", () => {
    const rules = Array.from({ length: 201 }, () => ({ conditions: [], value: true }))
    expect(
      validateFlag({ key: 'f', value: true, environments: { staging: { enabled: true, targeting: { rules } } } }, opts).map((i) => i.path),
    ).toEqual(['environments.staging.targeting.rules'])
  })
  test('a valid flag with own rules has no issues; targeting null is no own rules', () => {
    expect(validateFlag(flag, { segmentKeys: new Set(['staff']) })).toEqual([])
    expect(validateFlag({ key: 'f', value: true, environments: { staging: { enabled: true, targeting: null } } }, opts)).toEqual([])
    expect(
      validateFlag({ key: 'f', value: true, environments: { staging: { enabled: true, targeting: [] } } }, opts).map((i) => i.path),
    ).toEqual(['environments.staging.targeting'])
  })
})
