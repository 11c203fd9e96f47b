// Guessing oracles behind a session and password-reset links (teams.md §3, §6): a wrong current password on
// PUT /me/password and a wrong code on DELETE /me/totp count as sign-in failures (after 5, 429
// LOGIN_THROTTLED with Retry-After, the right answer included); only the newest password-reset link of a
// user works; a password of only whitespace is refused wherever one is set.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { cookieOf, PASSWORD, sapi, setupOwner } from '../helpers/teams'
import { codeAt, enrolTotp } from '../helpers/two-factor'

const OTHER = 'another correct horse staple'

describe('password and two-factor guards', () => {
  let srv: TestServer
  let owner: string
  beforeAll(async () => {
    srv = await startServer()
    owner = await setupOwner(srv)
  })
  afterAll(() => srv.stop())

  /** A new user (through an invitation); answers their id and cookie. */
  async function person(email: string): Promise<{ id: string; cookie: string }> {
    const inv = await sapi(srv, 'POST', '/api/v1/invitations', {
      cookie: owner,
      body: { email, projects: [{ project: 'default', role: 'viewer' }] },
    })
    expect(inv.status).toBe(201)
    const acc = await sapi(srv, 'POST', '/api/v1/auth/invitations/accept', {
      body: { token: inv.body.token, name: 'Someone', password: PASSWORD },
    })
    expect(acc.status).toBe(201)
    return { id: acc.body.user.id, cookie: cookieOf(acc) }
  }

  test('PUT /me/password: five wrong current passwords, then 429 even with the right one; sign-in is throttled too', async () => {
    const { cookie } = await person('pw@example.com')
    const change = (current: string) =>
      sapi(srv, 'PUT', '/api/v1/me/password', { cookie, body: { current_password: current, new_password: OTHER } })
    for (let i = 0; i < 5; i++) expect((await change(`wrong guess ${i} xxxxx`)).status).toBe(403)
    const blocked = await change(PASSWORD)
    expect(blocked.status).toBe(429)
    expect(blocked.body.code).toBe('LOGIN_THROTTLED')
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    // Nothing changed: the old password is still the password once the wait is over.
    const login = await sapi(srv, 'POST', '/api/v1/auth/login', { body: { email: 'pw@example.com', password: PASSWORD } })
    expect(login.status).toBe(429)
  })

  test('DELETE /me/totp: five wrong codes, then 429 even with a right code; two-factor stays on', async () => {
    const { cookie } = await person('tf@example.com')
    const { secret } = await enrolTotp(srv, cookie)
    const off = (code: string) => sapi(srv, 'DELETE', '/api/v1/me/totp', { cookie, body: { code } })
    const right = codeAt(secret, Date.now() + 30_000)
    const wrong = right === '000000' ? '111111' : '000000'
    for (let i = 0; i < 5; i++) expect((await off(wrong)).status).toBe(403)
    const blocked = await off(right)
    expect(blocked.status).toBe(429)
    expect(blocked.body.code).toBe('LOGIN_THROTTLED')
    expect((await sapi(srv, 'GET', '/api/v1/me', { cookie })).body.user.has_totp).toBe(true)
  })

  test('failures sent at the same moment each count (no lost count, no error): six at once, then 429', async () => {
    const { cookie } = await person('burst@example.com')
    const { secret } = await enrolTotp(srv, cookie)
    const right = codeAt(secret, Date.now() + 30_000)
    const wrong = right === '000000' ? '111111' : '000000'
    const burst = await Promise.all(
      Array.from({ length: 6 }, () => sapi(srv, 'DELETE', '/api/v1/me/totp', { cookie, body: { code: wrong } })),
    )
    // Each is refused as a wrong code, or (one that arrived after the fifth failure was stored) throttled.
    const counted = burst.filter((r) => r.status === 403).length
    expect(burst.filter((r) => r.status !== 403 && r.status !== 429)).toEqual([])
    expect(counted).toBeGreaterThanOrEqual(5)
    const next = await sapi(srv, 'DELETE', '/api/v1/me/totp', { cookie, body: { code: right } })
    expect(next.status).toBe(429)
    // Every counted failure counts: the wait is 1 s after the fifth, doubled by each further one.
    expect(Number(next.headers.get('retry-after'))).toBe(2 ** (counted - 5))
  })

  test('a newer password-reset link ends the older one', async () => {
    const { id } = await person('reset@example.com')
    const link = async () => {
      const res = await sapi(srv, 'POST', `/api/v1/admin/users/${id}/password-reset`, { cookie: owner })
      expect(res.status).toBe(201)
      return (res.body.url as string).split('/reset/')[1]!
    }
    const older = await link()
    const newer = await link()
    const use = (token: string) => sapi(srv, 'POST', '/api/v1/auth/password-reset', { body: { token, password: OTHER } })
    const gone = await use(older)
    expect(gone.status).toBe(410)
    expect(gone.body.code).toBe('RESET_GONE')
    expect((await use(newer)).status).toBe(200)
    expect((await sapi(srv, 'POST', '/api/v1/auth/login', { body: { email: 'reset@example.com', password: OTHER } })).status).toBe(200)
  })

  test('a password of only whitespace is refused (400) on change, reset and invitation accept', async () => {
    const blank = ' '.repeat(16)
    const { id, cookie } = await person('blank@example.com')
    const change = await sapi(srv, 'PUT', '/api/v1/me/password', { cookie, body: { current_password: PASSWORD, new_password: blank } })
    expect(change.status).toBe(400)
    expect(change.body.code).toBe('VALIDATION_ERROR')
    const reset = await sapi(srv, 'POST', `/api/v1/admin/users/${id}/password-reset`, { cookie: owner })
    const token = (reset.body.url as string).split('/reset/')[1]!
    expect((await sapi(srv, 'POST', '/api/v1/auth/password-reset', { body: { token, password: '\t'.repeat(14) } })).status).toBe(400)
    const inv = await sapi(srv, 'POST', '/api/v1/invitations', { cookie: owner, body: { email: 'blank2@example.com' } })
    expect(
      (await sapi(srv, 'POST', '/api/v1/auth/invitations/accept', { body: { token: inv.body.token, name: 'B', password: blank } })).status,
    ).toBe(400)
    expect((await sapi(srv, 'POST', '/api/v1/auth/login', { body: { email: 'blank@example.com', password: PASSWORD } })).status).toBe(200)
  })
})
