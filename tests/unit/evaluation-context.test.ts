// Reading `?context=` straight from the URL (server/http/evaluation-context.ts), and its parse cache.
import { describe, expect, test } from 'bun:test'
import { contextFromUrl, rawQueryParam } from '../../server/http/evaluation-context'
import { AppError } from '../../server/errors'
import { BoundedMemo } from '../../server/http/bounded-memo'

const url = (query: string) => `http://127.0.0.1:1/api/v1/flags/f${query}`
const enc = (c: unknown) => encodeURIComponent(JSON.stringify(c))

describe('rawQueryParam', () => {
  test('the first parameter with that exact name, still encoded', () => {
    expect(rawQueryParam(url('?context=a%20b'), 'context=')).toBe('a%20b')
    expect(rawQueryParam(url('?x=1&context=c&context=d'), 'context=')).toBe('c')
    expect(rawQueryParam(url('?xcontext=1&y=context=2'), 'context=')).toBeUndefined()
    expect(rawQueryParam(url('?context='), 'context=')).toBe('')
    expect(rawQueryParam(url(''), 'context=')).toBeUndefined()
    expect(rawQueryParam(url('?environment=staging&context=z'), 'environment=')).toBe('staging')
  })
})

describe('contextFromUrl', () => {
  test('absent or empty: the empty context', () => {
    expect(contextFromUrl(url(''))).toEqual({})
    expect(contextFromUrl(url('?context='))).toEqual({})
  })

  test('parses, checks and freezes; the same text gives the same object', () => {
    const text = enc({ user_id: 'u1', custom: { country: 'us' } })
    const a = contextFromUrl(url(`?context=${text}`))
    expect(a).toEqual({ user_id: 'u1', custom: { country: 'us' } })
    expect(Object.isFrozen(a)).toBe(true)
    expect(Object.isFrozen(a.custom)).toBe(true)
    expect(contextFromUrl(url(`?other=1&context=${text}`))).toBe(a)
  })

  test('not URL-encoded JSON of a context object: 400 with the field path, every time', () => {
    for (const [query, path] of [
      ['?context=%E0', 'context'],
      ['?context=not-json', 'context'],
      [`?context=${enc([1])}`, 'context'],
      [`?context=${enc({ plan: 1 })}`, 'context.plan'],
    ] as const) {
      for (let i = 0; i < 2; i++) {
        let error: unknown
        try {
          contextFromUrl(url(query))
        } catch (e) {
          error = e
        }
        expect(error).toBeInstanceOf(AppError)
        expect((error as AppError).status).toBe(400)
        expect(((error as AppError).details as { issues: { path: string }[] }).issues[0]!.path).toBe(path)
      }
    }
  })

  test('a context longer than the memo keeps is parsed every time, and right', () => {
    const text = enc({ user_id: 'long', custom: { note: 'x'.repeat(3000) } })
    const a = contextFromUrl(url(`?context=${text}`))
    const b = contextFromUrl(url(`?context=${text}`))
    expect(a.user_id).toBe('long')
    expect(b).toEqual(a)
    expect(b).not.toBe(a)
  })

  test('a short context with many values (memory a client could multiply) is not kept', () => {
    const text = enc({ user_id: 'wide', custom: { list: Array.from({ length: 80 }, () => ({})) } })
    expect(text.length).toBeLessThan(1024)
    const a = contextFromUrl(url(`?context=${text}`))
    expect(contextFromUrl(url(`?context=${text}`))).not.toBe(a)
    const small = enc({ user_id: 'narrow', custom: { list: [1, 2, 3] } })
    expect(contextFromUrl(url(`?context=${small}`))).toBe(contextFromUrl(url(`?context=${small}`)))
  })

  test('past its bound the cache starts over and still answers right', () => {
    for (let i = 0; i < 10_050; i++) expect(contextFromUrl(url(`?context=${enc({ user_id: `u${i}` })}`)).user_id).toBe(`u${i}`)
    expect(contextFromUrl(url(`?context=${enc({ user_id: 'u3' })}`)).user_id).toBe('u3')
  })
})

describe('BoundedMemo', () => {
  test('forgets everything past its entry bound; never keeps keys over its length bound', () => {
    const memo = new BoundedMemo<number>(3, 5)
    for (const [i, k] of ['a', 'b', 'c'].entries()) memo.set(k, i)
    expect([memo.get('a'), memo.get('c')]).toEqual([0, 2])
    memo.set('d', 3)
    expect([memo.get('a'), memo.get('b'), memo.get('c'), memo.get('d')]).toEqual([undefined, undefined, undefined, 3])
    memo.set('toolong', 4)
    expect(memo.get('toolong')).toBeUndefined()
  })
})
