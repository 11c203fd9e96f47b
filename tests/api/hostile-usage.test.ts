// Usage that cannot be forged or broken, one strict reading of input, and authentication that neither the
// Host header nor X-API-Key can get around (docs/behaviour.md §8, "Cost and usage"): the attacks of an
// ordinary read-only token, through HTTP on a real server, on the store TEST_STORE names (SQLite by default;
// `TEST_STORE=postgres` runs the same on PostgreSQL). Evaluation cost: hostile-cost.test.ts.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { rawHttp, rawStatus } from '../helpers/raw-http'
import { until } from '../helpers/until'

let srv: TestServer
let admin: string
let reader: string
const ctx = (c: object) => encodeURIComponent(JSON.stringify(c))

beforeAll(async () => {
  srv = await startServer({ env: { USAGE_FLUSH_MS: '200' } })
  admin = srv.adminToken
  reader = await createToken(srv, ['read:flags'])
  await api(srv, 'POST', '/api/v1/flags', {
    token: admin,
    body: {
      key: 'ordinary',
      enabled: true,
      value: false,
      targeting: {
        rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: true }],
        rollout: { percentage: 50, attribute: 'user_id' },
      },
    },
  })
})
afterAll(() => srv?.stop())

describe('usage', () => {
  const total = async (key: string) =>
    ((await api(srv, 'GET', `/api/v1/flags/${key}/usage`, { token: admin })).body.buckets ?? []).reduce(
      (n: number, b: { count: number }) => n + b.count,
      0,
    )

  test('evaluate, edit, evaluate before a flush: the flush succeeds, counts are exact, and later flushes go on', async () => {
    await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'u', enabled: true, value: true } })
    for (let i = 0; i < 3; i++) await api(srv, 'GET', '/api/v1/flags/u', { token: reader })
    await api(srv, 'PUT', '/api/v1/flags/u', { token: admin, body: { description: 'edited' } })
    for (let i = 0; i < 2; i++) await api(srv, 'GET', '/api/v1/flags/u', { token: reader })
    await until('5 counts', async () => (await total('u')) === 5)
    await api(srv, 'GET', '/api/v1/flags/u', { token: reader })
    await until('6 counts', async () => (await total('u')) === 6)
    expect(srv.output()).not.toContain('writing evaluation counts failed')
  })

  test('POST /usage: environment, variant, time, count and fields are checked; nothing is counted from a bad report', async () => {
    const now = new Date().toISOString()
    const row = { key: 'u', environment: 'production', variant: 'default', count: 1, from: now, to: now }
    const bad: [string, Record<string, unknown>][] = [
      ['environment', { environment: 'nowhere' }],
      ['variant', { variant: 'rule-7' }],
      ['variant', { variant: 'made-up' }],
      ['from', { from: '0000-01-01T00:00:00Z' }],
      ['from', { from: new Date(Date.now() - 8 * 86_400_000).toISOString() }],
      ['to', { to: '2999-01-01T00:00:00Z' }],
      ['count', { count: '0x10' }],
      ['count', { count: '16' }],
      ['count', { count: 1.5 }],
      ['count', { count: 2 ** 40 }],
      ['zz', { zz: 1 }],
    ]
    const before = await total('u')
    for (const [path, change] of bad) {
      const res = await api(srv, 'POST', '/api/v1/usage', { token: reader, body: { counts: [{ ...row, ...change }] } })
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 400, code: 'VALIDATION_ERROR' })
    }
    const tooMany = await api(srv, 'POST', '/api/v1/usage', { token: reader, body: { counts: Array.from({ length: 501 }, () => row) } })
    expect(tooMany.status).toBe(400)
    expect((await api(srv, 'POST', '/api/v1/usage', { token: reader, body: { counts: [row, { ...row, environment: '' }] } })).status).toBe(
      200,
    )
    await until('the report counted', async () => (await total('u')) === before + 2)
  })

  test("a token's reports are budgeted per minute (429 with Retry-After)", async () => {
    const token = await createToken(srv, ['read:flags'])
    const now = new Date().toISOString()
    const rows = Array.from({ length: 500 }, () => ({ key: 'u', environment: '', variant: 'default', count: 1, from: now, to: now }))
    let refused
    for (let i = 0; i < 12 && !refused; i++) {
      const res = await api(srv, 'POST', '/api/v1/usage', { token, body: { counts: rows } })
      if (res.status === 429) refused = res
      else expect(res.status).toBe(200)
    }
    expect(refused?.body.code).toBe('RATE_LIMITED')
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0)
  })

  test('usage reads are bounded: a range over 31 days is refused; answers say has_more', async () => {
    const far = await api(srv, 'GET', '/api/v1/flags/u/usage?since=2000-01-01T00:00:00Z', { token: admin })
    expect({ status: far.status, code: far.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' })
    const ok = await api(srv, 'GET', '/api/v1/flags/u/usage', { token: admin })
    expect(ok.body.has_more).toBe(false)
    expect((await api(srv, 'GET', '/api/v1/usage?keys=u', { token: admin })).body.has_more).toBe(false)
  })
})

