// TRUSTED_PROXIES through HTTP: behind a trusted proxy the client is the right-most X-Forwarded-For hop that
// is not a trusted proxy, and that address is what sessions, the instance audit log and the per-address
// sign-in limit see (two clients behind one proxy are throttled apart); from a peer that is not a trusted
// proxy the header is ignored, so spoofing it neither changes the recorded address nor escapes the limit.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { cookieOf, sapi, setupOwner } from '../helpers/teams'

const OWNER = 'owner@example.com'
const PASSWORD = 'correct horse battery staple'
const login = (srv: TestServer, email: string, password: string, forwardedFor?: string) =>
  sapi(srv, 'POST', '/api/v1/auth/login', {
    body: { email, password },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  })

/** Failed sign-ins from `forwardedFor` (a function of the attempt) until the first 429; the statuses. */
async function failUntilThrottled(srv: TestServer, forwardedFor: (i: number) => string): Promise<number[]> {
  const statuses: number[] = []
  for (let i = 0; i < 45 && !statuses.includes(429); i++)
    statuses.push((await login(srv, `u${i}@example.com`, 'wrong password!!', forwardedFor(i))).status)
  return statuses
}

async function lastSignIn(srv: TestServer, cookie: string) {
  const entries = (await sapi(srv, 'GET', '/api/v1/admin/audit?action=sign_in', { cookie })).body.entries
  return entries[0]
}

describe('behind a trusted proxy (the loopback is trusted)', () => {
  let srv: TestServer
  let owner: string
  beforeAll(async () => {
    srv = await startServer({ env: { TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1, ::1' } })
    owner = await setupOwner(srv, OWNER)
  })
  afterAll(() => srv.stop())

  test('the right-most untrusted hop is the client: in the session and the audit entry', async () => {
    // 203.0.113.50 is what the client claimed; 198.51.100.23 connected to the first proxy (10.1.2.3), which
    // forwarded to the one in front of the service.
    const res = await login(srv, OWNER, PASSWORD, '203.0.113.50, 198.51.100.23, 10.1.2.3')
    expect(res.status).toBe(200)
    const cookie = cookieOf(res)
    const sessions = (await sapi(srv, 'GET', '/api/v1/me/sessions', { cookie })).body.sessions
    expect(sessions.find((s: { current: boolean }) => s.current).ip).toBe('198.51.100.23')
    expect((await lastSignIn(srv, owner)).ip).toBe('198.51.100.23')
  })

  test('IPv6 hops are read too', async () => {
    const res = await login(srv, OWNER, PASSWORD, '2001:db8::7')
    expect(res.status).toBe(200)
    expect((await lastSignIn(srv, owner)).ip).toBe('2001:db8::7')
  })

  test('two clients behind the proxy are throttled apart', async () => {
    const statuses = await failUntilThrottled(srv, () => '192.0.2.1')
    // The limiter's window slides, so on a slow machine a few more may pass; never fewer than 30.
    expect(statuses.indexOf(429)).toBeGreaterThanOrEqual(30)
    expect((await login(srv, 'u0@example.com', 'wrong password!!', '192.0.2.1')).status).toBe(429)
    // Another client of the same proxy is not locked out.
    expect((await login(srv, 'u0@example.com', 'wrong password!!', '192.0.2.2')).status).toBe(401)
    expect((await login(srv, OWNER, PASSWORD, '192.0.2.2')).status).toBe(200)
  }, 120_000) // about 33 argon2id verifications
})

describe('from a peer that is not a trusted proxy', () => {
  let srv: TestServer
  let owner: string
  beforeAll(async () => {
    srv = await startServer({ env: { TRUSTED_PROXIES: '10.0.0.0/8,fd00::/8' } })
    owner = await setupOwner(srv, OWNER)
  })
  afterAll(() => srv.stop())

  test('a spoofed X-Forwarded-For is ignored: the connection address is recorded', async () => {
    const res = await login(srv, OWNER, PASSWORD, '198.51.100.99')
    expect(res.status).toBe(200)
    const sessions = (await sapi(srv, 'GET', '/api/v1/me/sessions', { cookie: cookieOf(res) })).body.sessions
    expect(sessions.find((s: { current: boolean }) => s.current).ip).toBe('127.0.0.1')
    expect((await lastSignIn(srv, owner)).ip).toBe('127.0.0.1')
  })

  test('and does not escape the per-address limit', async () => {
    // Each attempt claims another address; were any believed, no address would reach its 30.
    const statuses = await failUntilThrottled(srv, (i) => `192.0.2.${i + 1}`)
    expect(statuses).toContain(429)
    expect(statuses.indexOf(429)).toBeLessThanOrEqual(32)
  }, 120_000)
})
