// Properties of weighted splits and prerequisites (docs/lifecycle.md §1-2), and of explain: its trace ends
// at the step the compiled flag's answer came from.
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import {
  bucketOf,
  compileFlag,
  explainFlag,
  MAX_PREREQUISITE_DEPTH,
  validateFlag,
  type CompiledFlag,
  type FlagDefinition,
} from '../../server/engine'

const NAMES = ['a', 'b', 'c', 'd', 'e']
const noSegments = new Map()

/** 2 to 5 weights in hundredths summing to 10000. */
const weights = fc.integer({ min: 2, max: 5 }).chain((n) =>
  fc.array(fc.integer({ min: 0, max: 10000 }), { minLength: n - 1, maxLength: n - 1 }).map((cuts) => {
    const sorted = [0, ...cuts.sort((x, y) => x - y), 10000]
    return sorted.slice(1).map((c, i) => c - sorted[i]!)
  }),
)

const splitFlag = (key: string, hundredths: number[]): FlagDefinition => ({
  key,
  enabled: true,
  value: 'a',
  variants: Object.fromEntries(NAMES.map((n) => [n, n.toUpperCase()])),
  default_variant: 'a',
  targeting: { rollout: { attribute: 'user_id', distribution: hundredths.map((w, i) => ({ variant: NAMES[i]!, weight: w / 100 })) } },
})
const users = Array.from({ length: 300 }, (_, i) => `user-${i}`)

describe('weighted splits', () => {
  test('valid, sticky, and each user gets the variant whose cumulative range holds their bucket', () => {
    fc.assert(
      fc.property(weights, fc.stringMatching(/^[a-z]{1,6}$/), (w, key) => {
        const flag = splitFlag(key, w)
        expect(validateFlag(flag, { segmentKeys: new Set() })).toEqual([])
        const compiled = compileFlag(flag, noSegments)
        for (const user of users.slice(0, 60)) {
          const r = compiled.evaluate({ user_id: user })
          expect(compiled.evaluate({ user_id: user })).toBe(r)
          const bucket = Math.round(bucketOf(key, user) * 100)
          let upper = 0
          const expected = w.findIndex((x) => (upper += x) > bucket)
          expect(r.variant).toBe(NAMES[expected]!)
          expect(r.value).toBe(NAMES[expected]!.toUpperCase())
        }
      }),
      { numRuns: 150 },
    )
  })

  test('moving weight between neighbouring variants moves only the users whose bucket lies in the moved range', () => {
    fc.assert(
      fc.property(weights, fc.nat(), fc.integer({ min: -10000, max: 10000 }), (w, pick, delta) => {
        const i = pick % (w.length - 1)
        // Move up to `delta` hundredths from slice i+1 to slice i (or back), keeping both ≥ 0.
        const moved = Math.max(-w[i]!, Math.min(w[i + 1]!, delta))
        const after = [...w]
        after[i] = w[i]! + moved
        after[i + 1] = w[i + 1]! - moved
        const before = compileFlag(splitFlag('move', w), noSegments)
        const next = compileFlag(splitFlag('move', after), noSegments)
        const boundary = w.slice(0, i + 1).reduce((s, x) => s + x, 0)
        const [lo, hi] = moved >= 0 ? [boundary, boundary + moved] : [boundary + moved, boundary]
        for (const user of users) {
          const bucket = Math.round(bucketOf('move', user) * 100)
          const changed = before.evaluate({ user_id: user }).variant !== next.evaluate({ user_id: user }).variant
          expect(changed).toBe(bucket >= lo && bucket < hi)
        }
      }),
      { numRuns: 150 },
    )
  })
})