describe('one strict reading of input', () => {
  test('no numbers from strings, unknown fields refused everywhere, no body where none is taken', async () => {
    await api(srv, 'PUT', '/api/v1/flags/ordinary', { token: admin, body: { description: 'v2' } })
    const cases: [string, string, unknown][] = [
      ['POST', '/api/v1/flags/ordinary/rollback', { version: '1' }],
      ['POST', '/api/v1/flags/ordinary/explain', { context: {}, flag: { enabled: true, value: true, surprise: 1 } }],
      ['POST', '/api/v1/flags', { key: 'n', targeting: { rules: [{ conditions: [], value: true, surprise: 1 }] } }],
      ['POST', '/api/v1/flags/ordinary/archive', { force: true }],
    ]
    for (const [method, path, body] of cases) {
      const res = await api(srv, method, path, { token: admin, body })
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 400, code: 'VALIDATION_ERROR' })
    }
    // The permission is checked first, as for a body a schema refuses.
    expect((await api(srv, 'POST', '/api/v1/flags/ordinary/archive', { token: reader, body: { force: true } })).status).toBe(403)
    const hook = await api(srv, 'POST', '/api/v1/webhooks', { token: admin, body: { url: 'http://127.0.0.1:9/x', events: ['*'] } })
    const resume = await api(srv, 'POST', `/api/v1/webhooks/${hook.body.id}/resume`, { token: admin, body: { force: true } })
    expect({ status: resume.status, code: resume.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' })
    expect((await api(srv, 'POST', `/api/v1/webhooks/${hook.body.id}/resume`, { token: admin })).status).toBe(200)
    expect((await api(srv, 'POST', '/api/v1/flags/ordinary/rollback', { token: admin, body: { version: 1 } })).status).toBe(200)
  })

  test('a singular query parameter given twice is refused (the first no longer wins silently)', async () => {
    for (const path of [
      `/api/v1/flags/ordinary?context=${ctx({})}&context=${ctx({ plan: 'pro' })}`,
      '/api/v1/flags?limit=1&limit=2',
      '/api/v1/configs/x?environment=a&environment=b',
    ]) {
      const res = await api(srv, 'GET', path, { token: admin })
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 400, code: 'VALIDATION_ERROR' })
    }
    expect((await api(srv, 'GET', '/api/v1/flags?tag=a&tag=b', { token: admin })).status).toBe(200)
  })
})

