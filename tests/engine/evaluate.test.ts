// compileFlag + evaluate: docs/behaviour.md §4 evaluation order, reasons, off values and types.
import { describe, expect, test } from 'bun:test'
import {
  bucketOf,
  compileFlag,
  compileSegment,
  getProperty,
  typeOf,
  type EvaluationContext,
  type FlagDefinition,
  type SegmentDefinition,
} from '../../server/engine'

const NO_SEGMENTS = new Map<string, SegmentDefinition>()
const flag = (over: Partial<FlagDefinition>): FlagDefinition => ({ key: 'f', enabled: true, value: true, ...over })
const run = (def: Partial<FlagDefinition>, ctx: EvaluationContext = {}, now?: number, segments = NO_SEGMENTS) =>
  compileFlag(flag(def), segments).evaluate(ctx, now)

describe('reasons', () => {
  test('default', () => {
    expect(run({})).toEqual({ value: true, type: 'boolean', reason: 'default' })
  })
  test('disabled gives the off value', () => {
    expect(run({ enabled: false })).toEqual({ value: false, type: 'boolean', reason: 'disabled' })
    expect(run({ enabled: false, value: 'blue' })).toEqual({ value: null, type: 'null', reason: 'disabled' })
    expect(run({ enabled: false, value: { a: 1 } })).toEqual({ value: null, type: 'null', reason: 'disabled' })
  })
  test('override by user_id', () => {
    const def = { value: 'a', targeting: { overrides: { u1: 'b' }, rules: [{ conditions: [], value: 'c' }] } }
    expect(run(def, { user_id: 'u1' })).toEqual({ value: 'b', type: 'string', reason: 'override' })
    expect(run(def, { user_id: 'u2' })).toEqual({ value: 'c', type: 'string', reason: 'targeting' })
  })
  test('override does not apply to a disabled flag', () => {
    expect(run({ enabled: false, targeting: { overrides: { u1: true } } }, { user_id: 'u1' }).reason).toBe('disabled')
  })
  test('targeting', () => {
    const def = {
      value: 1,
      targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals' as const, value: 'pro' }], value: 2 }] },
    }
    expect(run(def, { plan: 'pro' })).toEqual({ value: 2, type: 'number', reason: 'targeting' })
    expect(run(def, { plan: 'free' })).toEqual({ value: 1, type: 'number', reason: 'default' })
  })
  test('environment_override', () => {
    const def = { value: 'x', environments: { production: { enabled: true, value: 'y' } } }
    expect(run(def, { environment: 'production' })).toEqual({ value: 'y', type: 'string', reason: 'environment_override' })
    expect(run(def, { environment: 'staging' })).toEqual({ value: 'x', type: 'string', reason: 'default' })
  })
})

describe('rule order', () => {
  test('first matching rule wins; a rule with no conditions matches', () => {
    const def = {
      value: 'default',
      targeting: {
        rules: [
          {
            conditions: [
              { property: 'plan', operator: 'equals' as const, value: 'pro' },
              { property: 'country', operator: 'equals' as const, value: 'us' },
            ],
            value: 'pro-us',
          },
          { conditions: [{ property: 'plan', operator: 'equals' as const, value: 'pro' }], value: 'pro' },
          { conditions: [], value: 'everyone' },
        ],
      },
    }
    expect(run(def, { plan: 'pro', custom: { country: 'us' } }).value).toBe('pro-us')
    expect(run(def, { plan: 'pro', custom: { country: 'de' } }).value).toBe('pro')
    expect(run(def, { plan: 'free' }).value).toBe('everyone')
  })
  test('rules come before the rollout', () => {
    const def = { targeting: { rules: [{ conditions: [], value: 'r' }], rollout: { percentage: 0, attribute: 'user_id' } } }
    expect(run(def, { user_id: 'u' })).toEqual({ value: 'r', type: 'string', reason: 'targeting' })
  })
})

