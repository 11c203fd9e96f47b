// GET /api/v1/admin/audit filters by kind (resource_type) and time (since, until) as well as action and
// person, and refuses a date that does not exist; a member entry of the project audit log carries the
// person's name and email (its key is their user id), so the console can name them.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { sapi, setupOwner, signIn } from '../helpers/teams'
import { runCli } from '../helpers/cli'
import { until } from '../helpers/until'

let srv: TestServer
let owner: string
const audit = async (query: string) => sapi(srv, 'GET', `/api/v1/admin/audit${query}`, { cookie: owner })

beforeAll(async () => {
  srv = await startServer({ env: { RECONCILE_INTERVAL_MS: '200' } })
  owner = await setupOwner(srv)
  await sapi(srv, 'POST', '/api/v1/auth/login', { body: { email: 'owner@example.com', password: 'wrong password!!' } })
  await signIn(srv, 'owner@example.com')
})
afterAll(() => srv?.stop())

describe('instance audit filters', () => {
  test('by kind', async () => {
    const sessions = (await audit('?resource_type=session')).body
    expect(sessions.total).toBeGreaterThanOrEqual(3) // setup's session, the failure, the sign-in
    expect(new Set(sessions.entries.map((e: { resource_type: string }) => e.resource_type))).toEqual(new Set(['session']))
    const users = (await audit('?resource_type=user')).body.entries as { action: string }[]
    expect(users.map((e) => e.action)).toContain('setup')
  })

  test('by time: since and until bound the entries; action and person combine with them', async () => {
    const all = (await audit('')).body.total as number
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString()
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString()
    expect((await audit(`?since=${hourAgo}&until=${inAnHour}`)).body.total).toBe(all)
    expect((await audit(`?since=${inAnHour}`)).body.total).toBe(0)
    expect((await audit(`?until=${hourAgo}`)).body.total).toBe(0)
    const failed = (await audit(`?action=sign_in_failed&actor=OWNER@example.com&since=${hourAgo}`)).body
    expect(failed.total).toBe(1)
    expect(failed.entries[0]).toMatchObject({ action: 'sign_in_failed', resource_type: 'session' })
  })

  test('a date that does not exist is refused with a 400 naming the field', async () => {
    const res = await audit('?since=2026-02-30T00:00:00Z')
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { issues: [{ path: 'since' }] } })
  })
})

test('a member entry of the project audit log names the person (name and email)', async () => {
  expect(runCli(srv, 'users', 'create', '--email', 'ann@example.com', '--name', 'Ann Example').code).toBe(0)
  const ann = await until('Ann in the user list', async () =>
    ((await sapi(srv, 'GET', '/api/v1/admin/users', { cookie: owner })).body.users as { id: string; email: string }[]).find(
      (u) => u.email === 'ann@example.com',
    ),
  )
  expect(
    (await sapi(srv, 'PUT', `/api/v1/project/members/${ann.id}`, { cookie: owner, project: 'default', body: { role: 'viewer' } })).status,
  ).toBe(200)
  expect((await sapi(srv, 'DELETE', `/api/v1/project/members/${ann.id}`, { cookie: owner, project: 'default' })).status).toBe(200)
  const entries = (await sapi(srv, 'GET', '/api/v1/audit?resource_type=member', { cookie: owner, project: 'default' })).body.entries as {
    action: string
    resource_key: string
    before: any
    after: any
  }[]
  const created = entries.find((e) => e.action === 'create')!
  const removed = entries.find((e) => e.action === 'delete')!
  expect(created.resource_key).toBe(ann.id)
  expect(created.after).toMatchObject({ name: 'Ann Example', email: 'ann@example.com', role: 'viewer' })
  expect(removed.before).toMatchObject({ name: 'Ann Example', email: 'ann@example.com' })
})
