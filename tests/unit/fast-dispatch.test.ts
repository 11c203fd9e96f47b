// fast-dispatch.ts: which requests reach a fast route's handler (with the URL and the path's key) and which
// go to Elysia untouched.
import { describe, expect, test } from 'bun:test'
import { fastDispatch, keyAt, type FastRoute } from '../../server/http/fast-dispatch'

const seen: string[] = []
const route = (method: FastRoute['method'], template: FastRoute['template']): FastRoute => ({
  method,
  template,
  handler: (request, url, key) => {
    seen.push(`${template} ${key} ${url === request.url}`)
    return new Response('fast')
  },
})
const dispatch = fastDispatch(
  [route('GET', '/api/v1/flags/:key'), route('GET', '/api/v1/configs/:key'), route('POST', '/ofrep/v1/evaluate/flags/:key')],
  (request) => {
    seen.push(`elysia ${request.method} ${new URL(request.url).pathname}`)
    return new Response('elysia')
  },
)
const served = async (method: string, url: string): Promise<string> => {
  seen.length = 0
  await dispatch(new Request(url, { method }), undefined as never)
  return seen.join('|')
}

describe('fast dispatch', () => {
  test('a fast route gets its own method and path, with the key and the URL it read once', async () => {
    expect(await served('GET', 'http://h/api/v1/flags/new-checkout?context=%7B%7D')).toBe('/api/v1/flags/:key new-checkout true')
    expect(await served('GET', 'http://localhost:8080/api/v1/flags/A.b_c-9')).toBe('/api/v1/flags/:key A.b_c-9 true')
    expect(await served('GET', 'https://flags.example.com/api/v1/configs/theme?environment=staging')).toBe(
      '/api/v1/configs/:key theme true',
    )
    expect(await served('POST', 'http://h/ofrep/v1/evaluate/flags/banner')).toBe('/ofrep/v1/evaluate/flags/:key banner true')
  })

  test("other methods, longer paths, encoded or empty keys and other routes are Elysia's", async () => {
    for (const [method, url, path] of [
      ['HEAD', 'http://h/api/v1/flags/x', '/api/v1/flags/x'],
      ['PUT', 'http://h/api/v1/flags/x', '/api/v1/flags/x'],
      ['GET', 'http://h/ofrep/v1/evaluate/flags/x', '/ofrep/v1/evaluate/flags/x'],
      ['POST', 'http://h/api/v1/flags/x', '/api/v1/flags/x'],
      ['GET', 'http://h/api/v1/flags/x/history', '/api/v1/flags/x/history'],
      ['GET', 'http://h/api/v1/flags/x/', '/api/v1/flags/x/'],
      ['GET', 'http://h/api/v1/flags/', '/api/v1/flags/'],
      ['GET', 'http://h/api/v1/flags/?context=%7B%7D', '/api/v1/flags/'],
      ['GET', 'http://h/api/v1/flags', '/api/v1/flags'],
      ['GET', 'http://h/api/v1/flags/%78', '/api/v1/flags/%78'],
      ['GET', 'http://h/api/v2/flags/x', '/api/v2/flags/x'],
      ['GET', 'http://h/x/api/v1/flags/x', '/x/api/v1/flags/x'],
      ['GET', 'http://h/health', '/health'],
    ] as const)
      expect(await served(method, url)).toBe(`elysia ${method} ${path}`)
  })

  test('keyAt: the rest of the path up to the query, if it is one plain segment', () => {
    const url = 'http://h/api/v1/flags/'
    expect(keyAt(`${url}k`, url.length)).toBe('k')
    expect(keyAt(`${url}k?context=a/b%20`, url.length)).toBe('k')
    expect(keyAt(`${url}?context=1`, url.length)).toBeUndefined()
    expect(keyAt(url, url.length)).toBeUndefined()
    expect(keyAt(`${url}a/b`, url.length)).toBeUndefined()
    expect(keyAt(`${url}a%2Fb`, url.length)).toBeUndefined()
  })
})