describe('environment overrides', () => {
  test('without a value: only enabled changes', () => {
    const def = { enabled: false, value: 'v', environments: { dev: { enabled: true } } }
    expect(run(def, { environment: 'dev' })).toEqual({ value: 'v', type: 'string', reason: 'environment_override' })
    expect(run(def, { environment: 'prod' }).reason).toBe('disabled')
  })
  test('disabling in one environment', () => {
    const def = { value: true, environments: { prod: { enabled: false } } }
    expect(run(def, { environment: 'prod' })).toEqual({ value: false, type: 'boolean', reason: 'disabled' })
  })
  test('the off value follows the effective value', () => {
    const def = { enabled: true, value: true, environments: { dev: { enabled: false, value: 'text' } } }
    expect(run(def, { environment: 'dev' })).toEqual({ value: null, type: 'null', reason: 'disabled' })
  })
  test('a null value is a given value', () => {
    expect(run({ value: 'v', environments: { dev: { enabled: true, value: null } } }, { environment: 'dev' })).toEqual({
      value: null,
      type: 'null',
      reason: 'environment_override',
    })
  })
  test('rules and overrides still decide before the environment fallthrough', () => {
    const def = {
      value: 'v',
      environments: { dev: { enabled: true, value: 'e' } },
      targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals' as const, value: 'pro' }], value: 'r' }] },
    }
    expect(run(def, { environment: 'dev', plan: 'pro' }).reason).toBe('targeting')
    expect(run(def, { environment: 'dev', plan: 'free' }).reason).toBe('environment_override')
  })
})

describe('active window', () => {
  const from = '2025-01-01T00:00:00Z'
  const until = '2025-02-01T00:00:00Z'
  const fromMs = Date.parse(from)
  const untilMs = Date.parse(until)
  test('exactly at active_from is active, exactly at active_until is not', () => {
    const def = { active_from: from, active_until: until }
    expect(run(def, {}, fromMs - 1).reason).toBe('disabled')
    expect(run(def, {}, fromMs).reason).toBe('default')
    expect(run(def, {}, untilMs - 1).reason).toBe('default')
    expect(run(def, {}, untilMs)).toEqual({ value: false, type: 'boolean', reason: 'disabled' })
  })
  test('open-ended windows', () => {
    expect(run({ active_from: from }, {}, fromMs + 1e12).reason).toBe('default')
    expect(run({ active_until: until }, {}, 0).reason).toBe('default')
    expect(run({ active_from: null, active_until: null }, {}, 0).reason).toBe('default')
  })
  test('the window applies to environment overrides too', () => {
    expect(run({ active_from: from, environments: { dev: { enabled: true } } }, { environment: 'dev' }, fromMs - 1).reason).toBe('disabled')
  })
  test('now defaults to the clock', () => {
    expect(run({ active_until: '2000-01-01T00:00:00Z' }).reason).toBe('disabled')
    expect(run({ active_from: '2000-01-01T00:00:00Z' }).reason).toBe('default')
  })
})

describe('rollout', () => {
  const rollout = (percentage: number, attribute = 'user_id') => ({ value: 'on', targeting: { rollout: { percentage, attribute } } })
  test('0 lets nobody in, 100 lets everybody in', () => {
    for (let i = 0; i < 50; i++) {
      expect(run(rollout(0), { user_id: `u${i}` })).toEqual({ value: null, type: 'null', reason: 'rollout' })
      expect(run(rollout(100), { user_id: `u${i}` })).toEqual({ value: 'on', type: 'string', reason: 'rollout' })
    }
  })
  test('bucket < percentage is inside', () => {
    const b = bucketOf('f', 'user-1')
    expect(run(rollout(b), { user_id: 'user-1' }).value).toBe(null)
    expect(run(rollout(b + 0.01), { user_id: 'user-1' }).value).toBe('on')
  })
  test('a context without the attribute is outside, even at 100', () => {
    expect(run(rollout(100), {})).toEqual({ value: null, type: 'null', reason: 'rollout' })
    expect(run(rollout(100, 'org'), { custom: { org: { id: 1 } } }).reason).toBe('rollout')
    expect(run(rollout(100, 'org'), { custom: { org: { id: 1 } } }).value).toBe(null)
    expect(run(rollout(100, 'org'), { custom: { org: null } }).value).toBe(null)
  })
  test('boolean flag outside the rollout gets false', () => {
    expect(run({ value: true, targeting: { rollout: { percentage: 0, attribute: 'user_id' } } }, { user_id: 'u' })).toEqual({
      value: false,
      type: 'boolean',
      reason: 'rollout',
    })
  })
  test('numbers and booleans are stringified; custom attributes work', () => {
    const b = bucketOf('f', '42')
    expect(run(rollout(b + 0.01, 'org_id'), { custom: { org_id: 42 } }).value).toBe('on')
    expect(run(rollout(b, 'org_id'), { custom: { org_id: 42 } }).value).toBe(null)
    expect(run(rollout(b + 0.01, 'custom.org_id'), { custom: { org_id: '42' } }).value).toBe('on')
  })
  test('rollout gives the environment value', () => {
    expect(
      run(
        {
          value: 'a',
          environments: { dev: { enabled: true, value: 'b' } },
          targeting: { rollout: { percentage: 100, attribute: 'user_id' } },
        },
        { environment: 'dev', user_id: 'u' },
      ),
    ).toEqual({ value: 'b', type: 'string', reason: 'rollout' })
  })
})

