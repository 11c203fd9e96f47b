// Two-factor sign-in (TOTP, RFC 6238) through HTTP: enrol, sign in with a code, replay refused, recovery
// codes once each, turning it off; the secret never appears in lists or the audit. Codes are made with the
// same `otpauth` library an authenticator app's algorithm follows.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import * as OTPAuth from 'otpauth'
import { startServer, type TestServer } from '../helpers/server'
import { PASSWORD, sapi, setupOwner } from '../helpers/teams'

const OWNER = 'owner@example.com'
const codeAt = (secret: string, ms: number) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: ms })

describe('two-factor sign-in', () => {
  let srv: TestServer
  let cookie: string
  let secret: string
  let recovery: string[]
  beforeAll(async () => {
    srv = await startServer()
    cookie = await setupOwner(srv, OWNER)
  })
  afterAll(() => srv.stop())

  const login = (totp?: string) =>
    sapi(srv, 'POST', '/api/v1/auth/login', { body: { email: OWNER, password: PASSWORD, ...(totp !== undefined && { totp }) } })

  test('enrol: a secret and otpauth URL, confirmed by a code, answering 10 recovery codes', async () => {
    const begin = await sapi(srv, 'POST', '/api/v1/me/totp', { cookie })
    expect(begin.status).toBe(200)
    secret = begin.body.secret
    expect(secret).toMatch(/^[A-Z2-7]{32}$/)
    expect(begin.body.otpauth_url).toStartWith('otpauth://totp/')
    const wrong = await sapi(srv, 'PUT', '/api/v1/me/totp', {
      cookie,
      body: { code: '000000' === codeAt(secret, Date.now()) ? '111111' : '000000' },
    })
    expect(wrong.status).toBe(403)
    const confirm = await sapi(srv, 'PUT', '/api/v1/me/totp', { cookie, body: { code: codeAt(secret, Date.now()) } })
    expect(confirm.status).toBe(200)
    recovery = confirm.body.recovery_codes
    expect(recovery).toHaveLength(10)
    expect(new Set(recovery).size).toBe(10)
    expect((await sapi(srv, 'GET', '/api/v1/me', { cookie })).body.user.has_totp).toBe(true)
  })

  test('sign-in needs the code: 401 TOTP_REQUIRED without it; a code is accepted once', async () => {
    const without = await login()
    expect(without.status).toBe(401)
    expect(without.body.code).toBe('TOTP_REQUIRED')
    // The confirming code's step is used; the next step's code signs in, once.
    const next = codeAt(secret, Date.now() + 30_000)
    expect((await login(next)).status).toBe(200)
    const replay = await login(next)
    expect(replay.status).toBe(401)
    expect(replay.body.code).toBe('INVALID_CREDENTIALS')
    expect((await login('123')).status).toBe(401)
  })

  test('a recovery code signs in once', async () => {
    expect((await login(recovery[0])).status).toBe(200)
    expect((await login(recovery[0])).status).toBe(401)
  })

  test('secrets and codes never reach the audit, lists or the log', async () => {
    const audit = await sapi(srv, 'GET', '/api/v1/admin/audit?limit=200', { cookie })
    const texts = [
      audit.text,
      (await sapi(srv, 'GET', '/api/v1/admin/users', { cookie })).text,
      (await sapi(srv, 'GET', '/api/v1/me', { cookie })).text,
      srv.output(),
    ]
    for (const text of texts) {
      expect(text).not.toContain(secret)
      for (const r of recovery) expect(text).not.toContain(r)
      expect(text).not.toContain(PASSWORD)
    }
  })

  test('turning it off needs a code', async () => {
    expect((await sapi(srv, 'DELETE', '/api/v1/me/totp', { cookie, body: { code: 'nope-nope' } })).status).toBe(403)
    expect((await sapi(srv, 'DELETE', '/api/v1/me/totp', { cookie, body: { code: recovery[1] } })).status).toBe(200)
    expect((await login()).status).toBe(200)
  })
})
