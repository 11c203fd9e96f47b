// validateFlag / validateConditions / checkJsonLimits: each failure is reported at the right path.
import { describe, expect, test } from 'bun:test'
import { checkJsonLimits, validateConditions, validateFlag } from '../../server/engine'

const segmentKeys = new Set(['beta'])
const environments = new Set(['development', 'production'])
const base = { key: 'f', enabled: true, value: true }
const paths = (input: unknown) => validateFlag(input, { segmentKeys, environments }).map((i) => i.path)
const withCondition = (condition: unknown) => ({
  ...base,
  targeting: { rules: [{ conditions: [{ property: 'x', operator: 'equals', value: 'a' }, condition], value: false }] },
})
const P = 'targeting.rules[0].conditions[1]'

describe('valid flags', () => {
  test('a complete flag passes', () => {
    expect(
      paths({
        ...base,
        targeting: {
          rules: [
            {
              conditions: [
                { property: 'plan', operator: 'equals', value: 'pro' },
                { property: 'country', operator: 'in', value: ['us', 'ca'] },
                { property: 'email', operator: 'matches', value: '@example\\.com$' },
                { property: 'age', operator: 'greater_than', value: 18 },
                { property: 'signup', operator: 'before', value: '2025-01-01T00:00:00Z' },
                { property: 'app', operator: 'semver_greater_than', value: 'v1.2.3-rc.1' },
                { property: 'beta', operator: 'exists' },
                { property: 'user_id', operator: 'in_segment', value: 'beta' },
                { operator: 'not_in_segment', value: 'beta' },
              ],
              value: false,
            },
          ],
          rollout: { percentage: 12.5, attribute: 'user_id' },
          overrides: { u1: false },
        },
        environments: { production: { enabled: false }, development: { enabled: true, value: false } },
        active_from: '2025-01-01T00:00:00Z',
        active_until: '2025-02-01',
      }),
    ).toEqual([])
  })
  test('null optional fields pass', () => {
    expect(paths({ ...base, targeting: null, environments: null, active_from: null, active_until: null })).toEqual([])
    expect(paths({ ...base, targeting: { rules: null, rollout: null, overrides: null } })).toEqual([])
  })
})