describe('property lookup', () => {
  test('top-level fields first, then custom; custom.x form', () => {
    expect(getProperty({ plan: 'pro', custom: { plan: 'free' } }, 'plan')).toBe('pro')
    expect(getProperty({ custom: { plan: 'free' } }, 'plan')).toBe('free')
    expect(getProperty({ custom: { country: 'us' } }, 'country')).toBe('us')
    expect(getProperty({ custom: { country: 'us' } }, 'custom.country')).toBe('us')
    expect(getProperty({ custom: { country: null } }, 'country')).toBe(undefined)
    expect(getProperty({ custom: {} }, 'toString')).toBe(undefined)
    expect(getProperty({ custom: 'junk' }, 'x')).toBe(undefined)
    expect(getProperty(null, 'x')).toBe(undefined)
  })
  test('custom.x in a rule', () => {
    const def = {
      value: false,
      targeting: { rules: [{ conditions: [{ property: 'custom.country', operator: 'in' as const, value: ['us', 'ca'] }], value: true }] },
    }
    expect(run(def, { custom: { country: 'ca' } }).reason).toBe('targeting')
    expect(run(def, { custom: { country: 'mx' } }).reason).toBe('default')
  })
})

describe('segments', () => {
  const segments = new Map<string, SegmentDefinition>([
    [
      'beta',
      {
        key: 'beta',
        conditions: [
          { property: 'plan', operator: 'equals', value: 'pro' },
          { property: 'country', operator: 'equals', value: 'us' },
        ],
      },
    ],
    ['everyone', { key: 'everyone', conditions: [] }],
  ])
  const inSeg = (operator: 'in_segment' | 'not_in_segment', key: string) => ({
    value: 'off',
    targeting: { rules: [{ conditions: [{ property: 'user_id', operator, value: key }], value: 'on' }] },
  })
  test('in_segment holds when all segment conditions hold', () => {
    expect(run(inSeg('in_segment', 'beta'), { plan: 'pro', custom: { country: 'us' } }, undefined, segments).value).toBe('on')
    expect(run(inSeg('in_segment', 'beta'), { plan: 'pro', custom: { country: 'de' } }, undefined, segments).value).toBe('off')
    expect(run(inSeg('in_segment', 'everyone'), {}, undefined, segments).value).toBe('on')
  })
  test('not_in_segment', () => {
    expect(run(inSeg('not_in_segment', 'beta'), { plan: 'pro', custom: { country: 'us' } }, undefined, segments).value).toBe('off')
    expect(run(inSeg('not_in_segment', 'beta'), { plan: 'free' }, undefined, segments).value).toBe('on')
  })
  test('a segment missing at compile time: in_segment false, not_in_segment true', () => {
    expect(run(inSeg('in_segment', 'gone'), { plan: 'pro' }, undefined, segments).value).toBe('off')
    expect(run(inSeg('not_in_segment', 'gone'), { plan: 'pro' }, undefined, segments).value).toBe('on')
  })
  test('compileSegment', () => {
    const s = compileSegment(segments.get('beta')!)
    expect(s.key).toBe('beta')
    expect(s.matches({ plan: 'pro', custom: { country: 'us' } })).toBe(true)
    expect(s.matches({ plan: 'pro' })).toBe(false)
    expect(s.matches(null as never)).toBe(false)
  })
})

