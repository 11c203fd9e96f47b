// Roles, environment rights, token scopes, personal tokens, invitations, members, projects and the last
// owner (teams.md §1-2, §4, §6, §8) through HTTP against a real server.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, startServer, type TestServer } from '../helpers/server'
import { cookieOf, PASSWORD, sapi, setupOwner } from '../helpers/teams'

let srv: TestServer
let owner: string
const users: Record<string, { id: string; cookie: string }> = {}

/** Invites `email` (by the owner unless `by`), accepts, returns the new user's id and cookie. */
async function invite(email: string, body: Record<string, unknown>, by = owner) {
  const inv = await sapi(srv, 'POST', '/api/v1/invitations', { cookie: by, body: { email, ...body } })
  if (inv.status !== 201) throw new Error(`invite ${email}: ${inv.status} ${inv.text}`)
  const res = await sapi(srv, 'POST', '/api/v1/auth/invitations/accept', {
    body: { token: inv.body.token, name: email.split('@')[0], password: PASSWORD },
  })
  if (res.status !== 201) throw new Error(`accept ${email}: ${res.status} ${res.text}`)
  return { id: res.body.user.id as string, cookie: cookieOf(res) }
}

const as = (who: string, method: string, path: string, body?: unknown, project = 'default') =>
  sapi(srv, method, path, { cookie: users[who]!.cookie, project, body })

beforeAll(async () => {
  srv = await startServer()
  owner = await setupOwner(srv)
  await api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: { key: 'f', enabled: false } })
  await api(srv, 'POST', '/api/v1/segments', { token: srv.adminToken, body: { key: 's', conditions: [] } })
  users.viewer = await invite('viewer@example.com', { projects: [{ project: 'default', role: 'viewer' }] })
  users.editor = await invite('editor@example.com', {
    projects: [{ project: 'default', role: 'editor', environments: { production: 'viewer' } }],
  })
  users.padmin = await invite('padmin@example.com', { projects: [{ project: 'default', role: 'admin' }] })
  users.iadmin = await invite('iadmin@example.com', { instance_role: 'admin' })
})
afterAll(() => srv.stop())

describe('invitations', () => {
  test('the token is shown once; lists never show it; a used invitation is 410 INVITATION_GONE', async () => {
    const inv = await sapi(srv, 'POST', '/api/v1/invitations', { cookie: owner, body: { email: 'once@example.com' } })
    expect(inv.status).toBe(201)
    expect(inv.body.url).toBe(`${srv.url}/invite/${inv.body.token}`)
    const list = await sapi(srv, 'GET', '/api/v1/invitations', { cookie: owner })
    expect(list.text).not.toContain(inv.body.token)
    expect(list.text).not.toContain('hash')
    const accept = () =>
      sapi(srv, 'POST', '/api/v1/auth/invitations/accept', { body: { token: inv.body.token, name: 'Once', password: PASSWORD } })
    expect((await accept()).status).toBe(201)
    const again = await accept()
    expect(again.status).toBe(410)
    expect(again.body.code).toBe('INVITATION_GONE')
    const unknown = await sapi(srv, 'POST', '/api/v1/auth/invitations/accept', {
      body: { token: 'x'.repeat(43), name: 'X', password: PASSWORD },
    })
    expect(unknown.status).toBe(410)
  })

  test('nobody invites above their own rights', async () => {
    const asPadminAdmin = await sapi(srv, 'POST', '/api/v1/invitations', {
      cookie: users.padmin!.cookie,
      body: { email: 'up@example.com', instance_role: 'admin', projects: [{ project: 'default', role: 'viewer' }] },
    })
    expect(asPadminAdmin.status).toBe(403)
    const asAdminOwner = await sapi(srv, 'POST', '/api/v1/invitations', {
      cookie: users.iadmin!.cookie,
      body: { email: 'up@example.com', instance_role: 'owner' },
    })
    expect(asAdminOwner.status).toBe(403)
    const asEditor = await sapi(srv, 'POST', '/api/v1/invitations', {
      cookie: users.editor!.cookie,
      body: { email: 'up@example.com', projects: [{ project: 'default', role: 'viewer' }] },
    })
    expect(asEditor.status).toBe(403)
    // A project admin may invite to their project.
    const ok = await sapi(srv, 'POST', '/api/v1/invitations', {
      cookie: users.padmin!.cookie,
      body: { email: 'up@example.com', projects: [{ project: 'default', role: 'editor' }] },
    })
    expect(ok.status).toBe(201)
  })
})

