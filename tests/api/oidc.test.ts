// Single sign-on through HTTP against a real service and a real OpenID provider (oidc-provider under
// Node), signed in through the provider's own pages with a cookie-keeping client (teams.md §5, §8):
// auto-creation with group-mapped roles, linking by verified email only, allowed domains, the same-origin
// return_to rule, and every hostile callback: missing, mismatched (another browser), replayed state; a
// wrong nonce; a wrong PKCE verifier. None of the refusals leaves a session. Bad settings stop the start.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import * as client from 'openid-client'
import { api, startServer, type TestServer } from '../helpers/server'
import { CookieJar, ssoSignIn, startSsoPair, type TestProvider } from '../helpers/oidc-provider'
import { sapi, setupOwner } from '../helpers/teams'

const ROLE_MAP = {
  devs: { projects: { default: { role: 'editor', environments: { production: 'viewer' } } } },
  ops: { instance: 'admin' },
}

const me = (srv: TestServer, session: string, project?: string) => sapi(srv, 'GET', '/api/v1/me', { cookie: session, project })

describe('single sign-on through HTTP', () => {
  let srv: TestServer
  let provider: TestProvider
  let ownerId: string
  let owner: string
  beforeAll(async () => {
    ;({ srv, provider } = await startSsoPair(
      { OIDC_NAME: 'Acme SSO', OIDC_AUTO_CREATE: 'true', OIDC_ALLOWED_DOMAINS: 'example.com', OIDC_ROLE_MAP: JSON.stringify(ROLE_MAP) },
      {
        'owner-sub': { email: 'owner@example.com', email_verified: true, name: 'Owner' },
        impostor: { email: 'owner@example.com', email_verified: false, name: 'Not the owner' },
        dev1: { email: 'Dev1@Example.com', email_verified: true, name: 'Dev One', groups: ['devs', 'unmapped'] },
        ops1: { email: 'ops1@example.com', email_verified: true, name: 'Ops One', groups: ['ops'] },
        outsider: { email: 'someone@other.org', email_verified: true, name: 'Outsider' },
        unverified: { email: 'newbie@example.com', email_verified: false, name: 'Newbie' },
      },
    ))
    owner = await setupOwner(srv)
    ownerId = (await me(srv, owner)).body.user.id
  }, 60_000)
  afterAll(async () => {
    await srv?.stop()
    await provider?.stop()
  })

  test('GET /auth/methods lists the provider by its OIDC_NAME', async () => {
    const res = await api(srv, 'GET', '/api/v1/auth/methods')
    expect(res.body.oidc).toEqual([{ id: 'oidc', name: 'Acme SSO' }])
  })

  test('start: 302 to the provider with the registered redirect URI, and an HttpOnly SameSite=Lax binding cookie', async () => {
    const res = await fetch(`${srv.url}/api/v1/auth/oidc/start?return_to=/flags`, { redirect: 'manual' })
    expect(res.status).toBe(302)
    const to = new URL(res.headers.get('location')!)
    expect(to.origin).toBe(provider.issuer)
    expect(to.searchParams.get('redirect_uri')).toBe(`${srv.url}/api/v1/auth/oidc/callback`)
    expect(to.searchParams.get('code_challenge_method')).toBe('S256')
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('flagship_oidc='))!
    expect(cookie).toMatch(/HttpOnly/)
    expect(cookie).toMatch(/SameSite=Lax/)
    expect(cookie).toMatch(/Max-Age=600/)
    // nothing about the pending sign-in is in the cookie but a random binding value
    expect(cookie.split(';')[0]).toMatch(/^flagship_oidc=[A-Za-z0-9_-]{43}$/)
  })

  test('a first sign-in creates a member with the mapped project role, and lands on return_to', async () => {
    const r = await ssoSignIn(srv.url, 'dev1', { returnTo: '/flags/checkout?tab=rules' })
    expect(r.status).toBe(302)
    expect(r.location).toBe('/flags/checkout?tab=rules')
    expect(r.session).toBeDefined()
    const who = await me(srv, r.session!, 'default')
    expect(who.status).toBe(200)
    expect(who.body.user).toMatchObject({
      email: 'dev1@example.com',
      name: 'Dev One',
      instance_role: 'member',
      sso: true,
      has_password: false,
    })
    expect(who.body.project).toMatchObject({ slug: 'default', role: 'editor', environments: { production: 'viewer' } })
    // the session works for project routes, and the mapped environment limit holds
    expect((await sapi(srv, 'GET', '/api/v1/flags', { cookie: r.session, project: 'default' })).status).toBe(200)
  }, 30_000)

  test('signing in again reuses the linked user (by issuer and subject) with a new session value', async () => {
    const a = await ssoSignIn(srv.url, 'dev1')
    const b = await ssoSignIn(srv.url, 'dev1')
    expect(a.session).not.toBe(b.session)
    expect((await me(srv, a.session!)).body.user.id).toBe((await me(srv, b.session!)).body.user.id)
  }, 30_000)

  test('leaving the group takes the mapped membership away at the next sign-in', async () => {
    await provider.setAccounts({ dev2: { email: 'dev2@example.com', email_verified: true, name: 'Dev Two', groups: ['devs'] } })
    const before = await ssoSignIn(srv.url, 'dev2')
    expect((await me(srv, before.session!)).body.projects.map((p: { slug: string }) => p.slug)).toEqual(['default'])
    await provider.setAccounts({ dev2: { email: 'dev2@example.com', email_verified: true, name: 'Dev Two', groups: [] } })
    const after = await ssoSignIn(srv.url, 'dev2')
    expect((await me(srv, after.session!)).body.projects).toEqual([])
    // the older session sees the change at once too (roles apply to the very next request)
    expect((await sapi(srv, 'GET', '/api/v1/flags', { cookie: before.session, project: 'default' })).status).toBe(404)
  }, 30_000)

  test('a mapped instance role is applied', async () => {
    const r = await ssoSignIn(srv.url, 'ops1')
    expect((await me(srv, r.session!)).body.user.instance_role).toBe('admin')
  }, 30_000)

  test('an existing user is linked only on a verified email', async () => {
    const refused = await ssoSignIn(srv.url, 'impostor')
    expect(refused.location).toBe('/signin?sso_error=unverified')
    expect(refused.session).toBeUndefined()
    const linked = await ssoSignIn(srv.url, 'owner-sub')
    expect(linked.session).toBeDefined()
    expect((await me(srv, linked.session!)).body.user).toMatchObject({ id: ownerId, instance_role: 'owner', sso: true })
    // the impostor's subject was never linked: still refused
    expect((await ssoSignIn(srv.url, 'impostor')).location).toBe('/signin?sso_error=unverified')
  }, 30_000)

  test('a mapped grant wins over a hand edit of the same project; a hand grant in another project stays', async () => {
    const first = await ssoSignIn(srv.url, 'dev1')
    const dev1 = (await me(srv, first.session!)).body.user.id
    expect((await sapi(srv, 'POST', '/api/v1/projects', { cookie: owner, body: { name: 'Web', slug: 'web' } })).status).toBe(201)
    expect(
      (await sapi(srv, 'PUT', `/api/v1/project/members/${dev1}`, { cookie: owner, project: 'default', body: { role: 'admin' } })).status,
    ).toBe(200)
    expect(
      (await sapi(srv, 'PUT', `/api/v1/project/members/${dev1}`, { cookie: owner, project: 'web', body: { role: 'viewer' } })).status,
    ).toBe(200)
    expect((await me(srv, first.session!, 'default')).body.project.role).toBe('admin')
    const again = await ssoSignIn(srv.url, 'dev1')
    const projects = (await me(srv, again.session!)).body.projects
    expect(projects.find((p: { slug: string }) => p.slug === 'default')).toMatchObject({
      role: 'editor',
      environments: { production: 'viewer' },
    })
    expect(projects.find((p: { slug: string }) => p.slug === 'web')).toMatchObject({ role: 'viewer' })
  }, 30_000)

  test('a disabled user cannot sign in by SSO', async () => {
    await provider.setAccounts({ gone: { email: 'gone@example.com', email_verified: true, name: 'Soon Gone' } })
    const first = await ssoSignIn(srv.url, 'gone')
    const id = (await me(srv, first.session!)).body.user.id
    expect((await sapi(srv, 'PATCH', `/api/v1/admin/users/${id}`, { cookie: owner, body: { disabled: true } })).status).toBe(200)
    const refused = await ssoSignIn(srv.url, 'gone')
    expect(refused.location).toBe('/signin?sso_error=disabled')
    expect(refused.session).toBeUndefined()
    expect((await me(srv, first.session!)).status).toBe(401)
  }, 30_000)

  test('an unverified email never creates a user; a domain outside OIDC_ALLOWED_DOMAINS is refused', async () => {
    const unverified = await ssoSignIn(srv.url, 'unverified')
    expect(unverified.location).toBe('/signin?sso_error=unverified')
    expect(unverified.session).toBeUndefined()
    const outsider = await ssoSignIn(srv.url, 'outsider')
    expect(outsider.location).toBe('/signin?sso_error=domain')
    expect(outsider.session).toBeUndefined()
  }, 30_000)

  test('SSO sign-ins, links, mapped grants and refusals are in the instance audit log, without secrets', async () => {
    const res = await sapi(srv, 'GET', '/api/v1/admin/audit?limit=500', { cookie: owner })
    expect(res.status).toBe(200)
    const entries = res.body.entries as { action: string; actor: string; actor_type: string; details: Record<string, unknown> | null }[]
    expect(entries.some((e) => e.action === 'sign_in' && e.details?.method === 'oidc' && e.actor === 'dev1@example.com')).toBe(true)
    expect(entries.some((e) => e.action === 'sign_in_failed' && e.details?.method === 'oidc' && e.details?.reason === 'unverified')).toBe(
      true,
    )
    expect(entries.some((e) => e.action === 'sign_in_failed' && e.details?.reason === 'domain')).toBe(true)
    expect(entries.some((e) => e.action === 'link_identity' && e.actor === 'owner@example.com')).toBe(true)
    expect(entries.some((e) => e.actor_type === 'sso' && e.details?.via === 'sso')).toBe(true)
    const text = JSON.stringify(res.body)
    expect(text).not.toMatch(/code_verifier|id_token|access_token|client_secret|nonce/)
    expect(text).not.toContain(provider.clientSecret)
    // nor in the service's log
    expect(srv.output()).not.toContain(provider.clientSecret)
    expect(srv.output()).not.toMatch(/flagship_session=[A-Za-z0-9_-]|flagship_oidc=[A-Za-z0-9_-]|code_verifier/)
  }, 30_000)
})

