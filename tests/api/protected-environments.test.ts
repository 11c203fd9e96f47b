// Protected environments (docs/change-requests.md §1) through HTTP against real servers, on the store the
// suite runs on: the policy routes, the 409 CHANGE_REQUEST_REQUIRED gate on every direct route (nothing
// changed), break glass for project admins' sessions, and a schedule made before protection.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, type ApiResponse } from '../helpers/server'
import { sapi } from '../helpers/teams'
import { startWithPeople, type People } from '../helpers/people'

const ADMIN = 'admin@example.com'
const EDITOR = 'editor@example.com'
const REASON = 'incident 42: checkout is down'

describe('protected environments', () => {
  let p: People
  let token: string
  const asToken = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    api(p.srv, method, path, { token, body, headers })
  const as = (who: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    sapi(p.srv, method, path, { cookie: p.cookies[who], project: 'default', body, headers })
  const definition = async (key: string) => (await asToken('GET', `/api/v1/flags/${key}/definition`)).body.flag
  const refused = (res: ApiResponse) => {
    expect(res.status).toBe(409)
    expect(res.body).toMatchObject({ code: 'CHANGE_REQUEST_REQUIRED', details: { environments: ['production'] } })
  }

  beforeAll(async () => {
    p = await startWithPeople([
      { email: ADMIN, role: 'admin' },
      { email: EDITOR, role: 'editor' },
    ])
    token = p.srv.adminToken
    const ok = (res: ApiResponse) => expect(res.status).toBeLessThan(300)
    ok(await asToken('POST', '/api/v1/flags', { key: 'checkout', enabled: false }))
    ok(await asToken('PUT', '/api/v1/flags/checkout', { enabled: true }))
    ok(await asToken('PUT', '/api/v1/flags/checkout/environments/production', { enabled: true }))
    ok(await asToken('POST', '/api/v1/flags', { key: 'old', enabled: false }))
    ok(await asToken('POST', '/api/v1/flags/old/archive'))
    ok(await asToken('POST', '/api/v1/configs', { key: 'limits', value: { max: 1 } }))
    ok(await asToken('PUT', '/api/v1/configs/limits/environments/production', { value: { max: 5 } }))
    ok(await asToken('POST', '/api/v1/segments', { key: 'beta', conditions: [{ property: 'plan', operator: 'equals', value: 'beta' }] }))
    ok(await asToken('POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/flags', events: ['*'] }))
  }, 120_000)
  afterAll(() => p.stop(), 60_000)

  test('a policy: read by anyone in the project, changed by project admins only, bounded, audited', async () => {
    expect((await as(EDITOR, 'GET', '/api/v1/project/environments/production/policy')).body).toMatchObject({
      environment: 'production',
      protected: false,
      required_approvals: 1,
      approver_role: 'editor',
    })
    const policy = { protected: true, required_approvals: 1, approver_role: 'editor' }
    expect((await as(EDITOR, 'PUT', '/api/v1/project/environments/production/policy', policy)).status).toBe(403)
    const writer = (
      await api(p.srv, 'POST', '/api/v1/tokens', {
        token,
        body: { name: 'ci', project_id: 'default', permissions: ['read:flags', 'write:flags', 'write:configs'] },
      })
    ).body.token
    expect((await api(p.srv, 'PUT', '/api/v1/project/environments/production/policy', { token: writer, body: policy })).status).toBe(403)
    for (const bad of [0, 6, 1.5])
      expect(
        (await as(ADMIN, 'PUT', '/api/v1/project/environments/production/policy', { ...policy, required_approvals: bad })).status,
      ).toBe(400)
    expect((await as(ADMIN, 'PUT', '/api/v1/project/environments/production/policy', { ...policy, approver_role: 'viewer' })).status).toBe(
      400,
    )
    expect((await as(ADMIN, 'PUT', '/api/v1/project/environments/nowhere/policy', policy)).status).toBe(404)
    expect((await as(EDITOR, 'GET', '/api/v1/project/environments/production/policy')).body.protected).toBe(false)

    const res = await as(ADMIN, 'PUT', '/api/v1/project/environments/production/policy', policy)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ environment: 'production', protected: true })
    const audit = (await asToken('GET', '/api/v1/audit?resource_type=project')).body.entries
    expect(audit[0]).toMatchObject({ actor: ADMIN, action: 'update', after: { policy: { environment: 'production', protected: true } } })
    const all = (await as(EDITOR, 'GET', '/api/v1/project/policies')).body.policies
    expect(all.map((x: { environment: string; protected: boolean }) => [x.environment, x.protected])).toEqual([
      ['development', false],
      ['staging', false],
      ['production', true],
    ])
  })

  test('every direct route that affects production answers 409 CHANGE_REQUEST_REQUIRED and changes nothing', async () => {
    const before = await definition('checkout')
    const rollbackTo = 1
    const routes: [string, string, unknown?][] = [
      ['POST', '/api/v1/flags', { key: 'fresh' }],
      // (a change that only stops serving passes as an emergency off: tests/api/emergency-off.test.ts)
      ['PUT', '/api/v1/flags/checkout', { description: 'changed' }],
      ['PUT', '/api/v1/flags/checkout/environments/production', { enabled: true, value: true }],
      ['DELETE', '/api/v1/flags/checkout/environments/production'],
      ['POST', '/api/v1/flags/checkout/archive'],
      ['POST', '/api/v1/flags/old/restore'],
      ['POST', '/api/v1/flags/checkout/rollback', { version: rollbackTo }],
      ['DELETE', '/api/v1/flags/checkout'],
      ['POST', '/api/v1/configs', { key: 'fresh', value: 1 }],
      ['PUT', '/api/v1/configs/limits', { value: { max: 2 } }],
      ['PUT', '/api/v1/configs/limits/environments/production', { value: { max: 3 } }],
      ['DELETE', '/api/v1/configs/limits/environments/production'],
      ['DELETE', '/api/v1/configs/limits'],
      ['POST', '/api/v1/segments', { key: 'fresh', conditions: [] }],
      ['PUT', '/api/v1/segments/beta', { conditions: [] }],
      ['DELETE', '/api/v1/segments/beta'],
      ['POST', '/api/v1/flags/checkout/schedules', { at: new Date(Date.now() + 3600_000).toISOString(), change: { enabled: false } }],
      [
        'POST',
        '/api/v1/flags/checkout/schedules',
        { at: new Date(Date.now() + 3600_000).toISOString(), change: { environment: 'production', override: { enabled: false } } },
      ],
    ]
    for (const [method, path, body] of routes) {
      refused(await asToken(method, path, body))
      // a person (editor session) is refused alike
      refused(await as(EDITOR, method, path, body))
    }
    // flags as code: an import apply (a create affects every environment) and a promotion into production
    const imported = { flagship: 1, flags: [{ key: 'imported', enabled: true, value: true }] }
    refused(await asToken('POST', '/api/v1/import?mode=apply', imported))
    refused(await as(EDITOR, 'POST', '/api/v1/import?mode=apply', imported))
    expect((await asToken('POST', '/api/v1/import?mode=plan', imported)).status).toBe(200)
    refused(await asToken('POST', '/api/v1/promote', { from: 'staging', to: 'production', flags: ['checkout'] }))
    expect((await asToken('GET', '/api/v1/flags/imported/definition')).status).toBe(404)
    expect(await definition('checkout')).toEqual(before)
    expect((await asToken('GET', '/api/v1/configs/limits/definition')).status).not.toBe(404)
    expect((await asToken('GET', '/api/v1/flags/fresh/definition')).status).toBe(404)
    expect((await asToken('GET', '/api/v1/schedules')).body.schedules).toEqual([])
    // an unprotected environment stays directly writable
    expect((await asToken('PUT', '/api/v1/flags/checkout/environments/development', { enabled: true })).status).toBe(200)
    expect(
      (
        await asToken('POST', '/api/v1/flags/checkout/schedules', {
          at: new Date(Date.now() + 3600_000).toISOString(),
          change: { environment: 'staging', override: { enabled: true } },
        })
      ).status,
    ).toBe(201)
  })

  test('break glass: a project admin session with a reason writes, audited with the reason and announced', async () => {
    const res = await as(
      ADMIN,
      'PUT',
      '/api/v1/flags/checkout/environments/production',
      { enabled: false },
      { 'Flagship-Bypass-Reason': REASON },
    )
    expect(res.status).toBe(200)
    expect((await definition('checkout')).environments.production).toEqual({ enabled: false })
    expect(res.body.override).toEqual({ enabled: false })
    const entry = (await asToken('GET', '/api/v1/audit?resource_type=flag&resource_key=checkout')).body.entries[0]
    expect(entry).toMatchObject({ actor: ADMIN, details: { bypass_reason: REASON } })
    const hook = (await asToken('GET', '/api/v1/webhooks')).body.webhooks[0]
    const events = (await asToken('GET', `/api/v1/webhooks/${hook.id}/deliveries`)).body.deliveries.map((d: { event: string }) => d.event)
    expect(events).toContain('change_request.bypassed')
  })

  test('break glass refused: without a reason, a reason out of bounds, another role, any token', async () => {
    const before = await definition('checkout')
    refused(await as(ADMIN, 'PUT', '/api/v1/flags/checkout', { description: 'changed' }))
    for (const reason of ['too short', 'x'.repeat(501)]) {
      const res = await as(ADMIN, 'PUT', '/api/v1/flags/checkout', { description: 'changed' }, { 'Flagship-Bypass-Reason': reason })
      expect(res.status).toBe(400)
    }
    const editor = await as(EDITOR, 'PUT', '/api/v1/flags/checkout', { description: 'changed' }, { 'Flagship-Bypass-Reason': REASON })
    expect(editor.status).toBe(403)
    refused(await asToken('PUT', '/api/v1/flags/checkout', { description: 'changed' }, { 'Flagship-Bypass-Reason': REASON }))
    expect(await definition('checkout')).toEqual(before)
  })
})