describe('a viewer', () => {
  test('reads, and every kind of change is refused (403 FORBIDDEN), nothing changed', async () => {
    expect((await as('viewer', 'GET', '/api/v1/flags')).status).toBe(200)
    expect((await as('viewer', 'GET', '/api/v1/flags/f/definition')).status).toBe(200)
    const attempts: [string, string, unknown?][] = [
      ['POST', '/api/v1/flags', { key: 'v', enabled: true }],
      ['PUT', '/api/v1/flags/f', { enabled: true }],
      ['PUT', '/api/v1/flags/f/environments/staging', { enabled: true }],
      ['DELETE', '/api/v1/flags/f'],
      ['POST', '/api/v1/flags/f/archive'],
      ['POST', '/api/v1/segments', { key: 'x', conditions: [] }],
      ['POST', '/api/v1/flags/f/schedules', { at: new Date(Date.now() + 3_600_000).toISOString(), change: { enabled: true } }],
      ['POST', '/api/v1/configs', { key: 'c', value: 1 }],
      ['GET', '/api/v1/tokens'],
      ['GET', '/api/v1/project/members'],
      ['POST', '/api/v1/tokens', { name: 'x', project_id: 'default', permissions: ['read:flags'] }],
    ]
    for (const [method, path, body] of attempts) {
      const res = await as('viewer', method, path, body)
      expect({ route: `${method} ${path}`, status: res.status, code: res.body?.code }).toEqual({
        route: `${method} ${path}`,
        status: 403,
        code: 'FORBIDDEN',
      })
      expect(res.body.details.required).toBeDefined()
    }
    expect((await api(srv, 'GET', '/api/v1/flags/f/definition', { token: srv.adminToken })).body.flag.version).toBe(1)
  })
})

describe('an editor with production read-only', () => {
  test('changes staging only; anything affecting production is 403 ENVIRONMENT_FORBIDDEN naming it', async () => {
    expect((await as('editor', 'PUT', '/api/v1/flags/f/environments/staging', { enabled: true })).status).toBe(200)
    const refused: [string, string, unknown?][] = [
      ['PUT', '/api/v1/flags/f/environments/production', { enabled: true }],
      ['PUT', '/api/v1/flags/f', { enabled: true }],
      ['POST', '/api/v1/flags', { key: 'e', enabled: true }],
      ['POST', '/api/v1/flags/f/archive'],
      ['DELETE', '/api/v1/flags/f'],
      ['PUT', '/api/v1/segments/s', { conditions: [] }],
      [
        'POST',
        '/api/v1/flags/f/schedules',
        { at: new Date(Date.now() + 3_600_000).toISOString(), change: { environment: 'production', override: { enabled: true } } },
      ],
    ]
    for (const [method, path, body] of refused) {
      const res = await as('editor', method, path, body)
      expect({ route: `${method} ${path}`, status: res.status, code: res.body?.code }).toEqual({
        route: `${method} ${path}`,
        status: 403,
        code: 'ENVIRONMENT_FORBIDDEN',
      })
      expect(res.body.details.environments).toEqual(['production'])
    }
    const staged = await as('editor', 'POST', '/api/v1/flags/f/schedules', {
      at: new Date(Date.now() + 3_600_000).toISOString(),
      change: { environment: 'staging', override: { enabled: false } },
    })
    expect(staged.status).toBe(201)
    const flag = (await api(srv, 'GET', '/api/v1/flags/f/definition', { token: srv.adminToken })).body.flag
    expect(flag.environments.production).toBeUndefined()
    expect(flag.enabled).toBe(false)
  })
})

