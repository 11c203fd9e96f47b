// The one linear scan JSON text gets before it is parsed (server/documents/json-text.ts), and what the readers
// built on it answer (server/http/json-input.ts, evaluation-context.ts).
import { describe, expect, test } from 'bun:test'
import { badUnitOf, describeUnit, locateBadText, scanJsonText } from '../../server/documents/json-text'
import { parseJsonText } from '../../server/http/json-input'
import { contextFromUrl } from '../../server/http/evaluation-context'
import { AppError } from '../../server/errors'

/** JSON text as a client writes it; `\\` in these literals is one backslash in the text. */
const unitAt = (text: string) => {
  const p = scanJsonText(text)
  return p?.kind === 'unit' ? [p.unit, p.at] : p?.kind
}

describe('scanJsonText: strings', () => {
  test('NUL and lone surrogates spelled as escapes, in values and in keys, with where they start', () => {
    expect(unitAt('"\\u0000"')).toEqual([0, 1])
    expect(unitAt('{"a":"x\\u0000"}')).toEqual([0, 7])
    expect(unitAt('{"k\\u0000":1}')).toEqual([0, 3])
    expect(unitAt('["\\ud800"]')).toEqual([0xd800, 2])
    expect(unitAt('["\\uD800x"]')).toEqual([0xd800, 2])
    expect(unitAt('["\\udc00"]')).toEqual([0xdc00, 2])
    expect(unitAt('["a\\uDFFF"]')).toEqual([0xdfff, 3])
    // a high half followed by another escape, another high half, or the end of the string
    expect(unitAt('["\\ud800\\n"]')).toEqual([0xd800, 2])
    expect(unitAt('["\\ud800\\ud800\\udc00"]')).toEqual([0xd800, 2])
    expect(unitAt('["\\ud800\\u0041"]')).toEqual([0xd800, 2])
    expect(unitAt('{"\\ud800":1}')).toEqual([0xd800, 2])
  })

  test('raw code units count the same as escaped ones', () => {
    expect(unitAt('["\u0000"]')).toEqual([0, 2])
    expect(unitAt('["\ud800"]')).toEqual([0xd800, 2])
    expect(unitAt('["a\udc00"]')).toEqual([0xdc00, 3])
  })

  test('pairs, escaped or raw or mixed, and every other escape are fine', () => {
    for (const ok of [
      '"\\ud83d\\ude00"',
      '"\ud83d\ude00"',
      '"\\ud83d\ude00"',
      '"\ud83d\\ude00"',
      '"\\u0001\\u001f\\u007f\\uffff\\ue000"',
      '"\\"\\\\\\/\\b\\f\\n\\r\\t"',
      '{"\\u00e9t\\u00E9":"caf\\u00e9"}',
      '"\\\\u0000"',
      '[1e400, -0, null]',
      '',
    ]) {
      expect({ ok, problem: scanJsonText(ok) }).toEqual({ ok, problem: undefined })
    }
  })

  test('outside strings nothing is read as text (the parser refuses what is not JSON)', () => {
    expect(scanJsonText('[1, \\u0000]')).toBeUndefined()
  })

  test('the first bad string is reported; depth still wins wherever it is', () => {
    expect(unitAt('["\\udc00", "\\u0000"]')).toEqual([0xdc00, 2])
    expect(unitAt('["\\u0000", ' + '['.repeat(65) + ']'.repeat(65) + ']')).toBe('depth')
  })
})

describe('scanJsonText: depth (brackets inside strings do not count)', () => {
  test('64 levels pass, 65 do not', () => {
    expect(scanJsonText('['.repeat(64) + ']'.repeat(64))).toBeUndefined()
    expect(unitAt('['.repeat(65) + ']'.repeat(65))).toBe('depth')
    expect(unitAt('{"a":'.repeat(65) + '1' + '}'.repeat(65))).toBe('depth')
    expect(scanJsonText(`["${'['.repeat(1000)}"]`)).toBeUndefined()
    expect(scanJsonText(`["\\"${'['.repeat(1000)}"]`)).toBeUndefined()
  })

  // One pass, no recursion: a megabyte of brackets, escapes or surrogate pairs gets its verdict without a
  // stack overflow (the time it takes is bench material, not a unit test's).
  test('a megabyte of brackets, escapes or surrogate pairs: the right verdict, no recursion', () => {
    expect(scanJsonText('['.repeat(1 << 20))).toBeDefined()
    for (const text of [`"${'\\u0041'.repeat(170_000)}"`, `"${'\\ud83d\\ude00'.repeat(85_000)}"`, `"${'\ud83d\ude00'.repeat(250_000)}"`]) {
      expect(scanJsonText(text)).toBeUndefined()
    }
  })
})

