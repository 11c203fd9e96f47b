// POST /api/v1/import?mode=propose (docs/as-code.md §2) through HTTP against real servers, on the store the
// suite runs on: with production protected, a document's plan becomes one change request holding every
// change as items (the bodies the direct routes take, at the planned versions, in apply's order); another
// person approves; applying it leaves what the document says. No change opens nothing; too many changes,
// plan errors, an outdated plan and a caller without write permission are refused and open nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, createToken, type ApiResponse } from '../helpers/server'
import { sapi } from '../helpers/teams'
import { startWithPeople, type People } from '../helpers/people'

const ADMIN = 'admin@example.com'
const AUTHOR = 'author@example.com'
const REVIEWER = 'reviewer@example.com'
const VIEWER = 'viewer@example.com'

const DOCUMENT = `flagship: 1
segments:
  - key: beta
    conditions: [{ property: plan, operator: equals, value: beta }]
  - key: vip
    conditions: [{ property: plan, operator: equals, value: vip }]
flags:
  - key: checkout
    enabled: true
    value: true
  - key: new-checkout
    enabled: true
    value: true
    prerequisites: [{ key: checkout, value: true }]
    targeting:
      rules: [{ conditions: [{ operator: in_segment, value: vip }], value: false }]
  - key: retire
    enabled: false
    value: true
    archived: true
  - key: dormant
    enabled: true
    value: true
`

