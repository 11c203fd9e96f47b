// ACCESS_LOG=1: one JSON line per request (time, method, route template, status, duration, caller kind and
// id, client address) on both evaluation paths (the fast paths' own answers and Elysia's), refusals
// included; a token, a cookie, a query value never appear in the log. Off by default.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { cookieOf, sapi, setupOwner } from '../helpers/teams'
import { until } from '../helpers/until'

let srv: TestServer
let reader: string
const SECRET_CONTEXT = 'context-secret-4711'
const SECRET_QUERY = 'query-secret-0815'
const UNKNOWN_TOKEN = 'ff_defa_NotAKnownTokenAtAll1'

interface Line {
  time: string
  level: string
  msg: string
  method: string
  route: string
  status: number
  duration_ms: number
  caller: string
  caller_id: string | null
  client: string | null
}
const accessLines = (s: TestServer): Line[] =>
  s
    .output()
    .split('\n')
    .filter((l) => l.includes('"msg":"access"'))
    .map((l) => JSON.parse(l))
/** The access lines of `route` and `status` once there are `n` of them. */
const linesOf = (route: string, status: number, n = 1) =>
  until(`${n} access line(s) for ${route} ${status}`, () => {
    const found = accessLines(srv).filter((l) => l.route === route && l.status === status)
    return found.length >= n && found
  })

beforeAll(async () => {
  srv = await startServer({ env: { ACCESS_LOG: '1', TRUSTED_PROXIES: '127.0.0.1' } })
  reader = await createToken(srv, ['read:flags', 'read:configs'])
  await api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: { key: 'logged', enabled: true, value: true } })
})
afterAll(() => srv?.stop())

describe('ACCESS_LOG', () => {
  test('the fast evaluation paths log their answers: route template, status, caller, client', async () => {
    const res = await fetch(`${srv.url}/api/v1/flags/logged?context=${encodeURIComponent(JSON.stringify({ user_id: SECRET_CONTEXT }))}`, {
      headers: { Authorization: `Bearer ${reader}`, 'X-Forwarded-For': '198.51.100.4' },
    })
    expect(res.status).toBe(200)
    const [line] = await linesOf('/api/v1/flags/:key', 200)
    expect(line).toMatchObject({ level: 'info', method: 'GET', caller: 'token', caller_id: reader.slice(0, 12), client: '198.51.100.4' })
    expect(Date.parse(line!.time)).toBeGreaterThan(Date.now() - 60_000)
    expect(line!.duration_ms).toBeGreaterThanOrEqual(0)
    const ofrep = await fetch(`${srv.url}/ofrep/v1/evaluate/flags/logged`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${reader}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ context: { targetingKey: SECRET_CONTEXT } }),
    })
    expect(ofrep.status).toBe(200)
    expect((await linesOf('/ofrep/v1/evaluate/flags/:key', 200))[0]).toMatchObject({ method: 'POST', caller: 'token', client: '127.0.0.1' })
    // A body the fast path reads but leaves to Elysia (malformed JSON): answered there, still with its client.
    const malformed = await fetch(`${srv.url}/ofrep/v1/evaluate/flags/logged`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${reader}`, 'Content-Type': 'application/json', 'X-Forwarded-For': '198.51.100.5' },
      body: '{"context":',
    })
    expect(malformed.status).toBe(400)
    expect((await linesOf('/ofrep/v1/evaluate/flags/:key', 400))[0]).toMatchObject({
      method: 'POST',
      caller: 'token',
      client: '198.51.100.5',
    })
  })

  test("Elysia's answers are logged, refusals included, one line per request", async () => {
    for (let i = 0; i < 3; i++) await fetch(`${srv.url}/health`)
    expect(await linesOf('/health', 200, 3)).toHaveLength(3)
    const refused = await fetch(`${srv.url}/api/v1/flags?q=${SECRET_QUERY}`, { headers: { Authorization: `Bearer ${UNKNOWN_TOKEN}` } })
    expect(refused.status).toBe(401)
    expect((await linesOf('/api/v1/flags', 401))[0]).toMatchObject({ method: 'GET', caller: 'none', caller_id: null })
    const listed = await fetch(`${srv.url}/api/v1/flags?q=${SECRET_QUERY}`, { headers: { Authorization: `Bearer ${srv.adminToken}` } })
    expect(listed.status).toBe(200)
    expect((await linesOf('/api/v1/flags', 200))[0]).toMatchObject({ caller: 'token', caller_id: srv.adminToken.slice(0, 12) })
  })

  test('a person (session cookie) is logged by user id', async () => {
    const owner = await setupOwner(srv)
    const me = await sapi(srv, 'GET', '/api/v1/me', { cookie: owner })
    expect(me.status).toBe(200)
    const [line] = await linesOf('/api/v1/me', 200)
    expect(line).toMatchObject({ caller: 'session', caller_id: me.body.user.id })
    // Signing in again: the cookie it sets and the password it sent stay out of the log as well.
    const again = await sapi(srv, 'POST', '/api/v1/auth/login', {
      body: { email: 'owner@example.com', password: 'correct horse battery staple' },
    })
    expect(again.status).toBe(200)
    await linesOf('/api/v1/auth/login', 200)
    const log = srv.output()
    for (const secret of [owner.split('=')[1]!, cookieOf(again).split('=')[1]!, 'correct horse battery staple'])
      expect(log).not.toContain(secret)
  })

  test('no token, cookie or query value reaches the log', () => {
    const log = srv.output()
    for (const secret of [srv.adminToken, reader, UNKNOWN_TOKEN, SECRET_CONTEXT, SECRET_QUERY]) expect(log).not.toContain(secret)
    for (const line of accessLines(srv)) expect(line.route).not.toContain('?')
  })

  test('off by default', async () => {
    const quiet = await startServer()
    try {
      expect((await api(quiet, 'GET', '/api/v1/flags', { token: quiet.adminToken })).status).toBe(200)
      await fetch(`${quiet.url}/health`)
      await Bun.sleep(200)
      expect(quiet.output()).not.toContain('"msg":"access"')
    } finally {
      await quiet.stop()
    }
  })
})