describe('a schedule made before its environment became protected', () => {
  let p: People
  afterAll(() => p.stop(), 60_000)
  test('is refused at its time: failed, CHANGE_REQUEST_REQUIRED, nothing written', async () => {
    p = await startWithPeople([{ email: ADMIN, role: 'admin' }])
    const token = p.srv.adminToken
    expect((await api(p.srv, 'POST', '/api/v1/flags', { token, body: { key: 'checkout', enabled: false } })).status).toBe(201)
    const at = new Date(Date.now() + 1500).toISOString()
    const created = await api(p.srv, 'POST', '/api/v1/flags/checkout/schedules', {
      token,
      body: { at, change: { environment: 'production', override: { enabled: true } } },
    })
    expect(created.status).toBe(201)
    expect(
      (
        await sapi(p.srv, 'PUT', '/api/v1/project/environments/production/policy', {
          cookie: p.cookies[ADMIN],
          project: 'default',
          body: { protected: true, required_approvals: 1, approver_role: 'editor' },
        })
      ).status,
    ).toBe(200)
    let schedule = created.body.schedule
    for (let i = 0; i < 200 && schedule.status === 'pending'; i++) {
      await Bun.sleep(50)
      schedule = (await api(p.srv, 'GET', `/api/v1/schedules/${schedule.id}`, { token })).body
    }
    expect(schedule).toMatchObject({ status: 'failed', error: { code: 'CHANGE_REQUEST_REQUIRED' } })
    expect((await api(p.srv, 'GET', '/api/v1/flags/checkout/definition', { token })).body.flag.environments).toBeUndefined()
  }, 120_000)
})
