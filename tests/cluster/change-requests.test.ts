// Change requests with two real server processes on one PostgreSQL database (docs/change-requests.md §4):
// two applies of one request at once (one on each instance) — exactly one wins, each change written once;
// scheduled requests applied exactly once by whichever instance claims them, within 2 s of their time;
// a scheduled request whose base changed fails (STALE_CHANGE_REQUEST) and writes nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, type TestServer } from '../helpers/server'
import { sapi } from '../helpers/teams'
import { startWithPeople, type People } from '../helpers/people'
import { requireServices } from '../helpers/requirements'

const ready = await requireServices({ postgres: true })
const AUTHOR = 'author@example.com'
const REVIEWER = 'reviewer@example.com'
const ADMIN = 'admin@example.com'

describe.skipIf(!ready)('change requests on two instances', () => {
  let p: People
  let a: TestServer
  let b: TestServer
  const as = (srv: TestServer, who: string, method: string, path: string, body?: unknown) =>
    sapi(srv, method, path, { cookie: p.cookies[who], project: 'default', body })
  const token = (srv: TestServer, method: string, path: string, body?: unknown) => api(srv, method, path, { token: p.srv.adminToken, body })
  beforeAll(async () => {
    // A long reconcile interval: nothing here may depend on it.
    p = await startWithPeople(
      [
        { email: AUTHOR, role: 'editor' },
        { email: REVIEWER, role: 'editor' },
        { email: ADMIN, role: 'admin' },
      ],
      {
        instances: 2,
        postgres: true,
        env: { RECONCILE_INTERVAL_MS: '600000' },
      },
    )
    ;[a, b] = p.servers as [TestServer, TestServer]
    // made before production is protected (a flag's creation affects every environment)
    for (const key of ['race-0', 'race-1', 'race-2', 'race-3', 'race-4', 'sched-0', 'sched-1', 'sched-2', 'sched-3', 'moved']) {
      expect((await token(a, 'POST', '/api/v1/flags', { key })).status).toBe(201)
    }
    const res = await sapi(a, 'PUT', '/api/v1/project/environments/production/policy', {
      cookie: p.cookies[ADMIN],
      project: 'default',
      body: { protected: true, required_approvals: 1, approver_role: 'editor' },
    })
    expect(res.status).toBe(200)
  }, 120_000)
  afterAll(() => p?.stop())

  const auditOf = async (key: string) =>
    (await token(a, 'GET', `/api/v1/audit?resource_type=flag&resource_key=${key}&limit=1000`)).body.entries as any[]

  async function approved(key: string, extra: Record<string, unknown> = {}) {
    const created = await as(a, AUTHOR, 'POST', '/api/v1/change-requests', {
      title: `ship ${key}`,
      items: [{ resource_type: 'flag', key, action: 'set_override', environment: 'production', body: { enabled: true } }],
      ...extra,
    })
    expect(created.status).toBe(201)
    const reviewed = await as(b, REVIEWER, 'POST', `/api/v1/change-requests/${created.body.change_request.id}/reviews`, {
      decision: 'approve',
      revision: 1,
    })
    expect(reviewed.status).toBe(200)
    return reviewed.body.change_request
  }

  test('the same request applied on both instances at once, five times: exactly one apply wins each time', async () => {
    for (let i = 0; i < 5; i++) {
      const key = `race-${i}`
      const cr = await approved(key)
      expect(cr.state).toBe('approved')
      const results = await Promise.all(
        [a, b].map((srv) => as(srv, AUTHOR, 'POST', `/api/v1/change-requests/${cr.id}/apply`, { revision: 1 })),
      )
      expect(results.map((r) => r.status).sort()).toEqual([200, 409])
      expect(results.find((r) => r.status === 409)!.body.code).toBe('INVALID_STATE')
      const flag = (await token(b, 'GET', `/api/v1/flags/${key}/definition`)).body.flag
      expect(flag).toMatchObject({ version: 2, environments: { production: { enabled: true } } })
      expect((await auditOf(key)).filter((e) => e.details?.change_request === cr.id)).toHaveLength(1)
    }
  })

  test('scheduled requests are applied once each, by either instance, within 2 s of their time', async () => {
    const keys = ['sched-0', 'sched-1', 'sched-2', 'sched-3']
    const applyAt = new Date(Date.now() + 5000).toISOString()
    const crs: any[] = []
    for (const key of keys) crs.push(await approved(key, { apply_at: applyAt }))
    expect(crs.map((c) => c.state)).toEqual(Array(4).fill('scheduled'))
    const end = Date.now() + 15_000
    let done: any[] = []
    for (;;) {
      done = await Promise.all(crs.map(async (c) => (await as(b, AUTHOR, 'GET', `/api/v1/change-requests/${c.id}`)).body.change_request))
      if (done.every((c) => c.state !== 'scheduled') || Date.now() > end) break
      await Bun.sleep(100)
    }
    expect(done.map((c) => c.state)).toEqual(Array(4).fill('applied'))
    for (const c of done) expect(Date.parse(c.applied_at) - Date.parse(applyAt)).toBeLessThan(2000)
    for (const [i, key] of keys.entries()) {
      expect((await token(a, 'GET', `/api/v1/flags/${key}/definition`)).body.flag).toMatchObject({
        version: 2,
        environments: { production: { enabled: true } },
      })
      const entries = (await auditOf(key)).filter((e) => e.details?.change_request === crs[i].id)
      expect(entries).toHaveLength(1)
      expect(entries[0]).toMatchObject({ actor: AUTHOR, actor_type: 'change_request', details: { approvers: [REVIEWER] } })
    }
  })

  test('a scheduled request whose base changed meanwhile fails (STALE_CHANGE_REQUEST) and writes nothing', async () => {
    const applyAt = new Date(Date.now() + 4000).toISOString()
    const cr = await approved('moved', { apply_at: applyAt })
    expect(cr.state).toBe('scheduled')
    // the flag changes underneath, in an unprotected environment
    expect((await token(b, 'PUT', '/api/v1/flags/moved/environments/staging', { enabled: true })).status).toBe(200)
    const before = (await token(a, 'GET', '/api/v1/flags/moved/definition')).body.flag
    const end = Date.now() + 15_000
    let now = cr
    while (now.state === 'scheduled' && Date.now() < end) {
      await Bun.sleep(100)
      now = (await as(a, AUTHOR, 'GET', `/api/v1/change-requests/${cr.id}`)).body.change_request
    }
    expect(now).toMatchObject({ state: 'failed', error: { code: 'STALE_CHANGE_REQUEST' } })
    expect((await token(a, 'GET', '/api/v1/flags/moved/definition')).body.flag).toEqual(before)
    const events = (await token(a, 'GET', `/api/v1/audit?resource_type=change_request&resource_key=${cr.id}`)).body.entries.map(
      (e: any) => e.after.state,
    )
    expect(events.filter((s: string) => s === 'failed')).toHaveLength(1)
  })
})
