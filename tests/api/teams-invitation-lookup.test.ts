// An invitation's accept page says what it is for (teams.md §6): POST /api/v1/auth/invitations/lookup
// { token } answers the email, instance role, projects (id, slug, name, role, environments) and expiry to
// whoever holds the secret token, and the same 410 INVITATION_GONE as accepting for a wrong, used,
// withdrawn or expired one, throttled per address like accepting. The list marks accepted invitations.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { PASSWORD, sapi, setupOwner } from '../helpers/teams'

describe('invitation lookup', () => {
  let srv: TestServer
  let owner: string
  beforeAll(async () => {
    srv = await startServer()
    owner = await setupOwner(srv)
    expect((await sapi(srv, 'POST', '/api/v1/projects', { cookie: owner, body: { name: 'Mobile app', slug: 'mobile' } })).status).toBe(201)
  })
  afterAll(() => srv.stop())

  const invite = async (email: string, body: Record<string, unknown> = {}) => {
    const res = await sapi(srv, 'POST', '/api/v1/invitations', { cookie: owner, body: { email, ...body } })
    expect(res.status).toBe(201)
    return res.body as { id: string; token: string; expires_at: string }
  }
  const lookup = (token: unknown) => sapi(srv, 'POST', '/api/v1/auth/invitations/lookup', { body: { token } })

  test('the token holder learns the email, roles, projects and expiry, and nothing else', async () => {
    const inv = await invite('ivy@example.com', {
      instance_role: 'admin',
      projects: [
        { project: 'default', role: 'editor', environments: { production: 'viewer' } },
        { project: 'mobile', role: 'viewer' },
      ],
    })
    const res = await lookup(inv.token)
    expect(res.status).toBe(200)
    const mobileId = (await sapi(srv, 'GET', '/api/v1/projects', { cookie: owner })).body.projects.find(
      (p: { slug: string }) => p.slug === 'mobile',
    ).id
    const defaultName = (await sapi(srv, 'GET', '/api/v1/projects', { cookie: owner })).body.projects.find(
      (p: { slug: string }) => p.slug === 'default',
    ).name
    expect(res.body).toEqual({
      email: 'ivy@example.com',
      instance_role: 'admin',
      expires_at: inv.expires_at,
      projects: [
        { id: 'default', slug: 'default', name: defaultName, role: 'editor', environments: { production: 'viewer' } },
        { id: mobileId, slug: 'mobile', name: 'Mobile app', role: 'viewer', environments: {} },
      ],
    })
    // It neither uses the invitation nor signs anyone in.
    expect(res.headers.get('set-cookie')).toBeNull()
    expect((await lookup(inv.token)).status).toBe(200)
  })

  test('a wrong, used or withdrawn token: 410 INVITATION_GONE, the same as accepting; the list marks the accepted one', async () => {
    for (const token of ['x'.repeat(43), '', 'x'.repeat(129)]) {
      const res = await lookup(token)
      expect(res.status).toBe(token.length > 128 ? 400 : 410)
    }
    expect((await lookup(12)).status).toBe(400)
    const used = await invite('used@example.com', { projects: [{ project: 'default', role: 'viewer' }] })
    expect(
      (await sapi(srv, 'POST', '/api/v1/auth/invitations/accept', { body: { token: used.token, name: 'Used', password: PASSWORD } }))
        .status,
    ).toBe(201)
    const gone = await lookup(used.token)
    expect(gone.status).toBe(410)
    expect(gone.body.code).toBe('INVITATION_GONE')
    const listed = (await sapi(srv, 'GET', '/api/v1/invitations', { cookie: owner })).body.invitations.find(
      (i: { id: string }) => i.id === used.id,
    )
    expect(typeof listed.accepted_at).toBe('string')
    const withdrawn = await invite('withdrawn@example.com', { projects: [{ project: 'default', role: 'viewer' }] })
    expect((await sapi(srv, 'DELETE', `/api/v1/invitations/${withdrawn.id}`, { cookie: owner })).status).toBe(200)
    expect((await lookup(withdrawn.token)).status).toBe(410)
  })

  test('throttled per client address like accepting (30 a minute)', async () => {
    const statuses = []
    for (let i = 0; i < 32; i++) statuses.push((await lookup(`guess-${i}`)).status)
    expect(statuses).toContain(429)
    expect(statuses.filter((s) => s !== 410 && s !== 429)).toEqual([])
  })
})
