// Every operator: match, non-match, missing property, wrong type (docs/behaviour.md §4 plus operators.ts notes).
import { describe, expect, test } from 'bun:test'
import { compareSemver, evaluateOperator as op, parseSemver } from '../../server/engine'

const MISSING = undefined

describe('equals / not_equals', () => {
  test('match and non-match, case-sensitive', () => {
    expect(op('equals', 'pro', 'pro')).toBe(true)
    expect(op('equals', 'Pro', 'pro')).toBe(false)
    expect(op('equals', 3, 3)).toBe(true)
    expect(op('equals', true, true)).toBe(true)
    expect(op('not_equals', 'free', 'pro')).toBe(true)
    expect(op('not_equals', 'pro', 'pro')).toBe(false)
  })
  test('missing property', () => {
    expect(op('equals', MISSING, 'pro')).toBe(false)
    expect(op('equals', null, 'pro')).toBe(false)
    expect(op('not_equals', MISSING, 'pro')).toBe(true)
  })
  test('wrong type: exact JSON type, no coercion', () => {
    expect(op('equals', '3', 3)).toBe(false)
    expect(op('equals', { a: 1 }, 'x')).toBe(false)
    expect(op('not_equals', '3', 3)).toBe(true)
  })
})

describe('in / not_in', () => {
  test('match and non-match', () => {
    expect(op('in', 'us', ['us', 'ca'])).toBe(true)
    expect(op('in', 2, [1, 2])).toBe(true)
    expect(op('in', 'mx', ['us', 'ca'])).toBe(false)
    expect(op('not_in', 'mx', ['us', 'ca'])).toBe(true)
    expect(op('not_in', 'us', ['us', 'ca'])).toBe(false)
  })
  test('missing property', () => {
    expect(op('in', MISSING, ['us'])).toBe(false)
    expect(op('not_in', MISSING, ['us'])).toBe(true)
  })
  test('wrong type', () => {
    expect(op('in', '2', [1, 2])).toBe(false)
    expect(op('in', ['us'], ['us'])).toBe(false)
    expect(op('not_in', ['us'], ['us'])).toBe(true)
    expect(op('in', 'us', 'us')).toBe(false) // condition value not an array
  })
})

describe('contains / not_contains', () => {
  test('substring on strings, membership on arrays', () => {
    expect(op('contains', 'hello world', 'lo w')).toBe(true)
    expect(op('contains', 'hello', 'L')).toBe(false)
    expect(op('contains', ['admin', 'dev'], 'admin')).toBe(true)
    expect(op('contains', ['admin', 'dev'], 'adm')).toBe(false)
    expect(op('contains', [1, 2], 2)).toBe(true)
    expect(op('not_contains', 'hello', 'xyz')).toBe(true)
    expect(op('not_contains', ['a'], 'a')).toBe(false)
  })
  test('missing property', () => {
    expect(op('contains', MISSING, 'a')).toBe(false)
    expect(op('not_contains', MISSING, 'a')).toBe(true)
  })
  test('wrong type', () => {
    expect(op('contains', 123, '2')).toBe(false)
    expect(op('contains', { a: 'a' }, 'a')).toBe(false)
    expect(op('contains', '123', 2)).toBe(false)
    expect(op('not_contains', 123, '2')).toBe(true)
  })
})

describe('starts_with / ends_with', () => {
  test('match and non-match', () => {
    expect(op('starts_with', 'user@example.com', 'user@')).toBe(true)
    expect(op('starts_with', 'user@example.com', 'User')).toBe(false)
    expect(op('ends_with', 'user@example.com', '@example.com')).toBe(true)
    expect(op('ends_with', 'user@example.com', '.org')).toBe(false)
  })
  test('missing property', () => {
    expect(op('starts_with', MISSING, 'a')).toBe(false)
    expect(op('ends_with', MISSING, 'a')).toBe(false)
  })
  test('wrong type', () => {
    expect(op('starts_with', { a: 1 }, 'a')).toBe(false)
    expect(op('ends_with', 12, '2')).toBe(false)
    expect(op('starts_with', ['ab'], 'a')).toBe(false)
  })
})

describe('matches', () => {
  test('match and non-match (unanchored search, RE2 syntax)', () => {
    expect(op('matches', 'user@example.com', '@example\\.com$')).toBe(true)
    expect(op('matches', 'user@example.org', '@example\\.com$')).toBe(false)
    expect(op('matches', 'abc', '^b')).toBe(false)
    expect(op('matches', 'ABC', 'abc')).toBe(false)
    expect(op('matches', 'ABC', '(?i)abc')).toBe(true)
  })
  test('missing property', () => {
    expect(op('matches', MISSING, '.*')).toBe(false)
  })
  test('wrong type', () => {
    expect(op('matches', 123, '\\d+')).toBe(false)
    expect(op('matches', ['a'], 'a')).toBe(false)
  })
  test('invalid pattern never matches', () => {
    expect(op('matches', 'aaa', '(a')).toBe(false)
    expect(op('matches', 'aa', '(a)\\1')).toBe(false) // backreference: not RE2
  })
  test('pathological pattern runs in linear time', () => {
    // A backtracking engine would not finish this; RE2 answers at once.
    expect(op('matches', 'a'.repeat(5000) + '!', '^(a+)+$')).toBe(false)
  })
})

