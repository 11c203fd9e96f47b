// Four eyes are two people (docs/change-requests.md §3-4), through HTTP on the store the suite runs on: the
// author of a request is the person behind the credential (a session's user, a personal token's owner, a
// machine token's creator), so an admin cannot propose with a machine token they made and approve it
// themselves; and the author is checked again at apply (now or scheduled): demoted, disabled, deleted or
// revoked, the request fails with AUTHOR_LACKS_RIGHTS, audited, and nothing is written.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, type ApiResponse } from '../helpers/server'
import { sapi, signIn } from '../helpers/teams'
import { startWithPeople, type People } from '../helpers/people'

const ADMIN = 'admin@example.com' // project admin, also holds a personal token
const ALICE = 'alice@example.com' // editor
const BOB = 'bob@example.com' // editor, reviewer
const CAROL = 'carol@example.com' // editor
const DAN = 'dan@example.com' // editor
const OWNER = 'owner@example.com' // instance owner (disables and deletes users)

describe('four eyes are two people', () => {
  let p: People
  const asToken = (method: string, path: string, body?: unknown, t = p.srv.adminToken) => api(p.srv, method, path, { token: t, body })
  const as = (who: string, method: string, path: string, body?: unknown) =>
    sapi(p.srv, method, path, { cookie: p.cookies[who], project: 'default', body })
  const flag = async (key: string) => (await asToken('GET', `/api/v1/flags/${key}/definition`)).body.flag
  const expectError = (res: ApiResponse, status: number, code: string) =>
    expect({ status: res.status, code: res.body?.code }).toEqual({ status, code })
  const item = (key: string, description: string) => ({ resource_type: 'flag', key, action: 'update', body: { description } })
  const review = (who: string, id: string, revision = 1) =>
    as(who, 'POST', `/api/v1/change-requests/${id}/reviews`, { decision: 'approve', revision })
  const get = async (id: string) => (await asToken('GET', `/api/v1/change-requests/${id}`)).body.change_request
  const proposeAs = async (who: string, key: string, description: string, extra: Record<string, unknown> = {}) => {
    const res = await as(who, 'POST', '/api/v1/change-requests', { title: description, items: [item(key, description)], ...extra })
    expect(res.status).toBe(201)
    return res.body.change_request
  }
  /** A machine token made through the route `creator` uses (a cookie, or a token). */
  const machineToken = async (creator: { cookie?: string; token?: string }, permissions = ['*']) => {
    const res = await sapi(p.srv, 'POST', '/api/v1/tokens', {
      ...creator,
      project: 'default',
      body: { name: 'ci', project_id: 'default', permissions },
    })
    expect(res.status).toBe(201)
    return res.body.token as string
  }

  beforeAll(async () => {
    p = await startWithPeople([
      { email: ADMIN, role: 'admin', token: ['*'] },
      { email: ALICE, role: 'editor' },
      { email: BOB, role: 'editor' },
      { email: CAROL, role: 'editor' },
      { email: DAN, role: 'editor' },
      { email: OWNER, instanceRole: 'owner' },
    ])
    for (const key of ['checkout', 'banner', 'search', 'later', 'legacy'])
      expect((await asToken('POST', '/api/v1/flags', { key, enabled: false })).status).toBe(201)
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

  const OWN_MACHINE_TOKEN =
    'an admin proposing with a machine token they made cannot approve it ' + 'with their session, a second session or a personal token'
  test(OWN_MACHINE_TOKEN, async () => {
    const ci = await machineToken({ cookie: p.cookies[ADMIN] })
    const listed = (await asToken('GET', '/api/v1/tokens?limit=100')).body.tokens.find((t: { token_prefix: string }) =>
      ci.startsWith(t.token_prefix),
    )
    expect(listed.created_by).toBe(p.ids[ADMIN])
    const res = await asToken('POST', '/api/v1/change-requests', { title: 'CI change', items: [item('checkout', 'by ci')] }, ci)
    expect(res.status).toBe(201)
    const cr = res.body.change_request
    expect(cr.author).toMatchObject({ id: p.ids[ADMIN], email: ADMIN })
    expectError(await review(ADMIN, cr.id), 403, 'SELF_APPROVAL')
    const second = await signIn(p.srv, ADMIN)
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
      await asToken('POST', `/api/v1/change-requests/${cr.id}/reviews`, { decision: 'reject', revision: 1 }, p.tokens[ADMIN]),
      403,
      'SELF_APPROVAL',
    )
    // a machine token made by that machine token is still the admin's
    const grandchild = await machineToken({ token: ci })
    const res2 = await asToken('POST', '/api/v1/change-requests', { title: 'CI change 2', items: [item('banner', 'by ci 2')] }, grandchild)
    expectError(await review(ADMIN, res2.body.change_request.id), 403, 'SELF_APPROVAL')
    // the admin's inbox does not offer their own requests
    const inbox = (await as(ADMIN, 'GET', '/api/v1/change-requests?awaiting=me')).body.change_requests.map((c: { id: string }) => c.id)
    expect(inbox).not.toContain(cr.id)
    expect((await get(cr.id)).state).toBe('open')
    expect((await flag('checkout')).description).toBeUndefined()
    // someone else approves; the machine token applies its own request
    expect((await review(BOB, cr.id)).body.change_request.state).toBe('approved')
    const applied = await asToken('POST', `/api/v1/change-requests/${cr.id}/apply`, { revision: 1 }, ci)
    expect(applied.status).toBe(200)
    expect((await flag('checkout')).description).toBe('by ci')
  })

  test('a machine token made by the bootstrap token has no creator: reviewed by anyone else as before', async () => {
    const bootstrapMade = await machineToken({ token: p.srv.adminToken })
    const res = await asToken('POST', '/api/v1/change-requests', { title: 'bootstrap-made', items: [item('legacy', 'x')] }, bootstrapMade)
    expect(res.body.change_request.author).toMatchObject({ id: null })
    expect((await review(ADMIN, res.body.change_request.id)).status).toBe(200)
  })

  const DEMOTED_AUTHOR =
    'an author demoted to viewer cannot have their request applied: ' + 'failed with AUTHOR_LACKS_RIGHTS, audited, nothing written'
  test(DEMOTED_AUTHOR, async () => {
    const cr = await proposeAs(ALICE, 'search', 'by alice')
    expect((await review(BOB, cr.id)).body.change_request.state).toBe('approved')
    expect((await as(ADMIN, 'PUT', `/api/v1/project/members/${p.ids[ALICE]}`, { role: 'viewer' })).status).toBe(200)
    const res = await as(BOB, 'POST', `/api/v1/change-requests/${cr.id}/apply`, { revision: 1 })
    expectError(res, 409, 'AUTHOR_LACKS_RIGHTS')
    const after = await get(cr.id)
    expect(after).toMatchObject({ state: 'failed', error: { code: 'AUTHOR_LACKS_RIGHTS' } })
    expect((await flag('search')).description).toBeUndefined()
    const audit = (await asToken('GET', `/api/v1/audit?resource_type=change_request&resource_key=${cr.id}`)).body.entries
    expect(audit[0]).toMatchObject({ actor: BOB })
    expectError(await as(BOB, 'POST', `/api/v1/change-requests/${cr.id}/apply`, { revision: 1 }), 409, 'INVALID_STATE')
    const hook = (await asToken('GET', '/api/v1/webhooks')).body.webhooks[0]
    expect(
      (await asToken('GET', `/api/v1/webhooks/${hook.id}/deliveries`)).body.deliveries.map((d: { event: string }) => d.event),
    ).toContain('change_request.failed')
  })

  test('a disabled author and a deleted author: AUTHOR_LACKS_RIGHTS', async () => {
    const byCarol = await proposeAs(CAROL, 'banner', 'by carol')
    const byDan = await proposeAs(DAN, 'banner', 'by dan')
    expect((await review(BOB, byCarol.id)).body.change_request.state).toBe('approved')
    expect((await review(BOB, byDan.id)).body.change_request.state).toBe('approved')
    expect((await as(OWNER, 'PATCH', `/api/v1/admin/users/${p.ids[CAROL]}`, { disabled: true })).status).toBe(200)
    expect((await as(OWNER, 'DELETE', `/api/v1/admin/users/${p.ids[DAN]}`)).status).toBe(200)
    const before = await flag('banner')
    expectError(await as(BOB, 'POST', `/api/v1/change-requests/${byCarol.id}/apply`, { revision: 1 }), 409, 'AUTHOR_LACKS_RIGHTS')
    expectError(await as(BOB, 'POST', `/api/v1/change-requests/${byDan.id}/apply`, { revision: 1 }), 409, 'AUTHOR_LACKS_RIGHTS')
    expect(await flag('banner')).toEqual(before)
    expect([(await get(byCarol.id)).state, (await get(byDan.id)).state]).toEqual(['failed', 'failed'])
  })

  test('a revoked machine token: its request fails at apply', async () => {
    const ci = await machineToken({ token: p.srv.adminToken }, ['read:flags', 'write:flags'])
    const cr = (await asToken('POST', '/api/v1/change-requests', { title: 'ci', items: [item('legacy', 'by revoked ci')] }, ci)).body
      .change_request
    expect((await review(BOB, cr.id)).body.change_request.state).toBe('approved')
    const hash = (await asToken('GET', '/api/v1/tokens?limit=100')).body.tokens.find((t: { token_prefix: string }) =>
      ci.startsWith(t.token_prefix),
    ).hash
    expect((await asToken('DELETE', `/api/v1/tokens/${hash}`)).status).toBe(200)
    expectError(await as(BOB, 'POST', `/api/v1/change-requests/${cr.id}/apply`, { revision: 1 }), 409, 'AUTHOR_LACKS_RIGHTS')
    expect((await get(cr.id)).error).toMatchObject({ code: 'AUTHOR_LACKS_RIGHTS' })
    expect((await flag('legacy')).description).toBeUndefined()
  })

  test('a scheduled request whose author was demoted fails at its time', async () => {
    expect((await as(ADMIN, 'PUT', `/api/v1/project/members/${p.ids[BOB]}`, { role: 'editor' })).status).toBe(200)
    const member = await as(ADMIN, 'PUT', `/api/v1/project/members/${p.ids[ALICE]}`, { role: 'editor' })
    expect(member.status).toBe(200)
    const cr = await proposeAs(ALICE, 'later', 'scheduled by alice', { apply_at: new Date(Date.now() + 2500).toISOString() })
    expect((await review(BOB, cr.id)).body.change_request.state).toBe('scheduled')
    expect((await as(ADMIN, 'PUT', `/api/v1/project/members/${p.ids[ALICE]}`, { role: 'viewer' })).status).toBe(200)
    let state = 'scheduled'
    for (let i = 0; i < 150 && state === 'scheduled'; i++) {
      await Bun.sleep(100)
      state = (await get(cr.id)).state
    }
    expect(await get(cr.id)).toMatchObject({ state: 'failed', error: { code: 'AUTHOR_LACKS_RIGHTS' } })
    expect((await flag('later')).description).toBeUndefined()
  })
})