// Its own service: the hostile callbacks below are many sign-in attempts from one address (30 a minute).
describe('single sign-on: hostile callbacks and return_to', () => {
  let srv: TestServer
  let provider: TestProvider
  beforeAll(async () => {
    ;({ srv, provider } = await startSsoPair({ OIDC_AUTO_CREATE: 'true' }, { dev1: { email: 'dev1@example.com', email_verified: true } }))
  }, 60_000)
  afterAll(async () => {
    await srv?.stop()
    await provider?.stop()
  })

  for (const foreign of [
    'https://evil.example',
    '//evil.example',
    '/\\evil.example',
    '/%2F%2Fevil.example',
    '%2F%2Fevil.example',
    '/%5Cevil.example',
    'javascript:alert(1)',
  ]) {
    test(`return_to ${foreign} ends at /`, async () => {
      const r = await ssoSignIn(srv.url, 'dev1', { returnTo: foreign })
      expect(r.location).toBe('/')
      expect(r.session).toBeDefined()
    }, 30_000)
  }

  test('a profile the service cannot take ends on the sign-in page; control characters never reach a name', async () => {
    await provider.setAccounts({
      weird: { email: 'not-an-address@localhost', email_verified: true, name: 'Weird' },
      bell: { email: 'bell@example.com', email_verified: true, name: 'Ring\u0007\nthe Bell' },
    })
    const weird = await ssoSignIn(srv.url, 'weird')
    expect(weird.location).toBe('/signin?sso_error=account')
    expect(weird.session).toBeUndefined()
    const bell = await ssoSignIn(srv.url, 'bell')
    expect((await me(srv, bell.session!)).body.user.name).toBe('Ring  the Bell')
  }, 30_000)

  test('missing state: refused, no session', async () => {
    const r = await ssoSignIn(srv.url, 'dev1', { beforeCallback: (u) => u.searchParams.delete('state') })
    expect(r.location).toBe('/signin?sso_error=state')
    expect(r.session).toBeUndefined()
  }, 30_000)

  test('a state this service never issued: refused', async () => {
    const r = await ssoSignIn(srv.url, 'dev1', { beforeCallback: (u) => u.searchParams.set('state', client.randomState()) })
    expect(r.location).toBe('/signin?sso_error=state')
    expect(r.session).toBeUndefined()
  }, 30_000)

  test('a callback carried to another browser (mismatched binding) is refused; so is replaying it afterwards', async () => {
    let stolen = ''
    const victim = await ssoSignIn(srv.url, 'dev1', {
      beforeCallback: (u, jar) => {
        stolen = u.href
        jar.delete(srv.url, 'flagship_oidc')
      },
    })
    expect(victim.location).toBe('/signin?sso_error=state')
    expect(victim.session).toBeUndefined()
    const replay = await fetch(stolen, { redirect: 'manual' })
    expect(replay.headers.get('location')).toBe('/signin?sso_error=state')
  }, 30_000)

  test('replayed callback: the second use of the same state is refused', async () => {
    const jar = new CookieJar()
    const first = await ssoSignIn(srv.url, 'dev1', { jar })
    expect(first.session).toBeDefined()
    const again = await fetch(first.callback, { redirect: 'manual', headers: { cookie: jar.header(srv.url) ?? '' } })
    expect(again.headers.get('location')).toBe('/signin?sso_error=state')
    expect(again.headers.getSetCookie().some((c) => c.startsWith('flagship_session=') && !c.startsWith('flagship_session=;'))).toBe(false)
  }, 30_000)

  test('an ID token for another nonce is refused', async () => {
    const r = await ssoSignIn(srv.url, 'dev1', { tamperAuthorization: (u) => u.searchParams.set('nonce', client.randomNonce()) })
    expect(r.location).toBe('/signin?sso_error=verification')
    expect(r.session).toBeUndefined()
  }, 30_000)

  test('a code bound to another PKCE verifier is refused', async () => {
    const challenge = await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier())
    const r = await ssoSignIn(srv.url, 'dev1', { tamperAuthorization: (u) => u.searchParams.set('code_challenge', challenge) })
    expect(r.location).toBe('/signin?sso_error=verification')
    expect(r.session).toBeUndefined()
  }, 30_000)

  test("the provider's refusal ends on the sign-in page", async () => {
    const jar = new CookieJar()
    const start = await fetch(`${srv.url}/api/v1/auth/oidc/start`, { redirect: 'manual' })
    jar.store(srv.url, start)
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!
    const res = await fetch(`${srv.url}/api/v1/auth/oidc/callback?error=access_denied&state=${state}`, {
      redirect: 'manual',
      headers: { cookie: jar.header(srv.url)! },
    })
    expect(res.headers.get('location')).toBe('/signin?sso_error=provider')
  }, 30_000)
})

