// OFREP's single-flag POST has two implementations of its common case: the fast path on Bun's router
// (server/http/fast-ofrep.ts) and the Elysia route it hands everything else to. A request from a browser
// (an Origin header) always takes Elysia's path, so the same request with and without one shows both: their
// answers must be the same bytes on the wire, status line and headers included (the Origin here is not one
// CORS_ORIGINS allows, so Elysia adds no CORS headers either). Only Date differs, and X-RateLimit-Remaining
// agrees because each path gets a token of its own. Which requests the fast path takes is
// tests/unit/fast-ofrep.test.ts's subject.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, createToken, startServer, type TestServer } from '../helpers/server'

let srv: TestServer
const ELSEWHERE = 'https://elsewhere.example'

beforeAll(async () => {
  srv = await startServer({ env: { CORS_ORIGINS: 'https://allowed.example', RATE_LIMIT_EVALUATION_PER_MINUTE: '1000' } })
  const post = (body: unknown) => api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body })
  await post({
    key: 'rule',
    enabled: true,
    value: true,
    targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'free' }], value: false }] },
  })
  await post({ key: 'off', enabled: false, value: 'x' })
  await post({ key: 'split', enabled: true, value: 10, targeting: { rollout: { percentage: 100, attribute: 'user_id' } } })
  await post({ key: 'static', enabled: true, value: { max: 5 }, environments: { production: { enabled: true, value: { max: 50 } } } })
})
afterAll(() => srv.stop())

/** One request on its own connection, and the answer's bytes as sent. */
function raw(request: Uint8Array): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = []
    Bun.connect({
      hostname: '127.0.0.1',
      port: srv.port,
      socket: {
        open: (socket) => void socket.write(request),
        data: (_socket, data) => void chunks.push(new Uint8Array(data)),
        close: () => resolve(Buffer.concat(chunks).toString('latin1')),
        error: (_socket, error) => reject(error),
      },
    })
  })
}

interface Case {
  name: string
  key: string
  body: string | Uint8Array
  headers?: Record<string, string>
  /** the answer's status and OFREP reason or error code */
  status: number
  code: string
}

function requestBytes(c: Case, token: string, origin: boolean): Uint8Array {
  const body = typeof c.body === 'string' ? Buffer.from(c.body) : Buffer.from(c.body)
  const headers: Record<string, string> = {
    host: `127.0.0.1:${srv.port}`,
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    ...c.headers,
    'content-length': String(body.byteLength),
    connection: 'close',
  }
  if (origin) headers.origin = ELSEWHERE
  const head = Object.entries(headers)
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')
  return Buffer.concat([Buffer.from(`POST /ofrep/v1/evaluate/flags/${c.key} HTTP/1.1\r\n${head}\r\n`), body])
}

const withoutDate = (response: string) => response.replace(/\r\nDate: [^\r]*/i, '')

const CASES: Case[] = [
  {
    name: 'success (TARGETING_MATCH)',
    key: 'rule',
    body: '{"context":{"targetingKey":"u-1","plan":"free"}}',
    status: 200,
    code: 'TARGETING_MATCH',
  },
  { name: 'DISABLED', key: 'off', body: '{"context":{"targetingKey":"u-1"}}', status: 200, code: 'DISABLED' },
  { name: 'SPLIT', key: 'split', body: '{"context":{"targetingKey":"u-7","country":"nl"}}', status: 200, code: 'SPLIT' },
  { name: 'STATIC, environment override', key: 'static', body: '{"context":{"environment":"production"}}', status: 200, code: 'STATIC' },
  { name: 'TARGETING_KEY_MISSING', key: 'split', body: '{"context":{"plan":"free"}}', status: 400, code: 'TARGETING_KEY_MISSING' },
  { name: 'FLAG_NOT_FOUND', key: 'nope', body: '{"context":{"targetingKey":"u-1"}}', status: 404, code: 'FLAG_NOT_FOUND' },
  { name: 'invalid context', key: 'rule', body: '{"context":{"targetingKey":5}}', status: 400, code: 'INVALID_CONTEXT' },
  { name: 'a body that is not an object', key: 'rule', body: '[1]', status: 400, code: 'INVALID_CONTEXT' },
  { name: 'malformed JSON', key: 'rule', body: '{"context":', status: 400, code: 'PARSE_ERROR' },
  {
    name: 'bytes that are not UTF-8',
    key: 'rule',
    body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
    status: 400,
    code: 'PARSE_ERROR',
  },
  { name: 'empty body, no media type', key: 'rule', body: '', headers: { 'content-type': '' }, status: 200, code: 'DEFAULT' },
  {
    name: 'the charset spelling OpenFeature sends',
    key: 'rule',
    body: '{"context":{"plan":"free"}}',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    status: 200,
    code: 'TARGETING_MATCH',
  },
  { name: 'a percent-encoded key', key: 'ru%6Ce', body: '{}', status: 200, code: 'DEFAULT' },
]

