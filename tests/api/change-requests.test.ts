// Change requests (docs/change-requests.md §2-4, §6) through HTTP against a real server, on the store the
// suite runs on: proposing (validated as the direct writes), reviews by people only, the author never
// counting by any credential, revisions voiding approvals, approvals counted again at apply, apply as one
// transaction with base-version checks, audit and events naming the request and its approvers.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, type ApiResponse } from '../helpers/server'
import { sapi, signIn } from '../helpers/teams'
import { startWithPeople, type People } from '../helpers/people'
import { openSse } from '../helpers/sse'

const ADMIN = 'admin@example.com'
const ALICE = 'alice@example.com' // editor, the author
const BOB = 'bob@example.com' // editor, reviewer
const CAROL = 'carol@example.com' // editor
const DAVE = 'dave@example.com' // editor, but a viewer in production
const VIC = 'vic@example.com' // viewer
const OLGA = 'olga@example.com' // instance admin: admin of every project

describe('change requests', () => {
  let p: People
  let token: string
  const asToken = (method: string, path: string, body?: unknown, t = token) => api(p.srv, method, path, { token: t, body })
  const as = (who: string, method: string, path: string, body?: unknown) =>
    sapi(p.srv, method, path, { cookie: p.cookies[who], project: 'default', body })
  const flag = async (key: string) => (await asToken('GET', `/api/v1/flags/${key}/definition`)).body.flag
  const expectError = (res: ApiResponse, status: number, code: string) => {
    expect({ status: res.status, code: res.body?.code }).toEqual({ status, code })
  }
  const propose = async (who: string, items: unknown[], extra: Record<string, unknown> = {}) => {
    const res = await as(who, 'POST', '/api/v1/change-requests', { title: 'Turn checkout on', items, ...extra })
    expect(res.status).toBe(201)
    return res.body.change_request
  }
  const review = (who: string, id: string, decision: string, revision: number) =>
    as(who, 'POST', `/api/v1/change-requests/${id}/reviews`, { decision, revision })

  const ITEMS = [
    { resource_type: 'flag', key: 'checkout', action: 'update', body: { enabled: true } },
    { resource_type: 'flag', key: 'checkout', action: 'set_override', environment: 'production', body: { enabled: true, value: true } },
    { resource_type: 'config', key: 'limits', action: 'update', body: { value: { max: 2 } } },
  ]

  beforeAll(async () => {
    p = await startWithPeople([
      { email: ADMIN, role: 'admin' },
      { email: ALICE, role: 'editor', token: ['read:flags', 'write:flags', 'write:configs'] },
      { email: BOB, role: 'editor', token: ['read:flags', 'write:flags', 'write:configs'] },
      { email: CAROL, role: 'editor' },
      { email: DAVE, role: 'editor', environments: { production: 'viewer' } },
      { email: VIC, role: 'viewer' },
      { email: OLGA, instanceRole: 'admin' },
    ])
    token = p.srv.adminToken
    expect((await asToken('POST', '/api/v1/flags', { key: 'checkout', enabled: false })).status).toBe(201)
    expect((await asToken('POST', '/api/v1/flags', { key: 'banner', enabled: false })).status).toBe(201)
    expect((await asToken('POST', '/api/v1/configs', { key: 'limits', value: { max: 1 } })).status).toBe(201)
    expect((await asToken('POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/flags', events: ['*'] })).status).toBe(201)
    expect(
      (
        await as(ADMIN, 'PUT', '/api/v1/project/environments/production/policy', {
          protected: true,
          required_approvals: 1,
          approver_role: 'editor',
        })
      ).status,
    ).toBe(200)
  }, 120_000)
  afterAll(() => p.stop(), 60_000)

  test('proposing: validated as the direct writes would be (400 naming the item); rights in every affected environment', async () => {
    const bad = await as(ALICE, 'POST', '/api/v1/change-requests', {
      title: 'x',
      items: [ITEMS[0], { resource_type: 'flag', key: 'nope', action: 'update', body: { enabled: true } }],
    })
    expectError(bad, 400, 'INVALID_ITEM')
    expect(bad.body.details).toMatchObject({ item: 1, key: 'nope', code: 'FLAG_NOT_FOUND' })
    const badBody = await as(ALICE, 'POST', '/api/v1/change-requests', {
      title: 'x',
      items: [{ resource_type: 'flag', key: 'checkout', action: 'update', body: { enabled: 'yes' } }],
    })
    expect(badBody.status).toBe(400)
    expect(JSON.stringify(badBody.body)).toContain('items.0.body')
    const badEnv = await as(ALICE, 'POST', '/api/v1/change-requests', {
      title: 'x',
      items: [{ resource_type: 'flag', key: 'checkout', action: 'set_override', environment: 'moon', body: { enabled: true } }],
    })
    expectError(badEnv, 400, 'INVALID_ITEM')
    expectError(await as(ALICE, 'POST', '/api/v1/change-requests', { title: 'x', items: [] }), 400, 'VALIDATION_ERROR')
    expectError(
      await as(ALICE, 'POST', '/api/v1/change-requests', {
        title: 'x',
        items: [{ resource_type: 'segment', key: 's', action: 'archive' }],
      }),
      400,
      'VALIDATION_ERROR',
    )
    expect((await as(VIC, 'POST', '/api/v1/change-requests', { title: 'x', items: ITEMS })).status).toBe(403)
    expectError(await as(DAVE, 'POST', '/api/v1/change-requests', { title: 'x', items: [ITEMS[1]] }), 403, 'ENVIRONMENT_FORBIDDEN')
    const reader = (
      await asToken('POST', '/api/v1/tokens', { name: 'reader', project_id: 'default', permissions: ['read:flags', 'read:configs'] })
    ).body.token
    expect((await asToken('POST', '/api/v1/change-requests', { title: 'x', items: ITEMS }, reader)).status).toBe(403)
    // nothing was written by any of these
    expect((await flag('checkout')).version).toBe(1)
    expect((await as(ALICE, 'GET', '/api/v1/change-requests')).body.total).toBe(0)
  })

  test('propose → self-approval refused by every credential → approve → edit voids → approve → apply', async () => {
    const cr = await propose(ALICE, ITEMS)
    expect(cr).toMatchObject({
      state: 'open',
      revision: 1,
      approvals: 0,
      approvals_required: 1,
      environments: ['production'],
      author: { email: ALICE },
    })
    expect(cr.items[0]).toMatchObject({ base_version: 1, current_version: 1, before: { enabled: false }, after: { enabled: true } })
    expect(cr.items[1].after.environments.production).toEqual({ enabled: true, value: true })

    const inbox = async (who: string) =>
      (await as(who, 'GET', '/api/v1/change-requests?awaiting=me')).body.change_requests.map((c: { id: string }) => c.id)
    expect(await inbox(CAROL)).toEqual([cr.id])
    expect(await inbox(ALICE)).toEqual([])
    expect(await inbox(DAVE)).toEqual([])

    // the author never counts: their session, a second session, their personal token
    expectError(await review(ALICE, cr.id, 'approve', 1), 403, 'SELF_APPROVAL')
    const second = await signIn(p.srv, ALICE)
    expectError(
      await sapi(p.srv, 'POST', `/api/v1/change-requests/${cr.id}/reviews`, {
        cookie: second,
        project: 'default',
        body: { decision: 'approve', revision: 1 },
      }),
      403,
      'SELF_APPROVAL',
    )
    expectError(
      await asToken('POST', `/api/v1/change-requests/${cr.id}/reviews`, { decision: 'approve', revision: 1 }, p.tokens[ALICE]),
      403,
      'SELF_APPROVAL',
    )
    // machines do not review
    expectError(await asToken('POST', `/api/v1/change-requests/${cr.id}/reviews`, { decision: 'approve', revision: 1 }), 403, 'FORBIDDEN')
    // no rights in production, a viewer
    expect((await review(DAVE, cr.id, 'approve', 1)).status).toBe(403)
    expect((await review(VIC, cr.id, 'approve', 1)).status).toBe(403)
    // not approved: cannot be applied
    expectError(await as(ALICE, 'POST', `/api/v1/change-requests/${cr.id}/apply`, { revision: 1 }), 409, 'NOT_APPROVED')
    // an approval at an old revision
    expectError(await review(BOB, cr.id, 'approve', 0), 409, 'REVISION_MISMATCH')

    const approved = await review(BOB, cr.id, 'approve', 1)
    expect(approved.status).toBe(200)
    expect(approved.body.change_request).toMatchObject({ state: 'approved', approvals: 1 })
    expectError(await review(BOB, cr.id, 'approve', 1), 409, 'ALREADY_APPROVED')

    // edit after approval: a new revision, approvals void, only the author may edit
    expect((await as(BOB, 'PUT', `/api/v1/change-requests/${cr.id}`, { title: 'mine now', revision: 1 })).status).toBe(403)
    expectError(await as(ALICE, 'PUT', `/api/v1/change-requests/${cr.id}`, { title: 'x', revision: 7 }), 409, 'REVISION_MISMATCH')
    const edited = await as(ALICE, 'PUT', `/api/v1/change-requests/${cr.id}`, { title: 'Turn checkout on (v2)', revision: 1 })
    expect(edited.status).toBe(200)
    expect(edited.body.change_request).toMatchObject({ state: 'open', revision: 2, approvals: 0 })
    expectError(await as(ALICE, 'POST', `/api/v1/change-requests/${cr.id}/apply`, { revision: 2 }), 409, 'NOT_APPROVED')
    // bob's personal token is a person too
    const again = await asToken('POST', `/api/v1/change-requests/${cr.id}/reviews`, { decision: 'approve', revision: 2 }, p.tokens[BOB])
    expect(again.body.change_request).toMatchObject({ state: 'approved', approvals: 1 })

    expect(await inbox(CAROL)).toEqual([])
    expect((await as(ALICE, 'GET', '/api/v1/change-requests?author=me')).body.change_requests.map((c: { id: string }) => c.id)).toEqual([
      cr.id,
    ])

    expect((await as(VIC, 'POST', `/api/v1/change-requests/${cr.id}/apply`, { revision: 2 })).status).toBe(403)
    expectError(await as(CAROL, 'POST', `/api/v1/change-requests/${cr.id}/apply`, { revision: 1 }), 409, 'REVISION_MISMATCH')
    const applied = await as(CAROL, 'POST', `/api/v1/change-requests/${cr.id}/apply`, { revision: 2 })
    expect(applied.status).toBe(200)
    expect(applied.body.change_request).toMatchObject({ state: 'applied', approvers: [{ email: BOB }] })
    expectError(await as(CAROL, 'POST', `/api/v1/change-requests/${cr.id}/apply`, { revision: 2 }), 409, 'INVALID_STATE')

    // written through the resources' own change path: versions, evaluation (caches), audit, events
    const now = await flag('checkout')
    expect(now).toMatchObject({ enabled: true, version: 3, environments: { production: { enabled: true, value: true } } })
    expect((await asToken('GET', '/api/v1/configs/limits/definition')).body.config.value).toEqual({ max: 2 })
    const evaluated = await asToken(
      'GET',
      '/api/v1/flags/checkout?context=' + encodeURIComponent('{"environment":"production","user_id":"u1"}'),
    )
    expect(evaluated.body.value).toBe(true)
    const entries = (await asToken('GET', '/api/v1/audit?resource_type=flag&resource_key=checkout')).body.entries
    expect(entries[0]).toMatchObject({ actor: ALICE, actor_type: 'change_request', details: { change_request: cr.id, approvers: [BOB] } })
    const crAudit = (await asToken('GET', `/api/v1/audit?resource_type=change_request&resource_key=${cr.id}`)).body.entries
    expect(crAudit.length).toBeGreaterThanOrEqual(5)
    const hook = (await asToken('GET', '/api/v1/webhooks')).body.webhooks[0]
    const events = (await asToken('GET', `/api/v1/webhooks/${hook.id}/deliveries?limit=1000`)).body.deliveries.map(
      (d: { event: string }) => d.event,
    )
    for (const e of ['change_request.opened', 'change_request.approved', 'change_request.applied', 'flag.updated', 'config.updated'])
      expect(events).toContain(e)
  })

  test('a policy asking for two approvals from admins', async () => {
    expect(
      (
        await as(ADMIN, 'PUT', '/api/v1/project/environments/staging/policy', {
          protected: true,
          required_approvals: 2,
          approver_role: 'admin',
        })
      ).status,
    ).toBe(200)
    const cr = await propose(ALICE, [
      { resource_type: 'flag', key: 'banner', action: 'set_override', environment: 'staging', body: { enabled: true } },
    ])
    expect(cr).toMatchObject({ approvals_required: 2, environments: ['staging'] })
    expectError(await review(BOB, cr.id, 'approve', 1), 403, 'FORBIDDEN')
    expect((await review(ADMIN, cr.id, 'approve', 1)).body.change_request).toMatchObject({ state: 'open', approvals: 1 })
    expect((await review(OLGA, cr.id, 'approve', 1)).body.change_request).toMatchObject({ state: 'approved', approvals: 2 })
    expect((await as(ALICE, 'POST', `/api/v1/change-requests/${cr.id}/apply`, { revision: 1 })).body.change_request.state).toBe('applied')
    expect((await flag('banner')).environments.staging).toEqual({ enabled: true })
    expect(
      (
        await as(ADMIN, 'PUT', '/api/v1/project/environments/staging/policy', {
          protected: false,
          required_approvals: 1,
          approver_role: 'editor',
        })
      ).status,
    ).toBe(200)
  })

  test('reject, cancel and states that do not allow an action', async () => {
    const cr = await propose(ALICE, [{ resource_type: 'flag', key: 'banner', action: 'update', body: { enabled: true } }])
    expect((await review(BOB, cr.id, 'comment', 1)).body.change_request.state).toBe('open')
    expect((await review(BOB, cr.id, 'reject', 1)).body.change_request.state).toBe('rejected')
    expectError(await review(CAROL, cr.id, 'approve', 1), 409, 'INVALID_STATE')
    expectError(await as(ALICE, 'POST', `/api/v1/change-requests/${cr.id}/cancel`), 409, 'INVALID_STATE')
    const other = await propose(ALICE, [{ resource_type: 'flag', key: 'banner', action: 'update', body: { enabled: true } }])
    expect((await as(BOB, 'POST', `/api/v1/change-requests/${other.id}/cancel`)).status).toBe(403)
    expect((await as(ADMIN, 'POST', `/api/v1/change-requests/${other.id}/cancel`)).body.change_request.state).toBe('cancelled')
    expect((await flag('banner')).enabled).toBe(false)
  })

  test('apply after what it changes moved on: 409 STALE_CHANGE_REQUEST listing it, nothing written', async () => {
    const cr = await propose(ALICE, [
      { resource_type: 'flag', key: 'banner', action: 'update', body: { enabled: true } },
      { resource_type: 'flag', key: 'checkout', action: 'set_override', environment: 'production', body: { enabled: false } },
    ])
    expect((await review(BOB, cr.id, 'approve', 1)).body.change_request.state).toBe('approved')
    // checkout changes underneath (an unprotected environment: a direct write)
    expect((await asToken('PUT', '/api/v1/flags/checkout/environments/development', { enabled: true })).status).toBe(200)
    const banner = await flag('banner')
    const checkout = await flag('checkout')
    const stale = await as(ALICE, 'POST', `/api/v1/change-requests/${cr.id}/apply`, { revision: 1 })
    expectError(stale, 409, 'STALE_CHANGE_REQUEST')
    expect(stale.body.details.items).toEqual([
      { index: 1, resource_type: 'flag', key: 'checkout', base_version: checkout.version - 1, current_version: checkout.version },
    ])
    expect(await flag('banner')).toEqual(banner)
    expect(await flag('checkout')).toEqual(checkout)
    // the GET shows it (the console's stale banner)
    const got = (await as(ALICE, 'GET', `/api/v1/change-requests/${cr.id}`)).body.change_request
    expect(got.items[1]).toMatchObject({ base_version: checkout.version - 1, current_version: checkout.version })
    expect(got.state).toBe('approved')
  })

  test('two applies of one request at once: exactly one wins, each change written once', async () => {
    const cr = await propose(ALICE, [{ resource_type: 'flag', key: 'banner', action: 'update', body: { tags: ['race'] } }])
    expect((await review(BOB, cr.id, 'approve', 1)).body.change_request.state).toBe('approved')
    const version = (await flag('banner')).version
    const stream = await openSse(`${p.srv.url}/api/v1/stream`, { authorization: `Bearer ${token}` })
    expect((await stream.next()).event).toBe('ready')
    const results = await Promise.all(
      [ALICE, CAROL].map((who) => as(who, 'POST', `/api/v1/change-requests/${cr.id}/apply`, { revision: 1 })),
    )
    expect(results.map((r) => r.status).sort()).toEqual([200, 409])
    expect(results.find((r) => r.status === 409)!.body.code).toBe('INVALID_STATE')
    expect(await flag('banner')).toMatchObject({ version: version + 1, tags: ['race'] })
    // the change stream carries it like any change
    const change = await stream.next((e) => e.event === 'change' && e.data.key === 'banner')
    stream.close()
    expect(change.data).toMatchObject({ resource_type: 'flag', key: 'banner', action: 'update', version: version + 1 })
    const entries = (await asToken('GET', '/api/v1/audit?resource_type=flag&resource_key=banner&limit=1000')).body.entries
    expect(entries.filter((e: { details?: { change_request?: string } }) => e.details?.change_request === cr.id)).toHaveLength(1)
  })

  test('a scheduled request: applied at its time by the worker; one whose base changed fails and writes nothing', async () => {
    const applyAt = new Date(Date.now() + 2500).toISOString()
    const good = await propose(ALICE, [{ resource_type: 'flag', key: 'banner', action: 'update', body: { description: 'scheduled' } }], {
      apply_at: applyAt,
    })
    const stale = await propose(ALICE, [{ resource_type: 'config', key: 'limits', action: 'update', body: { value: { max: 9 } } }], {
      apply_at: applyAt,
    })
    expect((await review(BOB, good.id, 'approve', 1)).body.change_request.state).toBe('scheduled')
    expect((await review(BOB, stale.id, 'approve', 1)).body.change_request.state).toBe('scheduled')
    // the config changes underneath (an unprotected environment)
    expect((await asToken('PUT', '/api/v1/configs/limits/environments/staging', { value: { max: 3 } })).status).toBe(200)
    const limits = (await asToken('GET', '/api/v1/configs/limits/definition')).body.config
    const get = async (id: string) => (await as(ALICE, 'GET', `/api/v1/change-requests/${id}`)).body.change_request
    let states: string[] = []
    for (let i = 0; i < 150; i++) {
      states = [(await get(good.id)).state, (await get(stale.id)).state]
      if (!states.includes('scheduled')) break
      await Bun.sleep(100)
    }
    expect(states).toEqual(['applied', 'failed'])
    expect((await flag('banner')).description).toBe('scheduled')
    expect((await get(stale.id)).error).toMatchObject({ code: 'STALE_CHANGE_REQUEST' })
    expect((await asToken('GET', '/api/v1/configs/limits/definition')).body.config).toEqual(limits)
  })

  test('an approver who loses the right before apply no longer counts', async () => {
    const cr = await propose(ALICE, [{ resource_type: 'flag', key: 'banner', action: 'update', body: { description: 'by carol' } }])
    expect((await review(CAROL, cr.id, 'approve', 1)).body.change_request.state).toBe('approved')
    const demote = await as(ADMIN, 'PUT', `/api/v1/project/members/${p.ids[CAROL]}`, { role: 'viewer' })
    expect(demote.status).toBe(200)
    expectError(await as(ALICE, 'POST', `/api/v1/change-requests/${cr.id}/apply`, { revision: 1 }), 409, 'NOT_APPROVED')
    expect((await flag('banner')).description).not.toBe('by carol')
    expect((await as(ALICE, 'GET', `/api/v1/change-requests/${cr.id}`)).body.change_request.approvals).toBe(0)
  })
})
