// Emergency off (docs/change-requests.md §1), through HTTP on the store the suite runs on: in a protected
// environment that allows it, a change whose only effect is to stop serving (a switch off, Turn off
// everywhere, a rollout lowered to 0) applies without review for anyone with write rights there, audited
// with `emergency: true`, sent as change_request.bypassed and listed as applied without review. Turning back
// on, or anything more than stopping, still needs a change request; so does every stop once the policy
// says no.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, type ApiResponse } from '../helpers/server'
import { sapi } from '../helpers/teams'
import { startWithPeople, type People } from '../helpers/people'

const ADMIN = 'admin@example.com'
const EDITOR = 'editor@example.com'
const STAGING_ONLY = 'dave@example.com' // editor in staging, viewer in production
const POLICY = '/api/v1/project/environments/production/policy'
const ROLLOUT = (percentage: number) => ({ rollout: { percentage, attribute: 'user_id' } })

describe('emergency off', () => {
  let p: People
  const asToken = (method: string, path: string, body?: unknown, t = p.srv.adminToken) => api(p.srv, method, path, { token: t, body })
  const as = (who: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    sapi(p.srv, method, path, { cookie: p.cookies[who], project: 'default', body, headers })
  const definition = async (key: string) => (await asToken('GET', `/api/v1/flags/${key}/definition`)).body.flag
  const refused = (res: ApiResponse) =>
    expect({ status: res.status, code: res.body?.code }).toEqual({ status: 409, code: 'CHANGE_REQUEST_REQUIRED' })
  const lastAudit = async (key: string) => (await asToken('GET', `/api/v1/audit?resource_type=flag&resource_key=${key}`)).body.entries[0]

  beforeAll(async () => {
    p = await startWithPeople([
      { email: ADMIN, role: 'admin' },
      { email: EDITOR, role: 'editor', token: ['read:flags', 'write:flags'] },
      { email: STAGING_ONLY, role: 'editor', environments: { production: 'viewer' } },
    ])
    const ok = (res: ApiResponse) => expect(res.status).toBeLessThan(300)
    for (const key of ['checkout', 'search', 'banner', 'locked']) {
      ok(await asToken('POST', '/api/v1/flags', { key, enabled: true, value: false, targeting: ROLLOUT(50) }))
      ok(await asToken('PUT', `/api/v1/flags/${key}/environments/production`, { enabled: true }))
    }
    ok(await asToken('POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/flags', events: ['*'] }))
    ok(await as(ADMIN, 'PUT', POLICY, { protected: true, required_approvals: 1, approver_role: 'editor' }))
    expect((await asToken('GET', POLICY)).body.allow_emergency_off).toBe(true)
  }, 120_000)
  afterAll(() => p.stop(), 60_000)

  const EDITOR_TURNS_OFF =
    "production's switch turned off by an editor: applied without review, audited, announced, listed; " + 'turning it on again is refused'
  test(EDITOR_TURNS_OFF, async () => {
    const res = await as(EDITOR, 'PUT', '/api/v1/flags/checkout/environments/production', { enabled: false })
    expect(res.status).toBe(200)
    expect((await definition('checkout')).environments.production).toEqual({ enabled: false })
    expect(await lastAudit('checkout')).toMatchObject({ actor: EDITOR, details: { emergency: true } })
    const hook = (await asToken('GET', '/api/v1/webhooks')).body.webhooks[0]
    const events = (await asToken('GET', `/api/v1/webhooks/${hook.id}/deliveries`)).body.deliveries.map((d: { event: string }) => d.event)
    expect(events).toContain('change_request.bypassed')
    const listed = (await as(EDITOR, 'GET', '/api/v1/change-requests/applied-without-review')).body.changes
    expect(listed[0]).toMatchObject({ resource_type: 'flag', resource_key: 'checkout', reason: 'emergency_off', actor: EDITOR })
    // back on: review needed
    refused(await as(EDITOR, 'PUT', '/api/v1/flags/checkout/environments/production', { enabled: true }))
    expect((await definition('checkout')).environments.production).toEqual({ enabled: false })
  })

  test('more than stopping is refused: off with a value, a description with the switch, a rule change', async () => {
    const before = await definition('search')
    refused(await as(EDITOR, 'PUT', '/api/v1/flags/search/environments/production', { enabled: false, value: true }))
    refused(await as(EDITOR, 'PUT', '/api/v1/flags/search', { enabled: false, description: 'and more' }))
    refused(await as(EDITOR, 'PUT', '/api/v1/flags/search', { targeting: { rollout: { percentage: 0, attribute: 'plan' } } }))
    refused(await as(EDITOR, 'PUT', '/api/v1/flags/search', { targeting: ROLLOUT(10) }))
    expect(await definition('search')).toEqual(before)
  })

  test('a rollout lowered to 0 passes; raised again it is refused', async () => {
    const res = await as(EDITOR, 'PUT', '/api/v1/flags/search', { targeting: ROLLOUT(0) })
    expect(res.status).toBe(200)
    expect((await definition('search')).targeting).toEqual(ROLLOUT(0))
    expect(await lastAudit('search')).toMatchObject({ details: { emergency: true } })
    refused(await as(EDITOR, 'PUT', '/api/v1/flags/search', { targeting: ROLLOUT(5) }))
  })

  test('Turn off everywhere works under protection, by a personal token too', async () => {
    const v = (await definition('banner')).version
    const res = await api(p.srv, 'POST', '/api/v1/flags/banner/turn-off', { token: p.tokens[EDITOR], headers: { 'if-match': `"${v}"` } })
    expect(res.status).toBe(200)
    const after = await definition('banner')
    expect([after.enabled, after.environments.production.enabled]).toEqual([false, false])
    expect(await lastAudit('banner')).toMatchObject({ details: { emergency: true } })
  })

  test('no write rights in production: still refused (403); a token limited to staging: 403', async () => {
    const before = await definition('locked')
    expect((await as(STAGING_ONLY, 'PUT', '/api/v1/flags/locked/environments/production', { enabled: false })).status).toBe(403)
    const staging = (
      await asToken('POST', '/api/v1/tokens', {
        name: 'staging',
        project_id: 'default',
        permissions: ['read:flags', 'write:flags'],
        environments: ['staging'],
      })
    ).body.token
    expect((await asToken('PUT', '/api/v1/flags/locked/environments/production', { enabled: false }, staging)).status).toBe(403)
    expect(await definition('locked')).toEqual(before)
  })

  test('a policy that does not allow emergency off: every stop needs a request', async () => {
    expect(
      (await asToken('PUT', POLICY, { protected: true, required_approvals: 1, approver_role: 'editor', allow_emergency_off: false }))
        .status,
    ).toBe(200)
    const before = await definition('locked')
    refused(await as(EDITOR, 'PUT', '/api/v1/flags/locked/environments/production', { enabled: false }))
    refused(await asToken('POST', '/api/v1/flags/locked/turn-off'))
    expect(await definition('locked')).toEqual(before)
    // break glass is listed as applied without review too
    const reason = 'incident 7: payments are failing'
    expect(
      (await as(ADMIN, 'PUT', '/api/v1/flags/locked/environments/production', { enabled: false }, { 'Flagship-Bypass-Reason': reason }))
        .status,
    ).toBe(200)
    const listed = (await asToken('GET', '/api/v1/change-requests/applied-without-review?limit=1')).body.changes
    expect(listed).toEqual([expect.objectContaining({ resource_key: 'locked', reason: 'break_glass', bypass_reason: reason })])
  })
})