describe('import mode=propose', () => {
  let p: People
  let token: string
  const asToken = (method: string, path: string, body?: unknown) => api(p.srv, method, path, { token, body })
  const as = (who: string, method: string, path: string, body?: unknown) =>
    sapi(p.srv, method, path, { cookie: p.cookies[who], project: 'default', body })
  const propose = (who: string, text: string, query = '', headers: Record<string, string> = {}) =>
    sapi(p.srv, 'POST', `/api/v1/import?mode=propose${query}`, {
      cookie: p.cookies[who],
      project: 'default',
      rawBody: text,
      headers: { 'content-type': 'application/yaml', ...headers },
    })
  const requestCount = async () => (await asToken('GET', '/api/v1/change-requests?limit=1')).body.total as number
  const definition = (key: string) => asToken('GET', `/api/v1/flags/${key}/definition`)
  const ok = (res: ApiResponse) => expect(res.status).toBeLessThan(300)

  beforeAll(async () => {
    p = await startWithPeople([
      { email: ADMIN, role: 'admin' },
      { email: AUTHOR, role: 'editor' },
      { email: REVIEWER, role: 'editor' },
      { email: VIEWER, role: 'viewer' },
    ])
    token = p.srv.adminToken
    ok(await asToken('POST', '/api/v1/segments', { key: 'beta', conditions: [{ property: 'plan', operator: 'equals', value: 'beta' }] }))
    ok(await asToken('POST', '/api/v1/flags', { key: 'checkout', enabled: false, description: 'the old checkout', tags: ['web'] }))
    ok(await asToken('POST', '/api/v1/flags', { key: 'retire', enabled: false }))
    ok(await asToken('POST', '/api/v1/flags', { key: 'legacy', enabled: true }))
    ok(await asToken('POST', '/api/v1/flags', { key: 'dormant', enabled: false }))
    ok(await asToken('POST', '/api/v1/flags/dormant/archive'))
    ok(
      await as(ADMIN, 'PUT', '/api/v1/project/environments/production/policy', {
        protected: true,
        required_approvals: 1,
        approver_role: 'editor',
      }),
    )
  }, 120_000)
  afterAll(() => p.stop(), 60_000)

  test('a token without write permission and a person without editor rights are refused (403); nothing is opened', async () => {
    const reader = await createToken(p.srv, ['read:flags', 'read:configs'])
    const before = await requestCount()
    const res = await api(p.srv, 'POST', '/api/v1/import?mode=propose', {
      token: reader,
      rawBody: DOCUMENT,
      headers: { 'content-type': 'application/yaml' },
    })
    expect(res.status).toBe(403)
    expect((await propose(VIEWER, DOCUMENT)).status).toBe(403)
    expect(await requestCount()).toBe(before)
  })

  test('plan errors (400), an outdated plan (409 PLAN_OUTDATED) and more than 100 changes (400) open nothing', async () => {
    const before = await requestCount()
    const bad = await propose(AUTHOR, 'flagship: 1\nflags:\n  - key: broken\n    prerequisites: [{ key: nowhere, value: true }]\n')
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe('VALIDATION_ERROR')
    const outdated = await propose(AUTHOR, DOCUMENT, '&prune=true', { 'if-match': '"0000"' })
    expect(outdated.status).toBe(409)
    expect(outdated.body.code).toBe('PLAN_OUTDATED')
    const many = `flagship: 1\nsegments:\n${Array.from({ length: 101 }, (_, i) => `  - key: s${i}\n    conditions: []\n`).join('')}`
    const tooMany = await propose(AUTHOR, many)
    expect(tooMany.status).toBe(400)
    expect(tooMany.body.code).toBe('TOO_MANY_CHANGES')
    expect(tooMany.body.error).toContain('100')
    expect(tooMany.body.details).toMatchObject({ changes: 101, limit: 100 })
    expect(await requestCount()).toBe(before)
  })

  const PROPOSE_INSTEAD =
    'direct apply is refused; propose opens one request with every change; ' +
    'approved and applied, the state is the document; again, nothing is opened'
  test(PROPOSE_INSTEAD, async () => {
    const refused = await sapi(p.srv, 'POST', '/api/v1/import?mode=apply&prune=true', {
      cookie: p.cookies[AUTHOR],
      project: 'default',
      rawBody: DOCUMENT,
      headers: { 'content-type': 'application/yaml' },
    })
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('CHANGE_REQUEST_REQUIRED')

    // Without a title: the default one (this request is cancelled; the next one carries its plan id).
    const plan = (await propose(AUTHOR, DOCUMENT, '&prune=true')).body
    expect(plan.summary).toEqual({ create: 2, update: 3, delete: 1, unchanged: 1 })
    const first = plan.change_request
    expect(first).toMatchObject({ title: 'Import of 6 changes', state: 'open', author: expect.anything() })
    ok(await as(AUTHOR, 'POST', `/api/v1/change-requests/${first.id}/cancel`))

    const before = await requestCount()
    const res = await propose(
      AUTHOR,
      DOCUMENT,
      `&prune=true&title=${encodeURIComponent('Checkout v2')}&description=${encodeURIComponent('from git')}`,
      { 'if-match': `"${plan.plan_id}"` },
    )
    expect(res.status).toBe(201)
    expect(await requestCount()).toBe(before + 1)
    expect(res.body.plan_id).toBe(plan.plan_id)
    expect(res.body.changes).toEqual(plan.changes)
    const cr = res.body.change_request
    expect(cr).toMatchObject({ title: 'Checkout v2', description: 'from git', state: 'open', revision: 1 })
    const items = cr.items.map((i: Record<string, unknown>) => ({
      resource_type: i.resource_type,
      key: i.key,
      action: i.action,
      body: i.body,
      base_version: i.base_version,
    }))
    const ver = (key: string) => plan.changes.find((c: { key: string }) => c.key === key).current_version
    expect(items).toEqual([
      {
        resource_type: 'segment',
        key: 'vip',
        action: 'create',
        body: { key: 'vip', conditions: [{ property: 'plan', operator: 'equals', value: 'vip' }] },
        base_version: null,
      },
      {
        resource_type: 'flag',
        key: 'checkout',
        action: 'update',
        body: { enabled: true, value: true, description: null, tags: null },
        base_version: ver('checkout'),
      },
      { resource_type: 'flag', key: 'dormant', action: 'restore', body: {}, base_version: ver('dormant') },
      { resource_type: 'flag', key: 'dormant', action: 'update', body: { enabled: true, value: true }, base_version: ver('dormant') },
      {
        resource_type: 'flag',
        key: 'new-checkout',
        action: 'create',
        body: {
          key: 'new-checkout',
          enabled: true,
          value: true,
          prerequisites: [{ key: 'checkout', value: true }],
          targeting: { rules: [{ conditions: [{ operator: 'in_segment', value: 'vip' }], value: false }] },
        },
        base_version: null,
      },
      { resource_type: 'flag', key: 'retire', action: 'archive', body: {}, base_version: ver('retire') },
      { resource_type: 'flag', key: 'legacy', action: 'delete', body: {}, base_version: ver('legacy') },
    ])
    // the items follow the plan's order (apply's)
    expect(plan.changes.map((c: { key: string }) => c.key)).toEqual([...new Set(items.map((i: { key: string }) => i.key))])
    // nothing written yet
    expect((await definition('legacy')).status).toBe(200)

    const approved = await as(REVIEWER, 'POST', `/api/v1/change-requests/${cr.id}/reviews`, { decision: 'approve', revision: 1 })
    expect(approved.status).toBe(200)
    expect(approved.body.change_request.state).toBe('approved')
    const applied = await as(AUTHOR, 'POST', `/api/v1/change-requests/${cr.id}/apply`, { revision: 1 })
    expect(applied.status).toBe(200)
    expect(applied.body.change_request.state).toBe('applied')

    const checkout = (await definition('checkout')).body.flag
    expect(checkout.enabled).toBe(true)
    expect(checkout.description).toBeUndefined()
    expect(checkout.tags).toBeUndefined()
    expect((await definition('retire')).body.flag.archived).toBe(true)
    expect((await definition('legacy')).status).toBe(404)
    const dormant = (await definition('dormant')).body.flag
    expect(dormant.archived).toBeUndefined()
    expect(dormant.enabled).toBe(true)
    expect((await asToken('GET', '/api/v1/segments/vip')).status).toBe(200)
    // the document now plans to nothing, and so does an export
    const again = await propose(AUTHOR, DOCUMENT, '&prune=true')
    expect(again.status).toBe(200)
    expect(again.body.change_request).toBeNull()
    expect(again.body.changes).toEqual([])
    expect(await requestCount()).toBe(before + 1)
    const exported = (await asToken('GET', '/api/v1/export?format=yaml')).text
    const replanned = await api(p.srv, 'POST', '/api/v1/import?mode=plan&prune=true', {
      token,
      rawBody: exported,
      headers: { 'content-type': 'application/yaml' },
    })
    expect(replanned.status).toBe(200)
    expect(replanned.body.changes).toEqual([])
  })
})
