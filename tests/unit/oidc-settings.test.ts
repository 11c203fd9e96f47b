// Single sign-on settings, the role map and the return_to rule, in process: every bad setting stops the
// start with a message naming its variable; every foreign return_to form ends at `/`.
import { describe, expect, test } from 'bun:test'
import { loadOidcSettings } from '../../server/identity/oidc-settings'
import { mapGroups, parseRoleMap, groupsOf } from '../../server/identity/oidc-role-map'
import { safeReturnTo } from '../../server/identity/oidc-return-to'
import { emailVerifiedOf } from '../../server/identity/oidc'

const BASE = { OIDC_ISSUER: 'https://login.example.com/realms/main', OIDC_CLIENT_ID: 'flagship', OIDC_CLIENT_SECRET: 's3cret' }
const PUBLIC = 'https://flags.example.com'
const plain = (v: unknown) => JSON.parse(JSON.stringify(v))

describe('OIDC settings', () => {
  test('unset issuer: single sign-on off; a stray OIDC_* variable without it is an error naming it', () => {
    expect(loadOidcSettings({}, undefined)).toBeUndefined()
    expect(() => loadOidcSettings({ OIDC_CLIENT_ID: 'x' }, PUBLIC)).toThrow(/OIDC_CLIENT_ID is set but OIDC_ISSUER is not/)
  })

  test('defaults and the redirect URI', () => {
    const s = loadOidcSettings(BASE, PUBLIC)!
    expect(s.name).toBe('Single sign-on')
    expect(s.scopes).toBe('openid email profile')
    expect(s.groupsClaim).toBe('groups')
    expect(s.autoCreate).toBe(false)
    expect(s.allowedDomains).toEqual([])
    expect(s.redirectUri).toBe('https://flags.example.com/api/v1/auth/oidc/callback')
    expect(s.insecureRequests).toBe(false)
  })

  test('every setting is read', () => {
    const s = loadOidcSettings(
      {
        ...BASE,
        OIDC_NAME: 'Acme SSO',
        OIDC_SCOPES: 'openid email profile groups',
        OIDC_ALLOWED_DOMAINS: 'Example.com, acme.io',
        OIDC_AUTO_CREATE: 'true',
        OIDC_GROUPS_CLAIM: 'roles',
        OIDC_ROLE_MAP: '{"ops":{"instance":"admin"}}',
      },
      PUBLIC,
    )!
    expect(s.name).toBe('Acme SSO')
    expect(s.scopes).toBe('openid email profile groups')
    expect(s.allowedDomains).toEqual(['example.com', 'acme.io'])
    expect(s.autoCreate).toBe(true)
    expect(s.groupsClaim).toBe('roles')
    expect(s.roleMap.ops.instance).toBe('admin')
  })

  const bad: [string, Record<string, string>, string | undefined, RegExp][] = [
    ['missing client id', { OIDC_ISSUER: BASE.OIDC_ISSUER, OIDC_CLIENT_SECRET: 'x' }, PUBLIC, /OIDC_CLIENT_ID is required/],
    ['missing client secret', { OIDC_ISSUER: BASE.OIDC_ISSUER, OIDC_CLIENT_ID: 'x' }, PUBLIC, /OIDC_CLIENT_SECRET is required/],
    ['no PUBLIC_URL', BASE, undefined, /PUBLIC_URL is required/],
    ['issuer not a URL', { ...BASE, OIDC_ISSUER: 'login.example.com' }, PUBLIC, /OIDC_ISSUER must be/],
    ['issuer with a query', { ...BASE, OIDC_ISSUER: 'https://login.example.com/?a=1' }, PUBLIC, /OIDC_ISSUER must be an https URL/],
    ['issuer with another scheme', { ...BASE, OIDC_ISSUER: 'ftp://login.example.com' }, PUBLIC, /OIDC_ISSUER must be an https URL/],
    ['plain http to a remote issuer', { ...BASE, OIDC_ISSUER: 'http://login.example.com' }, PUBLIC, /OIDC_ISSUER must use https/],
    ['scopes without openid', { ...BASE, OIDC_SCOPES: 'email profile' }, PUBLIC, /OIDC_SCOPES must include openid/],
    ['bad domain', { ...BASE, OIDC_ALLOWED_DOMAINS: 'example.com, not a domain' }, PUBLIC, /OIDC_ALLOWED_DOMAINS/],
    ['bad auto-create', { ...BASE, OIDC_AUTO_CREATE: 'maybe' }, PUBLIC, /OIDC_AUTO_CREATE must be true or false/],
    ['bad allow-insecure', { ...BASE, OIDC_ALLOW_INSECURE: 'sure' }, PUBLIC, /OIDC_ALLOW_INSECURE must be true or false/],
    ['role map not JSON', { ...BASE, OIDC_ROLE_MAP: '{ops: admin}' }, PUBLIC, /OIDC_ROLE_MAP must be JSON/],
    [
      'role map unknown role',
      { ...BASE, OIDC_ROLE_MAP: '{"ops":{"instance":"root"}}' },
      PUBLIC,
      /OIDC_ROLE_MAP: group "ops": instance must be one of/,
    ],
    [
      'role map bad project role',
      { ...BASE, OIDC_ROLE_MAP: '{"ops":{"projects":{"web":{"role":"god"}}}}' },
      PUBLIC,
      /OIDC_ROLE_MAP: group "ops", project "web": role/,
    ],
    [
      'role map bad environment right',
      { ...BASE, OIDC_ROLE_MAP: '{"ops":{"projects":{"web":{"role":"editor","environments":{"production":"admin"}}}}}' },
      PUBLIC,
      /environment "production": must be "viewer" or "editor"/,
    ],
    [
      'role map unknown key',
      { ...BASE, OIDC_ROLE_MAP: '{"ops":{"role":"admin"}}' },
      PUBLIC,
      /OIDC_ROLE_MAP: group "ops": unknown key "role"/,
    ],
    ['role map granting nothing', { ...BASE, OIDC_ROLE_MAP: '{"ops":{}}' }, PUBLIC, /grants nothing/],
    ['name with control characters', { ...BASE, OIDC_NAME: 'a\u0007b' }, PUBLIC, /OIDC_NAME must be/],
  ]
  for (const [name, env, publicUrl, error] of bad) {
    test(`refused: ${name}`, () => expect(() => loadOidcSettings(env, publicUrl)).toThrow(error))
  }

  test('plain http: localhost and 127.0.0.1 are accepted; another host only with OIDC_ALLOW_INSECURE=true', () => {
    expect(loadOidcSettings({ ...BASE, OIDC_ISSUER: 'http://127.0.0.1:9000' }, PUBLIC)!.insecureRequests).toBe(true)
    expect(loadOidcSettings({ ...BASE, OIDC_ISSUER: 'http://localhost:9000/realms/x' }, PUBLIC)!.insecureRequests).toBe(true)
    const s = loadOidcSettings({ ...BASE, OIDC_ISSUER: 'http://keycloak:8080/realms/x', OIDC_ALLOW_INSECURE: 'true' }, PUBLIC)!
    expect(s.allowInsecure).toBe(true)
    expect(s.insecureRequests).toBe(true)
  })
})