describe('flag-level failures', () => {
  test('not an object', () => {
    expect(paths(null)).toEqual([''])
    expect(paths([])).toEqual([''])
  })
  test('basic field types', () => {
    expect(paths({ ...base, key: 5 })).toEqual(['key'])
    expect(paths({ ...base, enabled: 'yes' })).toEqual(['enabled'])
  })
  test('targeting shape', () => {
    expect(paths({ ...base, targeting: [] })).toEqual(['targeting'])
    expect(paths({ ...base, targeting: { rules: {} } })).toEqual(['targeting.rules'])
    expect(paths({ ...base, targeting: { rules: [5] } })).toEqual(['targeting.rules[0]'])
    expect(paths({ ...base, targeting: { rules: [{ value: false }] } })).toEqual(['targeting.rules[0].conditions'])
    expect(paths({ ...base, targeting: { rules: [{ conditions: [] }] } })).toEqual(['targeting.rules[0].value'])
  })
  test('at most 200 rules, 100 conditions per rule', () => {
    const rule = { conditions: [], value: false }
    expect(paths({ ...base, targeting: { rules: Array(200).fill(rule) } })).toEqual([])
    expect(paths({ ...base, targeting: { rules: Array(201).fill(rule) } })).toEqual(['targeting.rules'])
    const cond = { property: 'a', operator: 'exists' }
    expect(paths({ ...base, targeting: { rules: [{ conditions: Array(100).fill(cond), value: false }] } })).toEqual([])
    expect(paths({ ...base, targeting: { rules: [{ conditions: Array(101).fill(cond), value: false }] } })).toEqual([
      'targeting.rules[0].conditions',
    ])
  })
  test('past a limit only the entries within it are checked (the list is refused anyway; patterns cost CPU)', () => {
    const bad = { conditions: [{ property: 'a', operator: 'matches', value: '(' }], value: false }
    expect(
      paths({ ...base, targeting: { rules: [...Array(200).fill({ conditions: [], value: false }), ...Array(5000).fill(bad)] } }),
    ).toEqual(['targeting.rules'])
    expect(paths({ ...base, targeting: { rules: [bad, ...Array(300).fill(bad)] } })).toEqual([
      'targeting.rules',
      ...Array.from({ length: 200 }, (_, i) => `targeting.rules[${i}].conditions[0].value`),
    ])
    const badCondition = { property: 'a', operator: 'nope' }
    expect(
      validateConditions(
        [...Array(100).fill({ property: 'a', operator: 'exists' }), ...Array(1000).fill(badCondition)],
        'conditions',
        segmentKeys,
      ).map((i) => i.path),
    ).toEqual(['conditions'])
  })
  test('rollout', () => {
    expect(paths({ ...base, targeting: { rollout: 50 } })).toEqual(['targeting.rollout'])
    expect(paths({ ...base, targeting: { rollout: { attribute: 'user_id' } } })).toEqual(['targeting.rollout.percentage'])
    expect(paths({ ...base, targeting: { rollout: { percentage: 101, attribute: 'user_id' } } })).toEqual(['targeting.rollout.percentage'])
    expect(paths({ ...base, targeting: { rollout: { percentage: -1, attribute: 'user_id' } } })).toEqual(['targeting.rollout.percentage'])
    expect(paths({ ...base, targeting: { rollout: { percentage: '50', attribute: 'user_id' } } })).toEqual(['targeting.rollout.percentage'])
    expect(paths({ ...base, targeting: { rollout: { percentage: 50 } } })).toEqual(['targeting.rollout.attribute'])
    expect(paths({ ...base, targeting: { rollout: { percentage: 50, attribute: '' } } })).toEqual(['targeting.rollout.attribute'])
  })
  test('overrides', () => {
    expect(paths({ ...base, targeting: { overrides: [] } })).toEqual(['targeting.overrides'])
    expect(paths({ ...base, targeting: { overrides: 'u1' } })).toEqual(['targeting.overrides'])
    expect(paths({ ...base, value: '', targeting: { overrides: { u1: 'x'.repeat(300 * 1024) } } })).toEqual(['targeting.overrides.u1'])
  })
  test('environments', () => {
    expect(paths({ ...base, environments: [] })).toEqual(['environments'])
    expect(paths({ ...base, environments: { staging: { enabled: true } } })).toEqual(['environments.staging'])
    expect(paths({ ...base, environments: { production: true } })).toEqual(['environments.production'])
    expect(paths({ ...base, environments: { production: { value: false } } })).toEqual(['environments.production.enabled'])
    expect(paths({ ...base, value: [], environments: { production: { enabled: true, value: deep(40) } } })).toEqual([
      'environments.production.value',
    ])
    // Without a list of environments, any name is accepted.
    expect(validateFlag({ ...base, environments: { anything: { enabled: true } } }, { segmentKeys })).toEqual([])
  })
  test('active window', () => {
    expect(paths({ ...base, active_from: 'soon' })).toEqual(['active_from'])
    expect(paths({ ...base, active_until: 12 })).toEqual(['active_until'])
    expect(paths({ ...base, active_from: '2025-02-30T00:00:00Z' })).toEqual(['active_from'])
    expect(paths({ ...base, active_from: '2025-02-01T00:00:00Z', active_until: '2025-01-01T00:00:00Z' })).toEqual(['active_until'])
    expect(paths({ ...base, active_from: '2025-01-01T00:00:00Z', active_until: '2025-01-01T00:00:00Z' })).toEqual(['active_until'])
  })
  test('JSON limits on the flag value and rule values', () => {
    expect(paths({ ...base, value: deep(33) })).toEqual(['value'])
    expect(paths({ ...base, value: deep(32) })).toEqual([])
    expect(paths({ ...base, value: '', targeting: { rules: [{ conditions: [], value: 'x'.repeat(256 * 1024) }] } })).toEqual([
      'targeting.rules[0].value',
    ])
  })
})

