// Single sign-on with OIDC_ROLE_MAP, against the real local OpenID provider (tests/helpers/oidc-provider.ts):
// when the groups claim never arrives (here: `groups` not in OIDC_SCOPES), the person still signs in, with
// no project, and the log says why in one warning naming the claim and the scopes asked for; with the
// scope, the map applies and nothing is warned. The start log says single sign-on is on.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startSsoPair, ssoSignIn, type TestProvider } from '../helpers/oidc-provider'
import type { TestServer } from '../helpers/server'
import { sapi } from '../helpers/teams'

const ROLE_MAP = { devs: { projects: { default: { role: 'editor' } } } }
const ACCOUNTS = { dev1: { email: 'dev1@example.com', email_verified: true, name: 'Dev One', groups: ['devs'] } }
const warnings = (srv: TestServer) =>
  srv
    .output()
    .split('\n')
    .filter((l) => l.includes('"level":"warn"') && l.includes('OIDC_ROLE_MAP granted nothing'))
const projectsOf = async (srv: TestServer, session: string) =>
  (await sapi(srv, 'GET', '/api/v1/me', { cookie: session })).body.projects as { slug: string }[]

describe.each([
  ['without the groups scope', 'openid email profile', 0],
  ['with it', 'openid email profile groups', 1],
])('a role map, %s', (_name, scopes, projects) => {
  let srv: TestServer
  let provider: TestProvider
  beforeAll(async () => {
    ;({ srv, provider } = await startSsoPair(
      { OIDC_AUTO_CREATE: 'true', OIDC_ROLE_MAP: JSON.stringify(ROLE_MAP), OIDC_SCOPES: scopes },
      ACCOUNTS,
    ))
  }, 60_000)
  afterAll(async () => {
    await srv?.stop()
    await provider?.stop()
  })

  test('the start log says single sign-on is on, with the scopes and the claim', () => {
    const line = srv
      .output()
      .split('\n')
      .find((l) => l.includes('"msg":"single sign-on is on"'))
    expect(line).toBeDefined()
    expect(JSON.parse(line!)).toMatchObject({
      level: 'info',
      issuer: expect.stringContaining('http://127.0.0.1'),
      scopes,
      groups_claim: 'groups',
      role_map_groups: 1,
    })
  })

  test(
    projects ? 'the map grants the project; nothing is warned' : 'signs in with no project, and one warning names the claim and the scopes',
    async () => {
      const r = await ssoSignIn(srv.url, 'dev1')
      expect(r.session).toBeDefined()
      expect((await projectsOf(srv, r.session!)).length).toBe(projects)
      await Bun.sleep(100)
      const found = warnings(srv)
      if (projects) {
        expect(found).toEqual([])
      } else {
        expect(found).toHaveLength(1)
        expect(JSON.parse(found[0]!)).toMatchObject({ claim: 'groups', scopes: 'openid email profile' })
      }
    },
  )
})