describe('single sign-on without automatic creation', () => {
  let srv: TestServer
  let provider: TestProvider
  beforeAll(async () => {
    ;({ srv, provider } = await startSsoPair({}, { stranger: { email: 'stranger@example.com', email_verified: true } }))
  }, 60_000)
  afterAll(async () => {
    await srv?.stop()
    await provider?.stop()
  })

  test('an unknown person is refused (no_account) and nothing is created', async () => {
    const r = await ssoSignIn(srv.url, 'stranger')
    expect(r.location).toBe('/signin?sso_error=no_account')
    expect(r.session).toBeUndefined()
    expect((await api(srv, 'GET', '/api/v1/auth/methods')).body.setup_needed).toBe(true)
  }, 30_000)

  test('an invitation (?invitation= on start) lets the invited, verified email in, once', async () => {
    const owner = await setupOwner(srv)
    const invite = async (email: string) => {
      const res = await sapi(srv, 'POST', '/api/v1/invitations', {
        cookie: owner,
        body: { email, projects: [{ project: 'default', role: 'viewer' }] },
      })
      expect(res.status).toBe(201)
      return res.body.token as string
    }
    await provider.setAccounts({
      invitee: { email: 'invitee@example.com', email_verified: true, name: 'In Vitee' },
      twin: { email: 'invitee@example.com', email_verified: true, name: 'Twin' },
      shady: { email: 'shady@example.com', email_verified: true },
      unsure: { email: 'unsure@example.com', email_verified: false },
    })
    const token = await invite('invitee@example.com')
    // another person cannot use it, nor can an unverified email
    expect((await ssoSignIn(srv.url, 'shady', { invitation: token })).location).toBe('/signin?sso_error=invitation')
    const unsureToken = await invite('unsure@example.com')
    expect((await ssoSignIn(srv.url, 'unsure', { invitation: unsureToken })).location).toBe('/signin?sso_error=invitation')
    const r = await ssoSignIn(srv.url, 'invitee', { invitation: token, returnTo: '/flags' })
    expect(r.location).toBe('/flags')
    const who = await me(srv, r.session!, 'default')
    expect(who.body.user).toMatchObject({ email: 'invitee@example.com', name: 'In Vitee', sso: true })
    expect(who.body.project.role).toBe('viewer')
    // used up: a second account with the same email gets nothing from it
    const again = await ssoSignIn(srv.url, 'twin', { invitation: token })
    expect(again.location).toBe('/signin?sso_error=invitation')
    expect(again.session).toBeUndefined()
    const users = (await sapi(srv, 'GET', '/api/v1/admin/users', { cookie: owner })).body.users.map((u: { email: string }) => u.email)
    expect(users.sort()).toEqual(['invitee@example.com', 'owner@example.com'])
  }, 30_000)

  // Last in this service: it uses up this address's sign-in attempts for the minute.
  test('more than 30 sign-in starts a minute from one address end on the sign-in page with Retry-After', async () => {
    let last: Response | undefined
    for (let i = 0; i < 40; i++) {
      last = await fetch(`${srv.url}/api/v1/auth/oidc/start`, { redirect: 'manual' })
      if (last.headers.get('location')?.startsWith('/signin')) break
    }
    expect(last!.status).toBe(302)
    expect(last!.headers.get('location')).toBe('/signin?sso_error=throttled')
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(last!.headers.getSetCookie()).toEqual([])
  }, 30_000)
})