describe('OFREP single flag: the fast path and Elysia send the same bytes', () => {
  for (const c of CASES) {
    test(c.name, async () => {
      const [fastToken, elysiaToken] = await Promise.all([createToken(srv, ['read:flags']), createToken(srv, ['read:flags'])])
      for (let round = 0; round < 2; round++) {
        const fast = await raw(requestBytes(c, fastToken, false))
        const elysia = await raw(requestBytes(c, elysiaToken, true))
        const [status, body] = [Number(fast.split(' ')[1]), JSON.parse(fast.slice(fast.indexOf('\r\n\r\n') + 4))]
        expect({ status, code: body.reason ?? body.errorCode }).toEqual({ status: c.status, code: c.code })
        expect(fast).toContain('\r\nX-RateLimit-Remaining: ')
        // The rate-limit window may turn between the two requests (Reset moves by a minute): then again.
        const reset = (r: string) => /X-RateLimit-Reset: (\d+)/.exec(r)?.[1]
        if (reset(fast) !== reset(elysia)) continue
        expect(withoutDate(fast)).toBe(withoutDate(elysia))
        return
      }
      throw new Error('the rate-limit window turned twice')
    })
  }

  test('X-API-Key instead of Authorization', async () => {
    const token = await createToken(srv, ['read:flags'])
    const c: Case = { name: '', key: 'rule', body: '{"context":{"plan":"free"}}', status: 200, code: '' }
    const viaApiKey = (origin: boolean) => {
      const text = Buffer.from(requestBytes(c, token, origin))
        .toString('latin1')
        .replace(/authorization: Bearer /, 'x-api-key: ')
      return raw(Buffer.from(text, 'latin1'))
    }
    const fast = await viaApiKey(false)
    const elysia = await viaApiKey(true)
    expect(fast).toContain('HTTP/1.1 200 OK')
    expect(
      withoutDate(fast)
        .replace(/Remaining: \d+/, '')
        .replace(/Reset: \d+/, ''),
    ).toBe(
      withoutDate(elysia)
        .replace(/Remaining: \d+/, '')
        .replace(/Reset: \d+/, ''),
    )
  })
})

describe('OFREP single flag: browsers', () => {
  test("an allowed Origin gets the CORS headers on a success too (Elysia's path), with the same body", async () => {
    const send = (origin?: string) =>
      fetch(`${srv.url}/ofrep/v1/evaluate/flags/rule`, {
        method: 'POST',
        headers: { authorization: `Bearer ${srv.adminToken}`, 'content-type': 'application/json', ...(origin && { origin }) },
        body: '{"context":{"plan":"free"}}',
      })
    const [plain, browser] = [await send(), await send('https://allowed.example')]
    expect(browser.status).toBe(200)
    expect(await browser.text()).toBe(await plain.text())
    expect(browser.headers.get('access-control-allow-origin')).toBe('https://allowed.example')
    expect(browser.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining')
    expect(plain.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('OFREP single flag: counting across both paths', () => {
  test('every request counts exactly once, whichever path answers it', async () => {
    const token = await createToken(srv, ['read:flags'])
    const send = (key: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`${srv.url}/ofrep/v1/evaluate/flags/${key}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
        body,
      })
    const seen: [number, string | null][] = []
    for (const [key, body, headers] of [
      ['rule', '{}', {}],
      ['nope', '{}', {}], // unknown flag: handed over before the body is read
      ['rule', '{"context":', {}], // malformed: handed over after the body is read
      ['rule', '{}', { origin: ELSEWHERE }],
      ['rule', '{}', {}],
    ] as [string, string, Record<string, string>][]) {
      const res = await send(key, body, headers)
      seen.push([res.status, res.headers.get('x-ratelimit-remaining')])
    }
    expect(seen).toEqual([
      [200, '999'],
      [404, '998'],
      [400, '997'],
      [200, '996'],
      [200, '995'],
    ])
  })

  test("over the budget: 429 with Retry-After on the fast path as on Elysia's", async () => {
    const small = await startServer({ env: { RATE_LIMIT_EVALUATION_PER_MINUTE: '2' } })
    try {
      const send = (origin?: string) =>
        fetch(`${small.url}/ofrep/v1/evaluate/flags/x`, {
          method: 'POST',
          headers: { authorization: `Bearer ${small.adminToken}`, 'content-type': 'application/json', ...(origin && { origin }) },
          body: '{}',
        })
      await api(small, 'POST', '/api/v1/flags', { token: small.adminToken, body: { key: 'x', enabled: true, value: 1 } })
      expect((await send()).status).toBe(200)
      expect((await send()).status).toBe(200)
      for (const origin of [undefined, 'https://app.example']) {
        const refused = await send(origin)
        expect(refused.status).toBe(429)
        expect(await refused.json()).toEqual({ error: 'Rate limit exceeded', code: 'RATE_LIMITED' })
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
        expect(refused.headers.get('x-ratelimit-remaining')).toBe('0')
      }
    } finally {
      await small.stop()
    }
  })
})
