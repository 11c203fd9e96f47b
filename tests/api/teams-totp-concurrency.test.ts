// "A code is accepted once" (teams.md §3) under concurrency: five sign-ins sent at the same moment with one
// TOTP code, or one recovery code, open one session; the others are refused. The store claims the code
// (a conditional update inside the sign-in's transaction), so this holds on SQLite and PostgreSQL alike
// (and across instances: tests/cluster/teams-totp.test.ts).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { PASSWORD, sapi, setupOwner } from '../helpers/teams'
import { codeAt, concurrentSignIns, enrolTotp } from '../helpers/two-factor'

const OWNER = 'owner@example.com'

describe('a second factor is spent once under concurrency', () => {
  let srv: TestServer
  let cookie: string
  let secret: string
  let recovery: string[]
  beforeAll(async () => {
    srv = await startServer()
    cookie = await setupOwner(srv, OWNER)
    ;({ secret, recovery } = await enrolTotp(srv, cookie))
  })
  afterAll(() => srv.stop())

  const sessionCount = async () => (await sapi(srv, 'GET', '/api/v1/me/sessions', { cookie })).body.sessions.length

  test('five concurrent sign-ins with one TOTP code: one session, four refused', async () => {
    const before = await sessionCount()
    const statuses = await concurrentSignIns([srv], OWNER, codeAt(secret, Date.now() + 30_000))
    expect(statuses.sort()).toEqual([200, 401, 401, 401, 401])
    expect(await sessionCount()).toBe(before + 1)
    // A sign-in with another factor clears the four failures (sign-in throttling, teams.md §3).
    expect((await sapi(srv, 'POST', '/api/v1/auth/login', { body: { email: OWNER, password: PASSWORD, totp: recovery[9] } })).status).toBe(
      200,
    )
  })

  test('five concurrent sign-ins with one recovery code: one session, four refused; the other codes still work', async () => {
    const before = await sessionCount()
    const statuses = await concurrentSignIns([srv], OWNER, recovery[0]!)
    expect(statuses.sort()).toEqual([200, 401, 401, 401, 401])
    expect(await sessionCount()).toBe(before + 1)
    expect((await sapi(srv, 'POST', '/api/v1/auth/login', { body: { email: OWNER, password: PASSWORD, totp: recovery[8] } })).status).toBe(
      200,
    )
    // Two different codes at once both work (a spent code does not block its neighbours).
    const both = await Promise.all(
      [recovery[1], recovery[2]].map((c) =>
        sapi(srv, 'POST', '/api/v1/auth/login', { body: { email: OWNER, password: PASSWORD, totp: c } }),
      ),
    )
    expect(both.map((r) => r.status)).toEqual([200, 200])
  })
})
