// The URL's text before routing (server/http/url-input.ts): percent-encoding of UTF-8, no control
// characters, paging parameters as plain decimal integers.
import { describe, expect, test } from 'bun:test'
import { checkUrl, decodePathSegment, decodeQueryValue, pathIssues, queryIssues } from '../../server/http/url-input'

const PAGING = { limit: { minimum: 1, maximum: 1000 }, offset: { minimum: 0, maximum: 1_000_000_000 } }
const check = (path: string, query = '') => {
  const issues = [...pathIssues(path), ...queryIssues(query, PAGING)]
  return issues.length ? issues : undefined
}

describe('decoding', () => {
  test('decodeQueryValue: `+` is a space; broken or non-UTF-8 percent-encoding is null', () => {
    expect(decodeQueryValue('a+b%2Bc')).toBe('a b+c')
    for (const bad of ['%E0', '%FF', '%C3%28', '%zz', 'a%', '%ED%A0%80', '%C1%A6'])
      expect({ bad, decoded: decodeQueryValue(bad) }).toEqual({ bad, decoded: null })
  })

  test('decodePathSegment: `+` is itself', () => {
    expect(decodePathSegment('a+b%20c')).toBe('a+b c')
    expect(decodePathSegment('caf%C3%A9')).toBe('café')
    expect(decodePathSegment('%FF')).toBeNull()
  })
})

describe('urlIssues: the path', () => {
  test('fine paths, encoded or not', () => {
    for (const path of [
      '/api/v1/flags/f',
      '/api/v1/flags/caf%C3%A9',
      '/api/v1/flags/a%20b',
      '/api/v1/flags/%2F',
      '/api/v1/flags/' + 'k'.repeat(10_000),
    ])
      expect(check(path)).toBeUndefined()
  })

  test('control characters and broken or non-UTF-8 encoding, quoting the segment as sent', () => {
    for (const seg of ['a%00b', 'a%0A', '%1F', 'a%7F', '%0d%0a'])
      expect(check(`/api/v1/flags/${seg}`)).toEqual([
        { path: 'path', message: `segment "${seg}" contains a control character (U+0000-U+001F or U+007F)` },
      ])
    for (const seg of ['%FF', '%C3%28', '%zz', 'a%', '%ED%A0%80'])
      expect(check(`/api/v1/flags/${seg}/definition`)).toEqual([
        { path: 'path', message: `segment "${seg}" is not valid percent-encoded UTF-8` },
      ])
  })

  test('a long segment is quoted short', () => {
    const [issue] = check(`/api/v1/flags/${'%00'.repeat(5000)}`)!
    expect(issue!.message.length).toBeLessThan(140)
  })
})

describe('urlIssues: the query', () => {
  test('fine queries', () => {
    for (const query of ['limit=10&offset=0', 'environment=caf%C3%A9', 'a=b+c', '&&', 'context', '=x', 'x='])
      expect({ query, issues: check('/p', query) }).toEqual({ query, issues: undefined })
  })

  test('values: control characters and bad encoding name the parameter', () => {
    expect(check('/p', 'actor=a%00')).toEqual([{ path: 'actor', message: 'contains a control character (U+0000-U+001F or U+007F)' }])
    expect(check('/p', 'environment=a%0Ab&x=%FF')).toEqual([
      { path: 'environment', message: 'contains a control character (U+0000-U+001F or U+007F)' },
      { path: 'x', message: 'is not valid percent-encoded UTF-8' },
    ])
  })

  test('`context` is JSON: its whitespace is allowed, its encoding is still checked', () => {
    expect(check('/p', `context=${encodeURIComponent('{\n\t"user_id": "u"\n}')}`)).toBeUndefined()
    expect(check('/p', 'context=%FF')).toEqual([{ path: 'context', message: 'is not valid percent-encoded UTF-8' }])
  })

  test('names: quoted as sent', () => {
    expect(check('/p', 'a%00=1')).toEqual([
      { path: 'a%00', message: 'parameter name contains a control character (U+0000-U+001F or U+007F)' },
    ])
    expect(check('/p', '%FF=1')).toEqual([{ path: '%FF', message: 'parameter name is not valid percent-encoded UTF-8' }])
    expect(check('/p', `${'%FF'.repeat(100)}=1`)![0]!.path.length).toBeLessThan(70)
  })

  test('paging: plain decimal integers in range, names decoded; names of Object.prototype are not bounds', () => {
    for (const value of ['1e3', '0x10', '10abc', '1.5', '%205', '+5', '-1', '', '1%00', '0', '1001', '%FF']) {
      expect({ value, issues: check('/p', `limit=${value}`) }).toEqual({
        value,
        issues: [{ path: 'limit', message: 'must be an integer from 1 to 1000' }],
      })
    }
    expect(check('/p', 'li%6Dit=0')).toEqual([{ path: 'limit', message: 'must be an integer from 1 to 1000' }])
    expect(check('/p', 'limit=1000&offset=1000000000')).toBeUndefined()
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) expect(check('/p', `${name}=x`)).toBeUndefined()
  })
})

describe('checkUrl', () => {
  test('one 400 with every issue; says query when only the query is wrong', () => {
    expect(checkUrl('/p', '', PAGING)).toBeUndefined()
    expect(checkUrl('/p', 'limit=5', PAGING)).toBeUndefined()
    expect(checkUrl('/p', 'limit=0', PAGING)!.message).toBe('Invalid query: limit: must be an integer from 1 to 1000')
    expect(checkUrl('/a%00', '', PAGING)!.message).toBe(
      'Invalid URL: path: segment "a%00" contains a control character (U+0000-U+001F or U+007F)',
    )
    const both = checkUrl('/a%00', 'x=%FF', PAGING)!
    expect([both.status, both.code, both.message, both.details]).toEqual([
      400,
      'VALIDATION_ERROR',
      'Invalid URL: path: segment "a%00" contains a control character (U+0000-U+001F or U+007F); x: is not valid percent-encoded UTF-8',
      {
        issues: [
          { path: 'path', message: 'segment "a%00" contains a control character (U+0000-U+001F or U+007F)' },
          { path: 'x', message: 'is not valid percent-encoded UTF-8' },
        ],
      },
    ])
  })
})