describe('types and robustness', () => {
  test('type names', () => {
    expect(typeOf(true)).toBe('boolean')
    expect(typeOf('s')).toBe('string')
    expect(typeOf(1.5)).toBe('number')
    expect(typeOf({})).toBe('object')
    expect(typeOf([])).toBe('array')
    expect(typeOf(null)).toBe('null')
    expect(run({ value: [1, 2] })).toEqual({ value: [1, 2], type: 'array', reason: 'default' })
    expect(run({ value: { a: [1] } })).toEqual({ value: { a: [1] }, type: 'object', reason: 'default' })
  })
  test('results are frozen and cannot be corrupted by callers', () => {
    const f = compileFlag(flag({ value: { a: [1] } }), NO_SEGMENTS)
    const r = f.evaluate({})
    expect(Object.isFrozen(r)).toBe(true)
    expect(() => {
      ;(r.value as { a: number[] }).a.push(2)
    }).toThrow()
    expect(f.evaluate({}).value).toEqual({ a: [1] })
  })
  test('the compiled flag does not alias the definition', () => {
    const def = flag({ value: { a: 1 } })
    const f = compileFlag(def, NO_SEGMENTS)
    ;(def.value as { a: number }).a = 2
    expect(f.evaluate({}).value).toEqual({ a: 1 })
    expect(f.key).toBe('f')
  })
  test('garbage contexts never throw', () => {
    const f = compileFlag(
      flag({
        environments: { dev: { enabled: true } },
        targeting: {
          overrides: { u: 1 },
          rules: [{ conditions: [{ property: 'x', operator: 'matches', value: 'a' }], value: 2 }],
          rollout: { percentage: 50, attribute: 'user_id' },
        },
      }),
      NO_SEGMENTS,
    )
    const junk: unknown[] = [
      null,
      undefined,
      1,
      'str',
      [],
      [1],
      { custom: 5 },
      { custom: null },
      { custom: [1] },
      { user_id: 5 },
      { environment: {} },
      { user_id: {}, custom: { x: { y: 1 } } },
      { custom: { x: 5 } },
      Object.create(null),
    ]
    for (const c of junk)
      expect(['disabled', 'override', 'targeting', 'rollout', 'default', 'environment_override']).toContain(
        f.evaluate(c as EvaluationContext).reason,
      )
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('boom')
        },
      },
    )
    expect(f.evaluate(hostile as EvaluationContext).reason).toBe('disabled')
  })
})

describe('attribute lookup: top-level first, then custom', () => {
  const flag = compileFlag(
    {
      key: 'geo',
      enabled: true,
      value: 'off',
      targeting: { rules: [{ conditions: [{ property: 'country', operator: 'equals', value: 'de' }], value: 'on' }] },
    },
    new Map(),
  )
  test('a top-level attribute other than user_id/plan/environment is found', () => {
    expect(flag.evaluate({ country: 'de' } as never).value).toBe('on')
  })
  test('custom is read when the top level lacks it, and the top level wins when both have it', () => {
    expect(flag.evaluate({ custom: { country: 'de' } }).value).toBe('on')
    expect(flag.evaluate({ country: 'fr', custom: { country: 'de' } } as never).value).toBe('off')
  })
  test('custom.<name> reads only custom; inherited names are never attributes', () => {
    const explicit = compileFlag(
      {
        key: 'geo2',
        enabled: true,
        value: 'off',
        targeting: { rules: [{ conditions: [{ property: 'custom.country', operator: 'equals', value: 'de' }], value: 'on' }] },
      },
      new Map(),
    )
    expect(explicit.evaluate({ country: 'de' } as never).value).toBe('off')
    expect(explicit.evaluate({ custom: { country: 'de' } }).value).toBe('on')
    const proto = compileFlag(
      {
        key: 'p',
        enabled: true,
        value: 'off',
        targeting: { rules: [{ conditions: [{ property: 'toString', operator: 'exists' }], value: 'on' }] },
      },
      new Map(),
    )
    expect(proto.evaluate({}).value).toBe('off')
  })
})

describe('contextOnly: the result depends on the context alone', () => {
  const compiled = (def: Partial<FlagDefinition>) =>
    compileFlag({ key: 'f', enabled: true, value: true, ...def } as FlagDefinition, new Map())
  test('rules, rollout and an environment own rules depend on the context only', () => {
    expect(compiled({}).contextOnly).toBe(true)
    expect(compiled({ targeting: { rollout: { percentage: 30, attribute: 'user_id' } } }).contextOnly).toBe(true)
    expect(
      compiled({ environments: { production: { enabled: true, targeting: { rollout: { percentage: 30, attribute: 'user_id' } } } } })
        .contextOnly,
    ).toBe(true)
  })
  test('an activity window (either end) or prerequisites make it depend on more', () => {
    expect(compiled({ active_from: '2000-01-01T00:00:00.000Z' }).contextOnly).toBe(false)
    expect(compiled({ active_until: '2999-01-01T00:00:00.000Z' }).contextOnly).toBe(false)
    expect(compiled({ prerequisites: [{ key: 'other', value: true }] }).contextOnly).toBe(false)
  })
})