describe('single sign-on off (no OIDC_ISSUER)', () => {
  let srv: TestServer
  beforeAll(async () => {
    srv = await startServer()
  })
  afterAll(() => srv.stop())

  test('the routes answer 404 OIDC_DISABLED, the sign-in methods list none, and the OpenAPI document has them', async () => {
    for (const path of ['/api/v1/auth/oidc/start?return_to=/', '/api/v1/auth/oidc/callback?state=x&code=y']) {
      const res = await api(srv, 'GET', path)
      expect(res.status).toBe(404)
      expect(res.body.code).toBe('OIDC_DISABLED')
    }
    expect((await api(srv, 'GET', '/api/v1/auth/methods')).body.oidc).toEqual([])
    const doc = (await api(srv, 'GET', '/openapi.json')).body
    expect(doc.paths['/api/v1/auth/oidc/start'].get['x-permission']).toBe('public')
    expect(doc.paths['/api/v1/auth/oidc/callback'].get['x-permission']).toBe('public')
  })
})

describe('single sign-on settings are checked at start', () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    [
      'PUBLIC_URL missing',
      { OIDC_ISSUER: 'https://login.example.com', OIDC_CLIENT_ID: 'x', OIDC_CLIENT_SECRET: 'y' },
      /PUBLIC_URL is required/,
    ],
    [
      'a bad role map',
      {
        PUBLIC_URL: 'http://127.0.0.1:1',
        OIDC_ISSUER: 'https://login.example.com',
        OIDC_CLIENT_ID: 'x',
        OIDC_CLIENT_SECRET: 'y',
        OIDC_ROLE_MAP: '{"ops":{"instance":"root"}}',
      },
      /OIDC_ROLE_MAP/,
    ],
    [
      'plain http to a remote issuer',
      { PUBLIC_URL: 'http://127.0.0.1:1', OIDC_ISSUER: 'http://login.example.com', OIDC_CLIENT_ID: 'x', OIDC_CLIENT_SECRET: 'y' },
      /OIDC_ISSUER must use https/,
    ],
  ]
  for (const [name, env, message] of cases) {
    test(`${name}: the service does not start and names the variable`, async () => {
      let error = ''
      try {
        const srv = await startServer({ env })
        await srv.stop()
      } catch (e) {
        error = (e as Error).message
      }
      expect(error).toMatch(message)
    }, 30_000)
  }
})