describe('OIDC role map', () => {
  const map = parseRoleMap(
    {
      ops: { instance: 'admin' },
      staff: { instance: 'member', projects: { web: { role: 'viewer' } } },
      devs: { projects: { web: { role: 'editor', environments: { production: 'viewer' } }, api: { role: 'viewer' } } },
      release: { projects: { web: { role: 'viewer', environments: { production: 'editor' } } } },
      leads: { projects: { api: { role: 'admin', environments: { production: 'viewer' } } } },
    },
    'OIDC_ROLE_MAP',
  )

  test('highest instance role wins; groups not in the map grant nothing', () => {
    expect(mapGroups(['staff', 'ops', 'unknown'], map).instance).toBe('admin')
    expect(mapGroups(['unknown'], map)).toEqual(plain({ projects: {} }))
    expect(mapGroups([], map).instance).toBeUndefined()
  })

  test('project grants are merged: the higher role, and in each environment the greater right', () => {
    expect(plain(mapGroups(['devs'], map).projects.web)).toEqual({ role: 'editor', environments: { production: 'viewer' } })
    // viewer everywhere but editor in production, plus editor except production: editor everywhere
    expect(plain(mapGroups(['devs', 'release'], map).projects.web)).toEqual({ role: 'editor', environments: {} })
    expect(plain(mapGroups(['staff', 'release'], map).projects.web)).toEqual({ role: 'viewer', environments: { production: 'editor' } })
    expect(plain(mapGroups(['devs', 'leads'], map).projects.api)).toEqual({ role: 'admin', environments: {} })
  })

  test('a group named __proto__ is an ordinary group', () => {
    const m = parseRoleMap(JSON.parse('{"__proto__":{"instance":"owner"}}'), 'OIDC_ROLE_MAP')
    expect(mapGroups(['__proto__'], m).instance).toBe('owner')
    expect(mapGroups(['constructor', 'toString'], m).instance).toBeUndefined()
  })

  test('the groups claim: an array of strings or one string', () => {
    expect(groupsOf(['a', 1, 'b', null])).toEqual(['a', 'b'])
    expect(groupsOf('a')).toEqual(['a'])
    expect(groupsOf({ a: 1 })).toEqual([])
    expect(groupsOf(undefined)).toEqual([])
  })
})