describe('a token with an environments scope', () => {
  test('writes only changes affecting its environments only; reads are unchanged', async () => {
    const create = await api(srv, 'POST', '/api/v1/tokens', {
      token: srv.adminToken,
      body: { name: 'staging-ci', project_id: 'default', permissions: ['read:flags', 'write:flags'], environments: ['staging'] },
    })
    expect(create.status).toBe(201)
    expect(create.body.meta.environments).toEqual(['staging'])
    const token = create.body.token
    expect((await api(srv, 'GET', '/api/v1/flags', { token })).status).toBe(200)
    expect((await api(srv, 'PUT', '/api/v1/flags/f/environments/staging', { token, body: { enabled: false } })).status).toBe(200)
    for (const [method, path, body] of [
      ['PUT', '/api/v1/flags/f/environments/production', { enabled: true }],
      ['PUT', '/api/v1/flags/f', { enabled: true }],
      ['POST', '/api/v1/flags', { key: 'tok', enabled: true }],
      ['PUT', '/api/v1/segments/s', { conditions: [] }],
    ] as const) {
      const res = await api(srv, method, path, { token, body })
      expect({ route: `${method} ${path}`, status: res.status, code: res.body?.code }).toEqual({
        route: `${method} ${path}`,
        status: 403,
        code: 'ENVIRONMENT_FORBIDDEN',
      })
    }
    // A scoped admin token cannot mint a broader one.
    const scopedAdmin = (
      await api(srv, 'POST', '/api/v1/tokens', {
        token: srv.adminToken,
        body: { name: 'scoped-admin', project_id: 'default', permissions: ['*'], environments: ['staging'] },
      })
    ).body.token
    const broader = await api(srv, 'POST', '/api/v1/tokens', {
      token: scopedAdmin,
      body: { name: 'broader', project_id: 'default', permissions: ['read:flags'] },
    })
    expect(broader.status).toBe(403)
    const unknownEnv = await api(srv, 'POST', '/api/v1/tokens', {
      token: srv.adminToken,
      body: { name: 'x', project_id: 'default', permissions: ['write:flags'], environments: ['nope'] },
    })
    expect(unknownEnv.status).toBe(400)
  })
})

describe('personal access tokens', () => {
  test('bounded by the owner: never above their role at creation, and their current rights at every request', async () => {
    const tooMuch = await as('editor', 'POST', '/api/v1/me/tokens', { name: 'mine', project: 'default', permissions: ['*'] })
    expect(tooMuch.status).toBe(403)
    const made = await as('editor', 'POST', '/api/v1/me/tokens', {
      name: 'mine',
      project: 'default',
      permissions: ['read:flags', 'write:flags'],
    })
    expect(made.status).toBe(201)
    expect(Date.parse(made.body.meta.expires_at) - Date.now()).toBeGreaterThan(89 * 86_400_000)
    const pat = made.body.token
    expect((await api(srv, 'GET', '/api/v1/me', { token: pat })).body).toMatchObject({ kind: 'token', owner: 'editor@example.com' })
    expect((await api(srv, 'PUT', '/api/v1/flags/f/environments/staging', { token: pat, body: { enabled: true } })).status).toBe(200)
    // The owner's production read-only applies to the token too.
    expect((await api(srv, 'PUT', '/api/v1/flags/f/environments/production', { token: pat, body: { enabled: true } })).status).toBe(403)
    const tooLong = await as('editor', 'POST', '/api/v1/me/tokens', {
      name: 'long',
      project: 'default',
      permissions: ['read:flags'],
      expires_at: new Date(Date.now() + 400 * 86_400_000).toISOString(),
    })
    expect(tooLong.status).toBe(400)
    // Demoted to viewer: the token can no longer write.
    expect(
      (
        await sapi(srv, 'PUT', `/api/v1/project/members/${users.editor!.id}`, {
          cookie: owner,
          project: 'default',
          body: { role: 'viewer' },
        })
      ).status,
    ).toBe(200)
    const demoted = await api(srv, 'PUT', '/api/v1/flags/f/environments/staging', { token: pat, body: { enabled: false } })
    expect(demoted.status).toBe(403)
    expect((await api(srv, 'GET', '/api/v1/flags', { token: pat })).status).toBe(200)
    // Removed from the project: 401 at once.
    expect((await sapi(srv, 'DELETE', `/api/v1/project/members/${users.editor!.id}`, { cookie: owner, project: 'default' })).status).toBe(
      200,
    )
    expect((await api(srv, 'GET', '/api/v1/flags', { token: pat })).status).toBe(401)
    expect((await api(srv, 'GET', '/api/v1/flags/f', { token: pat })).status).toBe(401)
    // Back in, then the owner disabled: 401 again, and their session ends.
    await sapi(srv, 'PUT', `/api/v1/project/members/${users.editor!.id}`, {
      cookie: owner,
      project: 'default',
      body: { role: 'editor', environments: { production: 'viewer' } },
    })
    expect((await api(srv, 'GET', '/api/v1/flags', { token: pat })).status).toBe(200)
    expect((await sapi(srv, 'PATCH', `/api/v1/admin/users/${users.editor!.id}`, { cookie: owner, body: { disabled: true } })).status).toBe(
      200,
    )
    expect((await api(srv, 'GET', '/api/v1/flags', { token: pat })).status).toBe(401)
    expect((await as('editor', 'GET', '/api/v1/me')).status).toBe(401)
    const login = await sapi(srv, 'POST', '/api/v1/auth/login', { body: { email: 'editor@example.com', password: PASSWORD } })
    expect(login.status).toBe(401)
    expect(login.body.code).toBe('INVALID_CREDENTIALS')
    await sapi(srv, 'PATCH', `/api/v1/admin/users/${users.editor!.id}`, { cookie: owner, body: { disabled: false } })
    users.editor!.cookie = cookieOf(
      await sapi(srv, 'POST', '/api/v1/auth/login', { body: { email: 'editor@example.com', password: PASSWORD } }),
    )
  })
})

