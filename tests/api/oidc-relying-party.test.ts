// The OpenID Connect relying party in process against a real provider (oidc-provider under Node, signed in
// through its own login and consent pages): the happy path, and each way a callback must be refused:
// missing, unknown, replayed, expired or other-browser state; a wrong nonce; a wrong PKCE verifier; a
// wrong `iss`; the provider's own refusal; an unreachable provider. Claims only in userinfo are fetched.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import * as client from 'openid-client'
import { MemoryOidcStateStore, OidcFailure, OidcRelyingParty, OIDC_STATE_TTL_MS } from '../../server/identity/oidc'
import { loadOidcSettings } from '../../server/identity/oidc-settings'
import { CookieJar, signInAtProvider, startOidcProvider, type TestProvider } from '../helpers/oidc-provider'

// Nothing listens here: the callback URL is only read, never followed.
const PUBLIC_URL = 'http://127.0.0.1:9'
const CALLBACK = `${PUBLIC_URL}/api/v1/auth/oidc/callback`
const quiet = () => {}

async function failure(p: Promise<unknown>): Promise<OidcFailure> {
  try {
    await p
  } catch (e) {
    if (e instanceof OidcFailure) return e
    throw e
  }
  throw new Error('expected the sign-in to be refused')
}

describe('OIDC relying party against a real provider', () => {
  let provider: TestProvider
  let userinfoProvider: TestProvider
  const rp = (p: TestProvider, env: Record<string, string> = {}) =>
    new OidcRelyingParty(
      loadOidcSettings({ OIDC_ISSUER: p.issuer, OIDC_CLIENT_ID: p.clientId, OIDC_CLIENT_SECRET: p.clientSecret, ...env }, PUBLIC_URL)!,
      new MemoryOidcStateStore(),
      quiet,
    )

  beforeAll(async () => {
    const accounts = {
      alice: { email: 'Alice@Example.com', email_verified: true, name: 'Alice Liddell', groups: ['eng', 'ops'] },
      eve: { email: 'eve@example.com', email_verified: false, name: 'Eve' },
      stringy: { email: 'stringy@example.com', email_verified: 'true' as unknown as boolean },
    }
    ;[provider, userinfoProvider] = await Promise.all([
      startOidcProvider({ redirectUris: [CALLBACK], accounts }),
      startOidcProvider({ redirectUris: [CALLBACK], accounts, conformIdTokenClaims: true }),
    ])
  })
  afterAll(async () => {
    await Promise.all([provider?.stop(), userinfoProvider?.stop()])
  })

  /** start -> the provider's pages -> the callback URL the provider sends the browser to */
  async function throughProvider(party: OidcRelyingParty, login: string, tamper?: (u: URL) => void) {
    const { location, binding } = await party.start({ returnTo: '/flags' })
    const url = new URL(location)
    tamper?.(url)
    const callback = await signInAtProvider(new CookieJar(), url.href, login, CALLBACK)
    return { callback: new URL(callback), binding, authorization: new URL(location) }
  }

  test('authorization request: code flow with S256 PKCE, state and nonce, to the registered redirect URI', async () => {
    const { location } = await rp(provider).start({ returnTo: '/' })
    const q = new URL(location).searchParams
    expect(location.startsWith(`${provider.issuer}/`)).toBe(true)
    expect(q.get('response_type')).toBe('code')
    expect(q.get('client_id')).toBe(provider.clientId)
    expect(q.get('redirect_uri')).toBe(CALLBACK)
    expect(q.get('scope')).toBe('openid email profile')
    expect(q.get('code_challenge_method')).toBe('S256')
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(q.get('state')!.length).toBeGreaterThanOrEqual(32)
    expect(q.get('nonce')!.length).toBeGreaterThanOrEqual(32)
    // no verifier, nonce or state repeats between sign-ins
    const again = new URL((await rp(provider).start({ returnTo: '/' })).location).searchParams
    for (const k of ['state', 'nonce', 'code_challenge']) expect(again.get(k)).not.toBe(q.get(k))
  }, 30_000)

  test('a full sign-in gives the verified identity, the return_to path and the invitation', async () => {
    const party = rp(provider, { OIDC_SCOPES: 'openid email profile groups' })
    const { location, binding } = await party.start({ returnTo: '/flags/x', invitation: 'inv-123' })
    const callback = new URL(await signInAtProvider(new CookieJar(), location, 'alice', CALLBACK))
    expect(callback.searchParams.get('iss')).toBe(provider.issuer)
    const done = await party.finish(callback.search, binding)
    expect(done.identity).toEqual({
      issuer: provider.issuer,
      subject: 'alice',
      email: 'alice@example.com',
      emailVerified: true,
      name: 'Alice Liddell',
      groups: ['eng', 'ops'],
    })
    expect(done.returnTo).toBe('/flags/x')
    expect(done.invitation).toBe('inv-123')
  }, 30_000)

  test('the same callback a second time (replayed state) is refused', async () => {
    const party = rp(provider)
    const { callback, binding } = await throughProvider(party, 'alice')
    await party.finish(callback.search, binding)
    const e = await failure(party.finish(callback.search, binding))
    expect(e.reason).toBe('state')
  }, 30_000)

  test('missing state, an unknown state, and an expired one are refused', async () => {
    const party = rp(provider)
    const { callback, binding } = await throughProvider(party, 'alice')
    const without = new URLSearchParams(callback.search)
    without.delete('state')
    expect((await failure(party.finish(`?${without}`, binding))).reason).toBe('state')
    const other = new URLSearchParams(callback.search)
    other.set('state', client.randomState())
    expect((await failure(party.finish(`?${other}`, binding))).reason).toBe('state')
    // the real state, but after its ten minutes
    const late = new Date(Date.now() + OIDC_STATE_TTL_MS + 1000)
    expect((await failure(party.finish(callback.search, binding, late))).reason).toBe('state')
  }, 30_000)

  test('a callback carried to another browser (no or another binding cookie) is refused, and uses the state up', async () => {
    const party = rp(provider)
    const { callback, binding } = await throughProvider(party, 'alice')
    expect((await failure(party.finish(callback.search, undefined))).reason).toBe('state')
    // the rightful browser can no longer use it either: a state works once
    expect((await failure(party.finish(callback.search, binding))).reason).toBe('state')
    const second = await throughProvider(party, 'alice')
    expect((await failure(party.finish(second.callback.search, `${second.binding}x`))).reason).toBe('state')
  }, 30_000)

  test('an ID token with another nonce is refused', async () => {
    const party = rp(provider)
    const { callback, binding } = await throughProvider(party, 'alice', (u) => u.searchParams.set('nonce', client.randomNonce()))
    const e = await failure(party.finish(callback.search, binding))
    expect(e.reason).toBe('verification')
    expect(e.message).toMatch(/nonce/)
  }, 30_000)

  test('a code issued for another PKCE challenge is refused by the provider at the exchange', async () => {
    const party = rp(provider)
    const foreign = await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier())
    const { callback, binding } = await throughProvider(party, 'alice', (u) => u.searchParams.set('code_challenge', foreign))
    const e = await failure(party.finish(callback.search, binding))
    expect(e.reason).toBe('verification')
    expect(e.message).toMatch(/invalid_grant|PKCE|verif/i)
  }, 30_000)

  test('a wrong iss response parameter is refused', async () => {
    const party = rp(provider)
    const { callback, binding } = await throughProvider(party, 'alice')
    const params = new URLSearchParams(callback.search)
    params.set('iss', 'https://evil.example')
    const e = await failure(party.finish(`?${params}`, binding))
    expect(e.reason).toBe('verification')
  }, 30_000)

  test("the provider's refusal (error=access_denied) is refused as such", async () => {
    const party = rp(provider)
    const { location, binding } = await party.start({ returnTo: '/' })
    const state = new URL(location).searchParams.get('state')!
    const e = await failure(party.finish(`?error=access_denied&state=${state}`, binding))
    expect(e.reason).toBe('provider')
  }, 30_000)

  test('email_verified counts only as the boolean true', async () => {
    const party = rp(provider)
    for (const login of ['eve', 'stringy']) {
      const { callback, binding } = await throughProvider(party, login)
      const { identity } = await party.finish(callback.search, binding)
      expect(identity.emailVerified).toBe(false)
      expect(identity.email).toBe(`${login}@example.com`)
    }
  }, 30_000)

  test('email and groups only in userinfo are fetched from it', async () => {
    const party = rp(userinfoProvider, { OIDC_SCOPES: 'openid email profile groups' })
    const { callback, binding } = await throughProvider(party, 'alice')
    const { identity } = await party.finish(callback.search, binding)
    expect(identity).toMatchObject({ subject: 'alice', email: 'alice@example.com', emailVerified: true, groups: ['eng', 'ops'] })
  }, 30_000)

  test('an unreachable provider: the start fails as unavailable, and a later start tries again', async () => {
    const party = new OidcRelyingParty(
      loadOidcSettings({ OIDC_ISSUER: 'http://127.0.0.1:9', OIDC_CLIENT_ID: 'x', OIDC_CLIENT_SECRET: 'y' }, PUBLIC_URL)!,
      new MemoryOidcStateStore(),
      quiet,
    )
    expect((await failure(party.start({ returnTo: '/' }))).reason).toBe('unavailable')
    expect((await failure(party.start({ returnTo: '/' }))).reason).toBe('unavailable')
  }, 30_000)
})

describe('pending sign-ins in memory', () => {
  test('single use, expiry, and a bound on how many are kept', async () => {
    const store = new MemoryOidcStateStore(3)
    const p = { nonce: 'n', verifier: 'v', binding: 'b', returnTo: '/' }
    const later = new Date(Date.now() + 60_000)
    for (const id of ['a', 'b', 'c', 'd']) await store.put(id, p, later)
    expect(await store.take('a', new Date())).toBeUndefined()
    expect(await store.take('d', new Date())).toEqual(p)
    expect(await store.take('d', new Date())).toBeUndefined()
    expect(await store.take('b', new Date(later.getTime() + 1))).toBeUndefined()
  })
})
