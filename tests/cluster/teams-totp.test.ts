// "A code is accepted once" across two instances on one PostgreSQL database: five sign-ins with one TOTP
// code or one recovery code, spread over both instances at the same moment, open one session.
import { describe, expect, test } from 'bun:test'
import { clusterFixture } from '../helpers/cluster'
import { requireServices } from '../helpers/requirements'
import { PASSWORD, sapi, setupOwner } from '../helpers/teams'
import { codeAt, concurrentSignIns, enrolTotp } from '../helpers/two-factor'

const ready = await requireServices({ postgres: true })
const OWNER = 'owner@example.com'

describe.skipIf(!ready)('a second factor is spent once across instances', () => {
  const cluster = clusterFixture({})

  test('one TOTP code, then one recovery code, sent five times at once to two instances: one session each', async () => {
    const { a, b } = cluster
    const cookie = await setupOwner(a, OWNER)
    const { secret, recovery } = await enrolTotp(a, cookie)
    const totp = await concurrentSignIns([a, b], OWNER, codeAt(secret, Date.now() + 30_000), 5)
    expect(totp.sort()).toEqual([200, 401, 401, 401, 401])
    // A sign-in with another recovery code clears those failures (sign-in throttling, teams.md §3).
    expect((await sapi(b, 'POST', '/api/v1/auth/login', { body: { email: OWNER, password: PASSWORD, totp: recovery[9] } })).status).toBe(
      200,
    )
    const rec = await concurrentSignIns([a, b], OWNER, recovery[0]!, 5)
    expect(rec.sort()).toEqual([200, 401, 401, 401, 401])
  })
})