describe('members, access and projects', () => {
  test('a role change applies to the very next request of a session', async () => {
    expect((await as('viewer', 'PUT', '/api/v1/flags/f/environments/staging', { enabled: true })).status).toBe(403)
    await sapi(srv, 'PUT', `/api/v1/project/members/${users.viewer!.id}`, { cookie: owner, project: 'default', body: { role: 'editor' } })
    expect((await as('viewer', 'PUT', '/api/v1/flags/f/environments/staging', { enabled: true })).status).toBe(200)
    await sapi(srv, 'PUT', `/api/v1/project/members/${users.viewer!.id}`, { cookie: owner, project: 'default', body: { role: 'viewer' } })
    expect((await as('viewer', 'PUT', '/api/v1/flags/f/environments/staging', { enabled: true })).status).toBe(403)
  })

  test('GET /project/access: who can change production, and how', async () => {
    const res = await sapi(srv, 'GET', '/api/v1/project/access?environment=production', { cookie: owner, project: 'default' })
    expect(res.status).toBe(200)
    const emails = res.body.users.map((u: { user: { email: string } }) => u.user.email)
    expect(emails).toContain('owner@example.com')
    expect(emails).toContain('padmin@example.com')
    expect(emails).not.toContain('editor@example.com')
    expect(emails).not.toContain('viewer@example.com')
    expect(res.body.users.find((u: { user: { email: string } }) => u.user.email === 'iadmin@example.com').via).toBe('instance')
    expect(res.body.tokens.some((t: { name: string }) => t.name === 'bootstrap admin')).toBe(true)
    expect(res.body.tokens.some((t: { name: string }) => t.name === 'staging-ci')).toBe(false)
    const staging = await sapi(srv, 'GET', '/api/v1/project/access?environment=staging', { cookie: owner, project: 'default' })
    expect(staging.body.users.map((u: { user: { email: string } }) => u.user.email)).toContain('editor@example.com')
    expect((await as('editor', 'GET', '/api/v1/project/access?environment=production')).status).toBe(403)
  })

  test('projects: created by instance admins, listed per person, ids of other projects answer 404', async () => {
    expect((await as('padmin', 'POST', '/api/v1/projects', { name: 'Nope', slug: 'nope' })).status).toBe(403)
    const made = await sapi(srv, 'POST', '/api/v1/projects', {
      cookie: users.iadmin!.cookie,
      body: { name: 'Shop', slug: 'shop', environments: ['dev', 'live'] },
    })
    expect(made.status).toBe(201)
    const shop = made.body.id
    expect(
      (await sapi(srv, 'POST', '/api/v1/flags', { cookie: owner, project: 'shop', body: { key: 'shop-flag', enabled: true } })).status,
    ).toBe(201)
    // The default project's members cannot see shop.
    expect((await as('padmin', 'GET', '/api/v1/flags', undefined, 'shop')).status).toBe(404)
    expect((await as('padmin', 'GET', '/api/v1/flags', undefined, shop)).status).toBe(404)
    expect((await as('padmin', 'GET', '/api/v1/projects')).body.projects.map((p: { slug: string }) => p.slug)).toEqual(['default'])
    expect((await sapi(srv, 'GET', '/api/v1/projects', { cookie: owner })).body.projects.map((p: { slug: string }) => p.slug)).toEqual([
      'default',
      'shop',
    ])
    // The default project's ids do not reach into shop.
    expect((await sapi(srv, 'GET', '/api/v1/flags/shop-flag/definition', { cookie: owner, project: 'default' })).status).toBe(404)
    expect((await as('padmin', 'DELETE', `/api/v1/project/members/${users.iadmin!.id}`)).status).toBe(404)
    expect((await api(srv, 'GET', '/api/v1/flags', { token: srv.adminToken, headers: { 'flagship-project': 'shop' } })).status).toBe(403)
    // Deleting: owners only, with the slug as confirmation.
    expect((await sapi(srv, 'DELETE', `/api/v1/projects/${shop}?confirm=shop`, { cookie: users.iadmin!.cookie })).status).toBe(403)
    expect((await sapi(srv, 'DELETE', `/api/v1/projects/${shop}`, { cookie: owner })).status).toBe(400)
    expect((await sapi(srv, 'DELETE', `/api/v1/projects/${shop}?confirm=default`, { cookie: owner })).status).toBe(400)
    expect((await sapi(srv, 'DELETE', `/api/v1/projects/${shop}?confirm=shop`, { cookie: owner })).status).toBe(200)
    expect((await sapi(srv, 'GET', '/api/v1/flags', { cookie: owner, project: 'shop' })).status).toBe(404)
  })
})

