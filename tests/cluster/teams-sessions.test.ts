// Sessions and rights across two real server processes on one PostgreSQL database (change notices over
// LISTEN/NOTIFY, a reconcile far away): a session made on one works on the other, and sign-out, a role
// change and disabling a user on one take effect on the other as soon as the notice arrives.
import { describe, expect, test } from 'bun:test'
import type { TestServer } from '../helpers/server'
import { clusterFixture } from '../helpers/cluster'
import { requireServices } from '../helpers/requirements'
import { until } from '../helpers/until'
import { cookieOf, PASSWORD, sapi, setupOwner, signIn } from '../helpers/teams'

const ready = await requireServices({ postgres: true })

/** Polls until `check` holds (a change notice travels between processes), failing after 5 s. */
const eventually = (check: () => Promise<boolean>, what: string) => until(what, check, 5000, 20)

describe.skipIf(!ready)('sessions on two instances', () => {
  const cluster = clusterFixture({})

  test('both instances print the same setup code; a session made on one works on the other; sign-out ends it on both', async () => {
    const { a, b } = cluster
    expect(/^setup code: (\S+)$/m.exec(a.output())![1]).toBe(/^setup code: (\S+)$/m.exec(b.output())![1]!)
    const owner = await setupOwner(a)
    const cookie = await signIn(a, 'owner@example.com')
    expect((await sapi(b, 'GET', '/api/v1/me', { cookie })).status).toBe(200)
    expect((await sapi(a, 'POST', '/api/v1/auth/logout', { cookie })).status).toBe(200)
    await eventually(async () => (await sapi(b, 'GET', '/api/v1/me', { cookie })).status === 401, 'sign-out on A reaches B')
    expect((await sapi(b, 'GET', '/api/v1/me', { cookie: owner })).status).toBe(200)
  })

  test('a role change and disabling a user on one instance apply on the other', async () => {
    const { a, b } = cluster
    const owner = await signIn(a, 'owner@example.com')
    const inv = await sapi(a, 'POST', '/api/v1/invitations', {
      cookie: owner,
      body: { email: 'ed@example.com', projects: [{ project: 'default', role: 'editor' }] },
    })
    const accepted = await sapi(a, 'POST', '/api/v1/auth/invitations/accept', {
      body: { token: inv.body.token, name: 'Ed', password: PASSWORD },
    })
    const ed = cookieOf(accepted)
    const id = accepted.body.user.id
    const write = (srv: TestServer, key: string) =>
      sapi(srv, 'POST', '/api/v1/flags', { cookie: ed, project: 'default', body: { key, enabled: true } })
    expect((await write(b, 'ed-1')).status).toBe(201)
    expect(
      (await sapi(a, 'PUT', `/api/v1/project/members/${id}`, { cookie: owner, project: 'default', body: { role: 'viewer' } })).status,
    ).toBe(200)
    await eventually(async () => (await write(b, 'ed-2')).status === 403, 'the demotion on A reaches B')
    expect((await sapi(a, 'PATCH', `/api/v1/admin/users/${id}`, { cookie: owner, body: { disabled: true } })).status).toBe(200)
    await eventually(async () => (await sapi(b, 'GET', '/api/v1/me', { cookie: ed })).status === 401, 'disabling on A reaches B')
  })
})