describe('locating and wording', () => {
  test('badUnitOf and describeUnit', () => {
    expect([badUnitOf('ok'), badUnitOf('a\u0000'), badUnitOf('\ud800'), badUnitOf('\ud83d\ude00'), badUnitOf('\ude00\ud83d')]).toEqual([
      undefined,
      0,
      0xd800,
      undefined,
      0xde00,
    ])
    expect(describeUnit(0)).toBe('\\u0000 (NUL)')
    expect(describeUnit(0xd800)).toBe('\\ud800 (an unpaired UTF-16 surrogate)')
  })

  test('the field path of the first bad string; a key is reported at its object', () => {
    expect(locateBadText({ value: { a: [1, 'x\u0000'] } }, '')?.path).toBe('value.a[1]')
    expect(locateBadText({ targeting: { overrides: { 'u\ud800': true } } }, '')).toEqual({
      path: 'targeting.overrides',
      message: 'has a property name that contains \\ud800 (an unpaired UTF-16 surrogate), which is not allowed in text',
    })
    expect(locateBadText({ custom: { 'odd key': '\u0000' } }, 'context')?.path).toBe('context.custom["odd key"]')
    expect(locateBadText('\u0000', '')).toEqual({ path: '', message: 'contains \\u0000 (NUL), which is not allowed in text' })
    expect(locateBadText({ a: 'fine' }, '')).toBeUndefined()
  })
})

const refusal = (f: () => unknown) => {
  try {
    f()
  } catch (e) {
    expect(e).toBeInstanceOf(AppError)
    const error = e as AppError
    return { status: error.status, code: error.code, issues: (error.details as { issues: unknown[] }).issues, message: error.message }
  }
  throw new Error('not refused')
}

describe('parseJsonText and the URL context', () => {
  test('a body: 400 naming the field', () => {
    expect(refusal(() => parseJsonText('{"key":"c","value":{"a":"x\\u0000"}}', 'body'))).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
      issues: [{ path: 'value.a', message: 'contains \\u0000 (NUL), which is not allowed in text' }],
      message: 'Invalid request: value.a: contains \\u0000 (NUL), which is not allowed in text',
    })
    expect(refusal(() => parseJsonText('"\\udc00"', 'body')).issues).toEqual([
      { path: 'body', message: 'contains \\udc00 (an unpaired UTF-16 surrogate), which is not allowed in text' },
    ])
  })

  test('a bad string that a duplicate key dropped is still refused, by its place in the text', () => {
    expect(refusal(() => parseJsonText('{"a":"\\u0000","a":"ok"}', 'body')).issues).toEqual([
      { path: 'body', message: 'contains \\u0000 (NUL) at position 6, which is not allowed in text' },
    ])
  })

  test('malformed JSON keeps its own message; fine text parses', () => {
    expect(refusal(() => parseJsonText('{"a":"\\u0000"', 'body')).issues).toEqual([{ path: '', message: 'malformed JSON' }])
    expect(parseJsonText('{"a":"\\ud83d\\ude00","b":"\\u0001"}', 'body')).toEqual({ a: '😀', b: '\u0001' })
  })

  test('the `?context=` of an evaluation URL', () => {
    const url = (ctx: string) => `http://127.0.0.1:1/api/v1/flags/f?context=${encodeURIComponent(ctx)}`
    expect(refusal(() => contextFromUrl(url('{"user_id":"\\u0000"}'))).issues).toEqual([
      { path: 'context.user_id', message: 'contains \\u0000 (NUL), which is not allowed in text' },
    ])
    expect(refusal(() => contextFromUrl(url('{"custom":{"\\ud800":1}}'))).issues).toEqual([
      {
        path: 'context.custom',
        message: 'has a property name that contains \\ud800 (an unpaired UTF-16 surrogate), which is not allowed in text',
      },
    ])
    expect(contextFromUrl(url('{"user_id":"\\ud83d\\ude00"}')).user_id).toBe('😀')
  })
})
