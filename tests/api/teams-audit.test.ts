// The audit names people (teams.md §6): project entries carry actor (email), actor_type and credential
// (session or the personal token's prefix) and filter by actor; the instance log records sign-ins,
// failures, sign-outs, users, invitations and projects; no password, hash, secret or code in either.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, startServer, type TestServer } from '../helpers/server'
import { cookieOf, PASSWORD, sapi, setupOwner } from '../helpers/teams'

const OWNER = 'owner@example.com'

describe('audit with people', () => {
  let srv: TestServer
  let owner: string
  let pat: string
  let inviteToken: string
  beforeAll(async () => {
    srv = await startServer()
    owner = await setupOwner(srv, OWNER)
  })
  afterAll(() => srv.stop())

  test('project entries name the person and the credential; tokens stay tokens; ?actor= filters', async () => {
    expect(
      (await sapi(srv, 'POST', '/api/v1/flags', { cookie: owner, project: 'default', body: { key: 'by-session', enabled: true } })).status,
    ).toBe(201)
    const made = await sapi(srv, 'POST', '/api/v1/me/tokens', {
      cookie: owner,
      body: { name: 'laptop', project: 'default', permissions: ['write:flags', 'read:flags'] },
    })
    pat = made.body.token
    expect((await api(srv, 'POST', '/api/v1/flags', { token: pat, body: { key: 'by-pat', enabled: true } })).status).toBe(201)
    expect((await api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: { key: 'by-token', enabled: true } })).status).toBe(201)
    const entries = (await api(srv, 'GET', '/api/v1/audit?resource_type=flag', { token: srv.adminToken })).body.entries
    const of = (key: string) => entries.find((e: { resource_key: string }) => e.resource_key === key)
    expect(of('by-session')).toMatchObject({ actor: OWNER, actor_type: 'user', credential: 'session' })
    expect(of('by-pat')).toMatchObject({ actor: OWNER, actor_type: 'user', credential: made.body.meta.token_prefix })
    expect(of('by-token')).toMatchObject({ actor: srv.adminToken.slice(0, 12), actor_type: 'token', credential: null })
    const mine = (await api(srv, 'GET', `/api/v1/audit?actor=${encodeURIComponent(OWNER)}&resource_type=flag`, { token: srv.adminToken }))
      .body.entries
    expect(mine.map((e: { resource_key: string }) => e.resource_key).sort()).toEqual(['by-pat', 'by-session'])
  })

  test('the instance log records sign-ins, failures, sign-outs, invitations, users and projects', async () => {
    expect((await sapi(srv, 'POST', '/api/v1/auth/login', { body: { email: OWNER, password: 'wrong password!!' } })).status).toBe(401)
    const again = cookieOf(await sapi(srv, 'POST', '/api/v1/auth/login', { body: { email: OWNER, password: PASSWORD } }))
    await sapi(srv, 'POST', '/api/v1/auth/logout', { cookie: again })
    const inv = await sapi(srv, 'POST', '/api/v1/invitations', {
      cookie: owner,
      body: { email: 'new@example.com', projects: [{ project: 'default', role: 'viewer' }] },
    })
    inviteToken = inv.body.token
    await sapi(srv, 'POST', '/api/v1/auth/invitations/accept', { body: { token: inviteToken, name: 'New', password: PASSWORD } })
    await sapi(srv, 'POST', '/api/v1/projects', { cookie: owner, body: { name: 'Shop', slug: 'shop' } })
    const log = await sapi(srv, 'GET', '/api/v1/admin/audit?limit=100', { cookie: owner })
    expect(log.status).toBe(200)
    const seen = new Set(log.body.entries.map((e: { action: string; resource_type: string }) => `${e.action} ${e.resource_type}`))
    for (const kind of [
      'setup user',
      'sign_in session',
      'sign_in_failed session',
      'sign_out session',
      'create invitation',
      'accept invitation',
      'create user',
      'create project',
    ])
      expect(seen).toContain(kind)
    const failures = await sapi(srv, 'GET', '/api/v1/admin/audit?action=sign_in_failed', { cookie: owner })
    expect(failures.body.entries.every((e: { action: string }) => e.action === 'sign_in_failed')).toBe(true)
    expect(
      (await sapi(srv, 'GET', `/api/v1/admin/audit?actor=${encodeURIComponent('new@example.com')}`, { cookie: owner })).body.entries.length,
    ).toBeGreaterThan(0)
  })

  test('no password, hash, token or code anywhere in either log, the lists or the service log', async () => {
    const texts = [
      (await sapi(srv, 'GET', '/api/v1/admin/audit?limit=1000', { cookie: owner })).text,
      (await api(srv, 'GET', '/api/v1/audit?limit=1000', { token: srv.adminToken })).text,
      (await sapi(srv, 'GET', '/api/v1/admin/users', { cookie: owner })).text,
      (await sapi(srv, 'GET', '/api/v1/invitations', { cookie: owner })).text,
      (await sapi(srv, 'GET', '/api/v1/me/tokens', { cookie: owner })).text,
      (await sapi(srv, 'GET', '/api/v1/me/sessions', { cookie: owner })).text,
      srv.output().replace(/^setup code: .*$/m, ''),
    ]
    const session = owner.split('=')[1]!
    for (const text of texts) {
      for (const secret of [PASSWORD, 'wrong password!!', pat, inviteToken, session, '$argon2']) expect(text).not.toContain(secret)
      expect(text).not.toMatch(/password_hash|passwordHash|"hash":"[0-9a-f]{64}".*session/)
    }
  })
})