describe('condition failures', () => {
  test('shape, property and operator', () => {
    expect(paths(withCondition('x'))).toEqual([P])
    expect(paths(withCondition({ property: 'a', operator: 'like', value: 'a' }))).toEqual([`${P}.operator`])
    expect(paths(withCondition({ property: 'a', value: 'a' }))).toEqual([`${P}.operator`])
    expect(paths(withCondition({ property: '', operator: 'equals', value: 'a' }))).toEqual([`${P}.property`])
    expect(paths(withCondition({ operator: 'equals', value: 'a' }))).toEqual([`${P}.property`])
  })
  const bad: [string, unknown][] = [
    ['equals', null],
    ['not_equals', { a: 1 }],
    ['contains', [1]],
    ['not_contains', undefined],
    ['in', 'us'],
    ['not_in', null],
    ['starts_with', 1],
    ['ends_with', null],
    ['matches', 5],
    ['matches', '(unclosed'],
    ['matches', '(a)\\1'],
    ['matches', 'a'.repeat(1025)],
    ['greater_than', '5'],
    ['greater_than_or_equal', null],
    ['less_than', Infinity],
    ['less_than_or_equal', true],
    ['before', 'yesterday'],
    ['after', 1700000000000],
    ['semver_equals', '1.2'],
    ['semver_greater_than', 'x'],
    ['semver_less_than', 1],
    ['in_segment', 'unknown'],
    ['not_in_segment', 5],
    ['in_segment', ''],
  ]
  for (const [operator, value] of bad) {
    test(`${operator} rejects ${JSON.stringify(value)?.slice(0, 20)}`, () => {
      expect(paths(withCondition({ property: 'a', operator, value }))).toEqual([`${P}.value`])
    })
  }
  test('in / not_in elements must be scalars', () => {
    expect(paths(withCondition({ property: 'a', operator: 'in', value: ['a', { b: 1 }, null] }))).toEqual([
      `${P}.value[1]`,
      `${P}.value[2]`,
    ])
  })
  test('exists / not_exists ignore the value', () => {
    expect(paths(withCondition({ property: 'a', operator: 'exists', value: { whatever: true } }))).toEqual([])
    expect(paths(withCondition({ property: 'a', operator: 'not_exists' }))).toEqual([])
  })
  test('matches accepts a 1024-character pattern', () => {
    expect(paths(withCondition({ property: 'a', operator: 'matches', value: 'a'.repeat(1024) }))).toEqual([])
  })
})

describe('value types (every answer has the type of the flag value)', () => {
  const issues = (input: unknown) => validateFlag(input, { segmentKeys, environments })
  test('rule, override and environment values of another type are refused, named as the console shows them', () => {
    expect(
      issues({
        ...base,
        targeting: {
          rules: [
            { conditions: [], value: true },
            { conditions: [], value: 'yes' },
          ],
        },
      }),
    ).toEqual([{ path: 'targeting.rules[1].value', message: "Rule 2: value must be a boolean, like the flag's value" }])
    expect(issues({ ...base, targeting: { overrides: { 'u-1': 1 } } })).toEqual([
      { path: 'targeting.overrides.u-1', message: "Override for user u-1: must be a boolean, like the flag's value" },
    ])
    expect(issues({ ...base, value: { a: 1 }, environments: { production: { enabled: true, value: [1] } } })).toEqual([
      { path: 'environments.production.value', message: "Environment production: value must be an object, like the flag's value" },
    ])
  })
  test('null is an explicit off value of any flag; matching types pass', () => {
    expect(
      issues({
        ...base,
        targeting: { rules: [{ conditions: [], value: null }], overrides: { u: null } },
        environments: { production: { enabled: true, value: null } },
      }),
    ).toEqual([])
    expect(
      issues({
        ...base,
        value: 'a',
        targeting: { rules: [{ conditions: [], value: 'b' }], overrides: { u: 'c' } },
        environments: { production: { enabled: true, value: 'd' } },
      }),
    ).toEqual([])
    expect(issues({ ...base, value: 1, targeting: { rules: [{ conditions: [], value: 2.5 }] } })).toEqual([])
  })
  test('a change of the value type needs every other value to follow', () => {
    const flag = { ...base, targeting: { rules: [{ conditions: [], value: false }] } }
    expect(issues({ ...flag, value: 'on' }).map((i) => i.path)).toEqual(['targeting.rules[0].value'])
  })
  test('condition problems are named by rule and condition, counted from 1', () => {
    expect(issues(withCondition({ property: 'a', operator: 'greater_than', value: 'x' }))).toEqual([
      { path: `${P}.value`, message: 'Rule 1, condition 2: value must be a finite number' },
    ])
  })
})