describe('numeric comparisons', () => {
  test('match and non-match', () => {
    expect(op('greater_than', 10, 5)).toBe(true)
    expect(op('greater_than', 5, 5)).toBe(false)
    expect(op('greater_than_or_equal', 5, 5)).toBe(true)
    expect(op('greater_than_or_equal', 4.9, 5)).toBe(false)
    expect(op('less_than', -1, 0)).toBe(true)
    expect(op('less_than', 0, 0)).toBe(false)
    expect(op('less_than_or_equal', 0, 0)).toBe(true)
    expect(op('less_than_or_equal', 1, 0)).toBe(false)
  })
  test('numeric string properties are read as numbers', () => {
    expect(op('greater_than', '10', 5)).toBe(true)
    expect(op('less_than', '-1.5e3', 0)).toBe(true)
    expect(op('greater_than_or_equal', '.5', 0.5)).toBe(true)
  })
  test('missing property', () => {
    for (const o of ['greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal']) expect(op(o, MISSING, 1)).toBe(false)
  })
  test('wrong type', () => {
    expect(op('greater_than', 'abc', 1)).toBe(false)
    expect(op('greater_than', '', -1)).toBe(false)
    expect(op('greater_than', ' 5', 1)).toBe(false)
    expect(op('greater_than', '0x10', 1)).toBe(false)
    expect(op('greater_than', true, 0)).toBe(false)
    expect(op('greater_than', [5], 1)).toBe(false)
    expect(op('greater_than', '1e400', 1)).toBe(false)
    expect(op('greater_than', 5, '1')).toBe(false) // condition value must be a number
  })
})

describe('before / after', () => {
  test('match and non-match', () => {
    expect(op('before', '2024-01-01T00:00:00Z', '2024-06-01T00:00:00Z')).toBe(true)
    expect(op('before', '2024-06-01T00:00:00Z', '2024-06-01T00:00:00Z')).toBe(false)
    expect(op('after', '2024-06-01T00:00:01Z', '2024-06-01T00:00:00Z')).toBe(true)
    expect(op('after', '2024-01-01', '2024-06-01')).toBe(false)
  })
  test('offsets, fractions and epoch-millisecond properties', () => {
    expect(op('before', '2024-06-01T01:59:59+02:00', '2024-06-01T00:00:00Z')).toBe(true)
    expect(op('after', '2024-06-01T00:00:00.001Z', '2024-06-01T00:00:00Z')).toBe(true)
    expect(op('after', Date.parse('2024-06-02T00:00:00Z'), '2024-06-01T00:00:00Z')).toBe(true)
  })
  test('missing property', () => {
    expect(op('before', MISSING, '2024-01-01')).toBe(false)
    expect(op('after', MISSING, '2024-01-01')).toBe(false)
  })
  test('wrong type or invalid date', () => {
    expect(op('before', 'yesterday', '2024-01-01')).toBe(false)
    expect(op('before', '2023-02-30', '2024-01-01')).toBe(false)
    expect(op('before', { d: 1 }, '2024-01-01')).toBe(false)
    expect(op('before', '2023-01-01', 'not a date')).toBe(false)
  })
})

describe('semver', () => {
  test('match and non-match', () => {
    expect(op('semver_equals', '1.2.3', '1.2.3')).toBe(true)
    expect(op('semver_equals', 'v1.2.3+build.5', '1.2.3')).toBe(true)
    expect(op('semver_equals', '1.2.4', '1.2.3')).toBe(false)
    expect(op('semver_greater_than', '1.10.0', '1.9.9')).toBe(true)
    expect(op('semver_greater_than', '1.0.0-rc.1', '1.0.0')).toBe(false)
    expect(op('semver_less_than', '1.0.0-alpha', '1.0.0')).toBe(true)
    expect(op('semver_less_than', '2.0.0', '1.0.0')).toBe(false)
  })
  test('precedence follows semver.org §11', () => {
    const order = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '2.0.0',
      '2.1.0',
      '2.1.1',
      '99999999999999999999.0.0',
    ]
    for (let i = 0; i + 1 < order.length; i++) {
      expect(compareSemver(parseSemver(order[i])!, parseSemver(order[i + 1])!)).toBeLessThan(0)
      expect(compareSemver(parseSemver(order[i + 1])!, parseSemver(order[i])!)).toBeGreaterThan(0)
    }
  })
  test('missing property', () => {
    expect(op('semver_equals', MISSING, '1.0.0')).toBe(false)
    expect(op('semver_greater_than', MISSING, '1.0.0')).toBe(false)
    expect(op('semver_less_than', MISSING, '1.0.0')).toBe(false)
  })
  test('wrong type or invalid version', () => {
    expect(op('semver_equals', 1, '1.0.0')).toBe(false)
    expect(op('semver_greater_than', '1.2', '1.0.0')).toBe(false)
    expect(op('semver_less_than', '01.0.0', '2.0.0')).toBe(false)
    expect(op('semver_less_than', '1.0.0-', '2.0.0')).toBe(false)
    expect(op('semver_equals', '1.0.0', 'latest')).toBe(false)
  })
})

describe('exists / not_exists', () => {
  test('present, missing, null', () => {
    expect(op('exists', 'x', undefined)).toBe(true)
    expect(op('exists', 0, undefined)).toBe(true)
    expect(op('exists', '', undefined)).toBe(true)
    expect(op('exists', MISSING, undefined)).toBe(false)
    expect(op('exists', null, undefined)).toBe(false)
    expect(op('not_exists', MISSING, undefined)).toBe(true)
    expect(op('not_exists', { a: 1 }, undefined)).toBe(false)
  })
})

describe('unknown operators', () => {
  test('never hold', () => {
    expect(op('bogus', 'x', 'x')).toBe(false)
    expect(op('in_segment', 'x', 'x')).toBe(false) // segments are resolved by compile.ts
  })
})
