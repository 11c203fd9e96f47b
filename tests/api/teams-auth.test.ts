// Teams, sign-in and sessions (teams.md §3, §8) through HTTP against a real server: setup code, password
// sign-in, cookies, sign-out, sessions, password change, CSRF rules, brute force and enumeration.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, startServer, type TestServer } from '../helpers/server'
import { cookieOf, PASSWORD, sapi, setupCodeOf, setupOwner, signIn } from '../helpers/teams'
import { openSse, streamStatus } from '../helpers/sse'

const OWNER = 'owner@example.com'

describe('first-run setup and sign-in', () => {
  let srv: TestServer
  let owner: string
  beforeAll(async () => {
    srv = await startServer()
  })
  afterAll(() => srv.stop())

  test('a fresh service prints a setup code and says setup is needed; tokens work as before', async () => {
    expect(setupCodeOf(srv)).toMatch(/^\S{16,}$/)
    expect(srv.output()).toMatch(/open http:\/\/127\.0\.0\.1:\d+\/setup/)
    const methods = await api(srv, 'GET', '/api/v1/auth/methods')
    expect(methods.status).toBe(200)
    expect(methods.body).toEqual({ setup_needed: true, password: true, oidc: [] })
    expect((await api(srv, 'GET', '/api/v1/me', { token: srv.adminToken })).body).toMatchObject({
      kind: 'token',
      project_id: 'default',
      permissions: ['*'],
    })
  })

  test('a wrong setup code: 403 INVALID_SETUP_CODE, nobody created', async () => {
    const res = await sapi(srv, 'POST', '/api/v1/auth/setup', {
      body: { setup_code: 'x'.repeat(24), email: OWNER, name: 'Owner', password: PASSWORD },
    })
    expect(res.status).toBe(403)
    expect(res.body.code).toBe('INVALID_SETUP_CODE')
    expect((await api(srv, 'GET', '/api/v1/auth/methods')).body.setup_needed).toBe(true)
  })

  test('setup without the CSRF header is refused', async () => {
    const res = await api(srv, 'POST', '/api/v1/auth/setup', {
      body: { setup_code: setupCodeOf(srv), email: OWNER, name: 'Owner', password: PASSWORD },
    })
    expect(res.status).toBe(403)
    expect(res.body.code).toBe('CSRF_REJECTED')
  })

  test('a password that is too short or is the email is refused', async () => {
    for (const password of ['short', OWNER]) {
      const res = await sapi(srv, 'POST', '/api/v1/auth/setup', {
        body: { setup_code: setupCodeOf(srv), email: OWNER, name: 'Owner', password },
      })
      expect(res.status).toBe(400)
    }
  })

  test('setup creates the first owner, signs them in with a strict HttpOnly cookie, then answers 409', async () => {
    const res = await sapi(srv, 'POST', '/api/v1/auth/setup', {
      body: { setup_code: setupCodeOf(srv), email: 'Owner@Example.com', name: 'Owner', password: PASSWORD },
    })
    expect(res.status).toBe(201)
    expect(res.body.user).toMatchObject({ email: OWNER, instance_role: 'owner', has_password: true, has_totp: false, disabled: false })
    expect(JSON.stringify(res.body)).not.toContain('hash')
    const set = res.headers.get('set-cookie')!
    expect(set).toMatch(/^flagship_session=[A-Za-z0-9_-]{43}; /)
    expect(set).toContain('HttpOnly')
    expect(set).toContain('SameSite=Strict')
    expect(set).toContain('Path=/')
    expect(set).not.toContain('Secure')
    owner = cookieOf(res)
    const again = await sapi(srv, 'POST', '/api/v1/auth/setup', {
      body: { setup_code: setupCodeOf(srv), email: 'x@example.com', name: 'X', password: PASSWORD },
    })
    expect(again.status).toBe(409)
    expect((await api(srv, 'GET', '/api/v1/auth/methods')).body.setup_needed).toBe(false)
  })

  test('GET /me for a session: the user and their projects; project routes need Flagship-Project', async () => {
    const me = await sapi(srv, 'GET', '/api/v1/me', { cookie: owner })
    expect(me.status).toBe(200)
    expect(me.body).toMatchObject({
      kind: 'user',
      user: { email: OWNER, instance_role: 'owner' },
      projects: [{ id: 'default', slug: 'default', role: 'admin' }],
    })
    const scoped = await sapi(srv, 'GET', '/api/v1/me', { cookie: owner, project: 'default' })
    expect(scoped.body).toMatchObject({ project: { id: 'default' }, permissions: ['*'] })
    const without = await sapi(srv, 'GET', '/api/v1/flags', { cookie: owner })
    expect(without.status).toBe(400)
    expect(without.body.code).toBe('PROJECT_REQUIRED')
    expect((await sapi(srv, 'GET', '/api/v1/flags', { cookie: owner, project: 'default' })).status).toBe(200)
    const unknown = await sapi(srv, 'GET', '/api/v1/flags', { cookie: owner, project: 'nope' })
    expect(unknown.status).toBe(404)
  })

  test('a session writes through the one change path; the audit names the person', async () => {
    const res = await sapi(srv, 'POST', '/api/v1/flags', { cookie: owner, project: 'default', body: { key: 'by-owner', enabled: true } })
    expect(res.status).toBe(201)
  })

  test('a token naming another project in Flagship-Project: 403', async () => {
    const res = await api(srv, 'GET', '/api/v1/flags', { token: srv.adminToken, headers: { 'flagship-project': 'other' } })
    expect(res.status).toBe(403)
    expect((await api(srv, 'GET', '/api/v1/flags', { token: srv.adminToken, headers: { 'flagship-project': 'default' } })).status).toBe(200)
  })

  test('wrong email and wrong password: the same 401, in about the same time', async () => {
    const timed = async (email: string) => {
      const started = performance.now()
      const res = await sapi(srv, 'POST', '/api/v1/auth/login', { body: { email, password: 'not the password at all' } })
      return { res, ms: performance.now() - started }
    }
    const known: number[] = []
    const unknown: number[] = []
    for (let i = 0; i < 4; i++) {
      const a = await timed(OWNER)
      const b = await timed(`nobody-${i}@example.com`)
      for (const r of [a.res, b.res]) {
        expect(r.status).toBe(401)
        expect(r.body.code).toBe('INVALID_CREDENTIALS')
      }
      expect(a.res.text.replace(/\s/g, '')).toBe(b.res.text.replace(/\s/g, ''))
      known.push(a.ms)
      unknown.push(b.ms)
    }
    const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
    // Both run one argon2id verification; without the dummy hash an unknown email answers many times faster.
    expect(median(unknown)).toBeGreaterThan(median(known) / 3)
    // A success resets the account's failure count.
    await signIn(srv, OWNER)
  })

  test('a planted session value is never adopted; a tampered cookie is refused', async () => {
    const planted = `flagship_session=${'A'.repeat(43)}`
    expect((await sapi(srv, 'GET', '/api/v1/me', { cookie: planted })).status).toBe(401)
    const res = await sapi(srv, 'POST', '/api/v1/auth/login', { cookie: planted, body: { email: OWNER, password: PASSWORD } })
    expect(res.status).toBe(200)
    const fresh = cookieOf(res)
    expect(fresh).not.toBe(planted)
    expect((await sapi(srv, 'GET', '/api/v1/me', { cookie: planted })).status).toBe(401)
    expect((await sapi(srv, 'GET', '/api/v1/me', { cookie: fresh })).status).toBe(200)
    const tampered = fresh.slice(0, -1) + (fresh.endsWith('A') ? 'B' : 'A')
    expect((await sapi(srv, 'GET', '/api/v1/me', { cookie: tampered })).status).toBe(401)
    expect((await sapi(srv, 'GET', '/api/v1/me', { cookie: `${fresh}x` })).status).toBe(401)
    expect((await sapi(srv, 'GET', '/api/v1/me', { cookie: 'flagship_session={"$ne":null}' })).status).toBe(401)
  })

  test('sign-out ends the session server-side: the same cookie is refused afterwards', async () => {
    const cookie = await signIn(srv, OWNER)
    const out = await sapi(srv, 'POST', '/api/v1/auth/logout', { cookie })
    expect(out.status).toBe(200)
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0')
    const reuse = await sapi(srv, 'GET', '/api/v1/me', { cookie })
    expect(reuse.status).toBe(401)
  })

  test('CSRF: cookie writes need X-Flagship-Request: 1 and must not be cross-site; nothing changes', async () => {
    const body = { key: 'csrf-flag', enabled: true }
    const attempts: [string, Record<string, string>, string?][] = [
      ['no header', {}],
      ['foreign Origin', { 'x-flagship-request': '1', origin: 'https://evil.example' }],
      ['Sec-Fetch-Site cross-site', { 'x-flagship-request': '1', 'sec-fetch-site': 'cross-site' }],
      ['Sec-Fetch-Site same-site', { 'x-flagship-request': '1', 'sec-fetch-site': 'same-site' }],
      ['text/plain form body', { 'content-type': 'text/plain' }, JSON.stringify(body)],
    ]
    for (const [why, headers, raw] of attempts) {
      const res = await api(srv, 'POST', '/api/v1/flags', {
        headers: { cookie: owner, 'flagship-project': 'default', ...headers },
        ...(raw ? { rawBody: raw } : { body }),
      })
      expect(res.status, why).toBe(403)
      expect(res.body.code, why).toBe('CSRF_REJECTED')
      expect(res.headers.get('access-control-allow-origin'), why).toBeNull()
    }
    // Same-origin requests from the console go through; bearer-token requests need none of this.
    const own = await api(srv, 'POST', '/api/v1/flags', {
      headers: {
        cookie: owner,
        'flagship-project': 'default',
        'x-flagship-request': '1',
        origin: srv.url,
        'sec-fetch-site': 'same-origin',
      },
      body: { key: 'same-origin', enabled: true },
    })
    expect(own.status).toBe(201)
    expect((await api(srv, 'GET', '/api/v1/flags/csrf-flag/definition', { token: srv.adminToken })).status).toBe(404)
    expect(
      (
        await api(srv, 'POST', '/api/v1/flags', {
          token: srv.adminToken,
          headers: { origin: 'https://evil.example' },
          body: { key: 'by-token', enabled: true },
        })
      ).status,
    ).toBe(201)
    // Login is checked with or without a cookie.
    const login = await api(srv, 'POST', '/api/v1/auth/login', { body: { email: OWNER, password: PASSWORD } })
    expect(login.status).toBe(403)
    expect(login.body.code).toBe('CSRF_REJECTED')
  })

  test('sessions are listed and revocable; a password change ends the other sessions', async () => {
    const a = await signIn(srv, OWNER)
    const b = await signIn(srv, OWNER)
    const list = await sapi(srv, 'GET', '/api/v1/me/sessions', { cookie: a })
    expect(list.status).toBe(200)
    const current = list.body.sessions.filter((s: { current: boolean }) => s.current)
    expect(current).toHaveLength(1)
    expect(list.body.sessions.length).toBeGreaterThanOrEqual(2)
    expect(JSON.stringify(list.body)).not.toMatch(/hash|flagship_session/)
    for (const s of list.body.sessions)
      expect(Object.keys(s).sort()).toEqual(['created_at', 'current', 'id', 'ip', 'last_seen_at', 'user_agent'])
    // Revoke b from a.
    const bId = (await sapi(srv, 'GET', '/api/v1/me/sessions', { cookie: b })).body.sessions.find((s: { current: boolean }) => s.current).id
    expect((await sapi(srv, 'DELETE', `/api/v1/me/sessions/${bId}`, { cookie: a })).status).toBe(200)
    expect((await sapi(srv, 'GET', '/api/v1/me', { cookie: b })).status).toBe(401)
    expect((await sapi(srv, 'DELETE', '/api/v1/me/sessions/not-mine', { cookie: a })).status).toBe(404)
    // Password change.
    const c = await signIn(srv, OWNER)
    const wrong = await sapi(srv, 'PUT', '/api/v1/me/password', {
      cookie: a,
      body: { current_password: 'wrong password here', new_password: 'another long password' },
    })
    expect(wrong.status).toBe(403)
    expect(wrong.body.code).toBe('INVALID_CURRENT_PASSWORD')
    const ok = await sapi(srv, 'PUT', '/api/v1/me/password', {
      cookie: a,
      body: { current_password: PASSWORD, new_password: 'another long password' },
    })
    expect(ok.status).toBe(200)
    expect((await sapi(srv, 'GET', '/api/v1/me', { cookie: c })).status).toBe(401)
    expect((await sapi(srv, 'GET', '/api/v1/me', { cookie: owner })).status).toBe(401)
    expect((await sapi(srv, 'GET', '/api/v1/me', { cookie: a })).status).toBe(200)
    await sapi(srv, 'PUT', '/api/v1/me/password', {
      cookie: a,
      body: { current_password: 'another long password', new_password: PASSWORD },
    })
    owner = a
  })

  test("the console's change stream: a ticket made for the session, opened with the cookie; sign-out closes it", async () => {
    const cookie = await signIn(srv, OWNER)
    const ticket = await sapi(srv, 'POST', '/api/v1/stream/tickets', { cookie, project: 'default' })
    expect(ticket.status).toBe(200)
    const url = `${srv.url}/api/v1/stream?ticket=${encodeURIComponent(ticket.body.ticket)}`
    // Without the session's cookie the ticket opens nothing.
    expect((await streamStatus(url)).status).toBe(401)
    expect((await streamStatus(url, { cookie: owner })).status).toBe(401)
    const stream = await openSse(url, { cookie })
    expect(stream.status).toBe(200)
    expect((await stream.next((e) => e.event === 'ready')).data).toHaveProperty('version')
    await sapi(srv, 'POST', '/api/v1/flags', { cookie: owner, project: 'default', body: { key: 'streamed', enabled: true } })
    expect((await stream.next((e) => e.event === 'change')).data).toMatchObject({ key: 'streamed' })
    await sapi(srv, 'POST', '/api/v1/auth/logout', { cookie })
    await stream.ended
    expect(stream.isEnded()).toBe(true)
  })

  test('session-only routes refuse tokens', async () => {
    const res = await api(srv, 'GET', '/api/v1/me/sessions', { token: srv.adminToken })
    expect(res.status).toBe(403)
  })
})