describe('return_to', () => {
  const kept = ['/', '/flags', '/flags/checkout-v2?tab=rules#history', '/audit?actor=a%40b.c', '/x']
  for (const path of kept) test(`kept: ${path}`, () => expect(safeReturnTo(path)).toBe(path))

  const foreign = [
    'https://evil.example',
    'http://evil.example/x',
    '//evil.example',
    '//evil.example/flags',
    '/\\evil.example',
    '\\\\evil.example',
    '/%2F%2Fevil.example',
    '%2F%2Fevil.example',
    '/%5Cevil.example',
    '/%252F%252Fevil.example',
    '%2f%2fevil.example',
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    '/\t/evil.example',
    '/\n/evil.example',
    ' /x',
    '',
    'flags',
    '/%E0%A4%A',
    'data:text/html,x',
    '/x\\y',
    `/${'a'.repeat(3000)}`,
  ]
  for (const raw of foreign) test(`to /: ${JSON.stringify(raw).slice(0, 60)}`, () => expect(safeReturnTo(raw)).toBe('/'))
  test('not a string: /', () => {
    expect(safeReturnTo(undefined)).toBe('/')
    expect(safeReturnTo(['/x'])).toBe('/')
  })
})

describe('email_verified', () => {
  const ENTRA = 'https://login.microsoftonline.com/8eaef023-2b34-4da1-9baa-8bc8c9d6a490/v2.0'
  test('only the boolean true counts', () => {
    expect(emailVerifiedOf({ email_verified: true }, 'https://idp.example.com')).toBe(true)
    for (const v of ['true', 1, 'yes', null, undefined, false])
      expect(emailVerifiedOf({ email_verified: v }, 'https://idp.example.com')).toBe(false)
  })
  test("Entra ID's xms_edov counts for Entra ID issuers only", () => {
    expect(emailVerifiedOf({ xms_edov: true }, ENTRA)).toBe(true)
    expect(emailVerifiedOf({ xms_edov: '1' }, ENTRA)).toBe(true)
    expect(emailVerifiedOf({ xms_edov: false }, ENTRA)).toBe(false)
    expect(emailVerifiedOf({}, ENTRA)).toBe(false)
    expect(emailVerifiedOf({ xms_edov: true }, 'https://idp.example.com')).toBe(false)
    expect(emailVerifiedOf({ xms_edov: true }, 'https://login.microsoftonline.com.evil.example/x')).toBe(false)
  })
})