describe('prerequisites', () => {
  const chain = (depth: number): Map<string, CompiledFlag> => {
    const flags = new Map<string, CompiledFlag>()
    const resolve = (k: string) => flags.get(k)
    for (let i = 0; i < depth; i++) {
      const def: FlagDefinition = {
        key: `f${i}`,
        enabled: true,
        value: true,
        ...(i > 0 && { prerequisites: [{ key: `f${i - 1}`, value: true }] }),
      }
      flags.set(def.key, compileFlag(def, noSegments, resolve))
    }
    return flags
  }

  test('any depth holds while every link holds, and fails from the first broken link up', () => {
    const flags = chain(40)
    expect(flags.get('f39')!.evaluate({}).reason).toBe('default')
    flags.set('f0', compileFlag({ key: 'f0', enabled: false, value: true }, noSegments))
    expect(flags.get('f39')!.evaluate({})).toMatchObject({ value: false, reason: 'prerequisite_failed' })
    expect(flags.get('f1')!.evaluate({}).reason).toBe('prerequisite_failed')
  })

  test('a stored cycle (never accepted by a write) fails closed after a bounded walk, without throwing', () => {
    const flags = new Map<string, CompiledFlag>()
    const resolve = (k: string) => flags.get(k)
    flags.set('x', compileFlag({ key: 'x', enabled: true, value: true, prerequisites: [{ key: 'y', value: true }] }, noSegments, resolve))
    flags.set('y', compileFlag({ key: 'y', enabled: true, value: true, prerequisites: [{ key: 'x', value: true }] }, noSegments, resolve))
    expect(flags.get('x')!.evaluate({}).reason).toBe('prerequisite_failed')
    expect(MAX_PREREQUISITE_DEPTH).toBeGreaterThan(40)
  })
})

describe('explain agrees with evaluate', () => {
  const flag: FlagDefinition = {
    key: 'why',
    enabled: true,
    value: 'a',
    variants: { a: 'A', b: 'B', c: 'C' },
    default_variant: 'a',
    off_variant: 'c',
    environments: { staging: { enabled: false } },
    prerequisites: [{ key: 'gate', value: true }],
    targeting: {
      overrides: { vip: 'b' },
      rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], variant: 'b' }],
      rollout: {
        attribute: 'user_id',
        distribution: [
          { variant: 'a', weight: 33.33 },
          { variant: 'b', weight: 33.33 },
          { variant: 'c', weight: 33.34 },
        ],
      },
    },
  }
  const gate = compileFlag(
    {
      key: 'gate',
      enabled: true,
      value: true,
      targeting: { rules: [{ conditions: [{ property: 'blocked', operator: 'exists' }], value: false }] },
    },
    noSegments,
  )
  const STEP_OF: Record<string, string[]> = {
    disabled: ['enabled', 'active_window'],
    prerequisite_failed: ['prerequisite'],
    override: ['individual_override'],
    targeting: ['rule'],
    rollout: ['rollout'],
    default: ['default'],
    environment_override: ['default'],
  }
  const context = fc.record(
    {
      user_id: fc.option(fc.constantFrom('vip', 'u-1', 'u-2', 'u-3', 'u-4'), { nil: undefined }),
      plan: fc.option(fc.constantFrom('pro', 'free'), { nil: undefined }),
      environment: fc.option(fc.constantFrom('staging', 'production'), { nil: undefined }),
      blocked: fc.option(fc.constant(true), { nil: undefined }),
    },
    { requiredKeys: [] },
  )

  test("the last trace step is the one that decided, and the answer is the compiled flag's", () => {
    fc.assert(
      fc.property(context, (ctx) => {
        const now = Date.now()
        const { result, trace } = explainFlag(flag, noSegments, (k) => (k === 'gate' ? gate : undefined), ctx, now)
        expect(result).toEqual(compileFlag(flag, noSegments, (k) => (k === 'gate' ? gate : undefined)).evaluate(ctx, now))
        expect(trace.filter((s) => s.decided)).toHaveLength(1)
        expect(trace.at(-1)!.decided).toBe(true)
        expect(STEP_OF[result.reason]).toContain(trace.at(-1)!.step)
      }),
      { numRuns: 300 },
    )
  })
})
