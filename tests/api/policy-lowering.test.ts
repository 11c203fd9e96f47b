// Lowering protection takes a person (docs/change-requests.md §1), through HTTP on the store the suite runs
// on: a `*` machine token (or a personal token) may raise an environment's protection but not lower it
// (unprotect, fewer approvals, a lower approver role, emergency off turned on): 403, nothing changed; a
// project admin's session may. Every policy change is audited and sent as `policy.updated` besides
// `project.updated`.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api } from '../helpers/server'
import { sapi } from '../helpers/teams'
import { startWithPeople, type People } from '../helpers/people'

const ADMIN = 'admin@example.com'
const PATH = '/api/v1/project/environments/production/policy'
const STRICT = { protected: true, required_approvals: 2, approver_role: 'admin', allow_emergency_off: false }

describe('lowering protection', () => {
  let p: People
  const asToken = (method: string, path: string, body?: unknown, t = p.srv.adminToken) => api(p.srv, method, path, { token: t, body })
  const asAdmin = (method: string, path: string, body?: unknown) =>
    sapi(p.srv, method, path, { cookie: p.cookies[ADMIN], project: 'default', body })
  const policy = async () => (await asToken('GET', PATH)).body

  beforeAll(async () => {
    p = await startWithPeople([{ email: ADMIN, role: 'admin', token: ['*'] }])
    expect(
      (
        await asToken('POST', '/api/v1/webhooks', {
          url: 'https://hooks.example.com/policy',
          events: ['policy.updated', 'project.updated'],
        })
      ).status,
    ).toBe(201)
    expect((await asToken('POST', '/api/v1/flags', { key: 'checkout', enabled: true })).status).toBe(201)
  }, 120_000)
  afterAll(() => p.stop(), 60_000)

  test('a * machine token may raise protection but not lower it; a personal token neither; an admin session may', async () => {
    const ci = (await asAdmin('POST', '/api/v1/tokens', { name: 'ci', project_id: 'default', permissions: ['*'] })).body.token
    expect(await policy()).toMatchObject({ protected: false, required_approvals: 1, approver_role: 'editor', allow_emergency_off: true })
    // raising: a token may
    const raised = await asToken('PUT', PATH, STRICT, ci)
    expect(raised.status).toBe(200)
    expect(raised.body).toMatchObject(STRICT)
    // every kind of lowering, by the machine token and by the admin's own personal token: 403, nothing changed
    const lowerings = [
      { ...STRICT, protected: false },
      { ...STRICT, required_approvals: 1 },
      { ...STRICT, approver_role: 'editor' },
      { ...STRICT, allow_emergency_off: true },
    ]
    for (const lower of lowerings) {
      for (const t of [ci, p.tokens[ADMIN]!, p.srv.adminToken]) {
        const res = await asToken('PUT', PATH, lower, t)
        expect({ status: res.status, required: res.body.details?.required }).toEqual({ status: 403, required: 'session' })
      }
    }
    expect(await policy()).toMatchObject(STRICT)
    // the write it would have allowed is still refused
    expect((await asToken('PUT', '/api/v1/flags/checkout', { description: 'sneaky' }, ci)).status).toBe(409)
    // the same unchanged policy sent again is no lowering; allow_emergency_off absent keeps it
    expect((await asToken('PUT', PATH, { protected: true, required_approvals: 2, approver_role: 'admin' }, ci)).body).toMatchObject(STRICT)
    // an admin's session may lower
    const lowered = await asAdmin('PUT', PATH, {
      protected: false,
      required_approvals: 1,
      approver_role: 'editor',
      allow_emergency_off: true,
    })
    expect(lowered.status).toBe(200)
    expect(await policy()).toMatchObject({ protected: false, required_approvals: 1, approver_role: 'editor', allow_emergency_off: true })
  })

  test('every policy change is audited and sent as policy.updated and project.updated', async () => {
    const audit = (await asToken('GET', '/api/v1/audit?resource_type=project')).body.entries
    expect(audit.slice(0, 3).map((e: { actor: string; after: { policy: unknown } }) => e.actor)).toEqual([
      ADMIN,
      expect.stringMatching(/^ff_/),
      expect.stringMatching(/^ff_/),
    ])
    expect(audit[0].after.policy).toMatchObject({ protected: false })
    const hook = (await asToken('GET', '/api/v1/webhooks')).body.webhooks[0]
    const deliveries = (await asToken('GET', `/api/v1/webhooks/${hook.id}/deliveries`)).body.deliveries as { event: string }[]
    const events = deliveries.map((d) => d.event)
    expect(events.filter((e) => e === 'policy.updated').length).toBe(3)
    expect(events.filter((e) => e === 'project.updated').length).toBe(3)
  })

  test('a webhook may subscribe to policy.updated alone; an unknown kind is refused', async () => {
    expect((await asToken('POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/p2', events: ['policy.updated'] })).status).toBe(
      201,
    )
    expect((await asToken('POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/p3', events: ['policy.lowered'] })).status).toBe(
      400,
    )
  })
})