describe('routing and authentication', () => {
  const raw = (request: string) => rawHttp(srv.port, request)

  test("routing does not depend on the Host header's length (raw sockets)", async () => {
    // `/xyz/api/…` is no API route (the console's page, or a 404, never the tokens handler); `/api/…` is the
    // API behind the authentication hook, whatever the Host.
    const notTokens = (response: string) => ({
      tokens: response.includes('"tokens":'),
      status: rawStatus(response) === 200 || rawStatus(response) === 404,
    })
    for (const host of ['a', 'ab', 'abc', 'abcd', 'localhost:8080']) {
      expect(notTokens(await raw(`GET /xyz/api/v1/tokens HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`))).toEqual({
        tokens: false,
        status: true,
      })
      expect(
        notTokens(
          await raw(`GET /xyz/api/v1/tokens HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${admin}\r\nConnection: close\r\n\r\n`),
        ),
      ).toEqual({ tokens: false, status: true })
      const refused = await raw(`GET /api/v1/tokens HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)
      expect({ host, status: rawStatus(refused), hook: refused.includes('Missing or malformed Authorization header') }).toEqual({
        host,
        status: 401,
        hook: true,
      })
      const listed = await raw(
        `GET /api/v1/tokens HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${admin}\r\nConnection: close\r\n\r\n`,
      )
      expect({ host, status: rawStatus(listed), tokens: listed.includes('"tokens":') }).toEqual({ host, status: 200, tokens: true })
      const flag = await raw(
        `GET /api/v1/flags/ordinary?context=${ctx({ user_id: 'u' })} HTTP/1.1\r\n` +
          `Host: ${host}\r\nAuthorization: Bearer ${admin}\r\nConnection: close\r\n\r\n`,
      )
      expect({ host, status: rawStatus(flag) }).toEqual({ host, status: 200 })
    }
  })

  test('X-API-Key works on the evaluation surface only', async () => {
    const key = { 'x-api-key': admin }
    expect((await api(srv, 'GET', '/api/v1/flags/ordinary', { token: null, headers: key })).status).toBe(200)
    expect(
      (
        await api(srv, 'POST', '/ofrep/v1/evaluate/flags/ordinary', {
          token: null,
          headers: key,
          body: { context: { targetingKey: 'u-1' } },
        })
      ).status,
    ).toBe(200)
    for (const [method, path] of [
      ['GET', '/api/v1/tokens'],
      ['GET', '/api/v1/webhooks'],
      ['POST', '/api/v1/tokens'],
      ['GET', '/api/v1/flags'],
    ]) {
      const res = await api(srv, method, path, {
        token: null,
        headers: key,
        ...(method === 'POST' && { body: { name: 'x', project_id: 'default', permissions: ['*'] } }),
      })
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 401, code: 'UNAUTHORIZED' })
      expect(res.body.error).toContain('evaluation endpoints only')
    }
  })

  test('stream tickets reveal nothing about the token', async () => {
    const { ticket } = (await api(srv, 'POST', '/api/v1/stream/tickets', { token: reader })).body
    const hash = new Bun.CryptoHasher('sha256').update(reader).digest('hex')
    const decoded = Buffer.from(ticket.replace(/\./g, ''), 'base64url').toString('latin1')
    for (const secret of [hash, hash.slice(0, 16), reader, 'default']) {
      expect(ticket).not.toContain(secret)
      expect(decoded).not.toContain(secret)
    }
  })

  test('POST /usage is on the CORS surface, so a browser SDK can report cross-origin', async () => {
    const preflight = await fetch(`${srv.url}/api/v1/usage`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST')
    const now = new Date().toISOString()
    const res = await api(srv, 'POST', '/api/v1/usage', {
      token: reader,
      headers: { origin: 'https://app.example' },
      body: { counts: [{ key: 'ordinary', environment: '', variant: 'default', count: 1, from: now, to: now }] },
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
  })

  test('revoking a token cancels its pending schedules, audited', async () => {
    const writer = await api(srv, 'POST', '/api/v1/tokens', {
      token: admin,
      body: { name: 'scheduler', project_id: 'default', permissions: ['read:flags', 'write:flags'] },
    })
    const at = new Date(Date.now() + 3_600_000).toISOString()
    const mine = await api(srv, 'POST', '/api/v1/flags/ordinary/schedules', {
      token: writer.body.token,
      body: { at, change: { enabled: false } },
    })
    const other = await api(srv, 'POST', '/api/v1/flags/ordinary/schedules', { token: admin, body: { at, change: { enabled: false } } })
    expect([mine.status, other.status]).toEqual([201, 201])
    expect((await api(srv, 'DELETE', `/api/v1/tokens/${writer.body.meta.hash}`, { token: admin })).status).toBe(200)
    expect((await api(srv, 'GET', `/api/v1/schedules/${mine.body.schedule.id}`, { token: admin })).body.status).toBe('cancelled')
    expect((await api(srv, 'GET', `/api/v1/schedules/${other.body.schedule.id}`, { token: admin })).body.status).toBe('pending')
    const audit = await api(srv, 'GET', `/api/v1/audit?resource_type=schedule&resource_key=${mine.body.schedule.id}`, { token: admin })
    expect(audit.body.entries.map((e: { action: string; after: { status: string } }) => [e.action, e.after?.status])).toContainEqual([
      'update',
      'cancelled',
    ])
  })
})