describe('the last owner', () => {
  test('cannot be demoted, disabled or deleted (409 LAST_OWNER); admins cannot touch owners', async () => {
    const me = (await sapi(srv, 'GET', '/api/v1/me', { cookie: owner })).body.user.id
    for (const [method, body] of [
      ['PATCH', { instance_role: 'admin' }],
      ['PATCH', { disabled: true }],
      ['DELETE', undefined],
    ] as const) {
      const res = await sapi(srv, method, `/api/v1/admin/users/${me}`, { cookie: owner, body })
      expect(res.status).toBe(409)
      expect(res.body.code).toBe('LAST_OWNER')
    }
    expect((await sapi(srv, 'PATCH', `/api/v1/admin/users/${me}`, { cookie: users.iadmin!.cookie, body: { disabled: true } })).status).toBe(
      403,
    )
    expect(
      (
        await sapi(srv, 'PATCH', `/api/v1/admin/users/${users.padmin!.id}`, {
          cookie: users.iadmin!.cookie,
          body: { instance_role: 'owner' },
        })
      ).status,
    ).toBe(403)
    expect((await as('padmin', 'GET', '/api/v1/admin/users')).status).toBe(403)
    // Removing people without the rights to (Flagsmith #3791): refused, nothing removed.
    expect((await as('padmin', 'DELETE', `/api/v1/admin/users/${users.viewer!.id}`)).status).toBe(403)
    expect((await as('editor', 'DELETE', `/api/v1/project/members/${users.viewer!.id}`)).status).toBe(403)
    expect((await as('viewer', 'PUT', `/api/v1/project/members/${users.viewer!.id}`, { role: 'admin' })).status).toBe(403)
    expect((await as('viewer', 'GET', '/api/v1/me')).status).toBe(200)
    expect((await api(srv, 'GET', '/api/v1/admin/users', { token: srv.adminToken })).status).toBe(403)
  })

  test('two owners demoting each other at the same moment: one stays owner', async () => {
    const second = await invite('owner2@example.com', { instance_role: 'owner' })
    const me = (await sapi(srv, 'GET', '/api/v1/me', { cookie: owner })).body.user.id
    const [a, b] = await Promise.all([
      sapi(srv, 'PATCH', `/api/v1/admin/users/${second.id}`, { cookie: owner, body: { instance_role: 'admin' } }),
      sapi(srv, 'PATCH', `/api/v1/admin/users/${me}`, { cookie: second.cookie, body: { instance_role: 'admin' } }),
    ])
    // One goes through; the other finds either the last owner (409 LAST_OWNER) or that its sender is no
    // longer an owner (403), depending on which the store served first.
    const statuses = [a.status, b.status].sort()
    expect(statuses[0], `${a.text} ${b.text}`).toBe(200)
    expect([403, 409]).toContain(statuses[1]!)
    const owners = (await sapi(srv, 'GET', '/api/v1/admin/users', { cookie: a.status === 200 ? owner : second.cookie })).body.users.filter(
      (u: { instance_role: string }) => u.instance_role === 'owner',
    )
    expect(owners).toHaveLength(1)
  })
})