describe('validateConditions (segments)', () => {
  test('valid list', () => {
    expect(validateConditions([{ property: 'plan', operator: 'equals', value: 'pro' }], 'conditions', segmentKeys)).toEqual([])
  })
  test('not an array', () => {
    expect(validateConditions({}, 'conditions', segmentKeys).map((i) => i.path)).toEqual(['conditions'])
  })
  test('segments do not nest (self-reference included)', () => {
    const issues = validateConditions(
      [
        { property: 'x', operator: 'in_segment', value: 'beta' },
        { operator: 'not_in_segment', value: 'self' },
      ],
      'conditions',
      segmentKeys,
    )
    expect(issues.map((i) => i.path)).toEqual(['conditions[0].operator', 'conditions[1].operator'])
  })
  test('at most 100 conditions', () => {
    const c = { property: 'a', operator: 'exists' }
    expect(validateConditions(Array(101).fill(c), 'conditions', segmentKeys).map((i) => i.path)).toEqual(['conditions'])
  })
  test('paths of nested problems', () => {
    expect(validateConditions([{ property: 'a', operator: 'in', value: 1 }], 'conditions', segmentKeys).map((i) => i.path)).toEqual([
      'conditions[0].value',
    ])
  })
})

describe('checkJsonLimits', () => {
  test('size: 256 KiB serialised (UTF-8 bytes)', () => {
    expect(checkJsonLimits('x'.repeat(256 * 1024 - 2), 'value')).toEqual([])
    expect(checkJsonLimits('x'.repeat(256 * 1024 - 1), 'value').map((i) => i.path)).toEqual(['value'])
    expect(checkJsonLimits('é'.repeat(128 * 1024), 'v').length).toBe(1)
  })
  test('depth: 32 levels', () => {
    expect(checkJsonLimits(deep(32), 'value')).toEqual([])
    expect(checkJsonLimits(deep(33), 'value').map((i) => i.path)).toEqual(['value'])
    expect(checkJsonLimits(deep(100000), 'value').length).toBe(1) // no stack overflow
  })
  test('non-JSON and missing values', () => {
    expect(checkJsonLimits(undefined, 'value')[0]!.message).toBe('is required')
    expect(checkJsonLimits(NaN, 'value').length).toBe(1)
    expect(checkJsonLimits({ a: () => 1 }, 'value').length).toBe(1)
    expect(checkJsonLimits(null, 'value')).toEqual([])
    expect(checkJsonLimits({ a: [1, 'b', null, true] }, 'value')).toEqual([])
  })
  test('cyclic values are rejected, not crashed on', () => {
    const a: Record<string, unknown> = {}
    a.self = a
    expect(checkJsonLimits(a, 'value').length).toBe(1)
  })
})

function deep(levels: number): unknown {
  let v: unknown = 1
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { v }
  return v
}