describe('brute force', () => {
  let srv: TestServer
  beforeAll(async () => {
    srv = await startServer()
    await setupOwner(srv, OWNER)
  })
  afterAll(() => srv.stop())

  const login = (email: string, password: string) => sapi(srv, 'POST', '/api/v1/auth/login', { body: { email, password } })

  for (const [label, email] of [
    ['an existing account', OWNER],
    ['an unknown email', 'ghost@example.com'],
  ] as const) {
    test(`${label}: after 5 failures the next attempt waits 1 s, then 2 s (exact Retry-After), right password included`, async () => {
      for (let i = 0; i < 5; i++) expect((await login(email, 'wrong password!!')).status).toBe(401)
      const blocked = await login(email, PASSWORD)
      expect(blocked.status).toBe(429)
      expect(blocked.body.code).toBe('LOGIN_THROTTLED')
      expect(blocked.headers.get('retry-after')).toBe('1')
      await Bun.sleep(1050)
      expect((await login(email, 'wrong password!!')).status).toBe(401)
      const again = await login(email, PASSWORD)
      expect(again.status).toBe(429)
      expect(again.headers.get('retry-after')).toBe('2')
    })
  }

  test('the refused attempts did not count: after the wait the right password signs in', async () => {
    await Bun.sleep(2050)
    expect((await login(OWNER, PASSWORD)).status).toBe(200)
  })
})

describe('per-address limit', () => {
  let srv: TestServer
  beforeAll(async () => {
    srv = await startServer()
  })
  afterAll(() => srv.stop())

  test('at most 30 sign-in attempts a minute from one address, whatever the email', async () => {
    // The limiter's window slides (two weighted one-minute buckets), so when a slow machine spreads these
    // over a bucket boundary a few more may pass; never fewer than 30.
    const statuses: number[] = []
    let last
    for (let i = 0; i < 45 && !statuses.includes(429); i++) {
      last = await sapi(srv, 'POST', '/api/v1/auth/login', { body: { email: `u${i}@example.com`, password: 'wrong password!!' } })
      statuses.push(last.status)
    }
    const first429 = statuses.indexOf(429)
    expect(first429).toBeGreaterThanOrEqual(30)
    expect(statuses.slice(0, first429).every((s) => s === 401)).toBe(true)
    expect(last!.body.code).toBe('LOGIN_THROTTLED')
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0)
  }, 120_000) // 32 argon2id verifications
})
