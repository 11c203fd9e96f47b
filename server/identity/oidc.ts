// The OpenID Connect relying party (teams.md §5): authorization code flow with PKCE (S256), state and
// nonce. Every check of the provider's answer (state, `iss` parameter, code exchange with the PKCE
// verifier, ID token signature, issuer, audience, nonce and expiry) is openid-client's, never ours.
// What this module adds: the single-use sign-in record kept server-side for 10 minutes, bound to the
// browser that started the sign-in (a cookie), and the verified identity it hands to the sign-in step.
import type * as OpenId from 'openid-client'
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Log } from '../log'
import { groupsOf } from './oidc-role-map'
import type { OidcSettings } from './oidc-settings'

export const OIDC_STATE_TTL_MS = 10 * 60_000

/** A sign-in under way, as kept server-side between start and callback. */
export interface PendingSignIn {
  nonce: string
  /** the PKCE code verifier */
  verifier: string
  /** SHA-256 of the browser-binding cookie's value */
  binding: string
  returnTo: string
  invitation?: string
}

/** Where pending sign-ins live: shared by every instance in a cluster (the store's table), or in memory. */
export interface OidcStateStore {
  put(id: string, pending: PendingSignIn, expiresAt: Date): Promise<void>
  /** the record, deleted in the same step (single use); undefined when unknown, used or expired */
  take(id: string, now: Date): Promise<PendingSignIn | undefined>
}

/** Pending sign-ins in this process's memory, at most `max` (oldest dropped first). */
export class MemoryOidcStateStore implements OidcStateStore {
  private readonly entries = new Map<string, { pending: PendingSignIn; expiresAt: number }>()
  constructor(private readonly max = 10_000) {}
  async put(id: string, pending: PendingSignIn, expiresAt: Date): Promise<void> {
    if (this.entries.size >= this.max) {
      const now = Date.now()
      for (const [k, v] of this.entries) if (v.expiresAt <= now) this.entries.delete(k)
      while (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string)
    }
    this.entries.set(id, { pending, expiresAt: expiresAt.getTime() })
  }
  async take(id: string, now: Date): Promise<PendingSignIn | undefined> {
    const entry = this.entries.get(id)
    this.entries.delete(id)
    return entry && entry.expiresAt > now.getTime() ? entry.pending : undefined
  }
}

/** What the provider vouched for, after every check passed. */
export interface VerifiedIdentity {
  issuer: string
  subject: string
  /** lower-cased; undefined when the provider sent none */
  email?: string
  /** only `email_verified: true` (a boolean) counts (and Entra ID's `xms_edov`, see emailVerifiedOf) */
  emailVerified: boolean
  name?: string
  groups: string[]
  /** the provider sent no groups claim at all (OIDC_GROUPS_CLAIM): often a scope not asked for */
  groupsClaimMissing?: boolean
}

export type OidcFailureReason = 'state' | 'provider' | 'verification' | 'unavailable'

/** A sign-in that cannot go on; `reason` picks the console's message, `message` is for the log only. */
export class OidcFailure extends Error {
  constructor(
    readonly reason: OidcFailureReason,
    message: string,
  ) {
    super(message)
    this.name = 'OidcFailure'
  }
}

/** openid-client's error with what it names: the provider's error code, or the claim that failed. */
function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e)
  const { error, error_description, cause } = e as { error?: unknown; error_description?: unknown; cause?: unknown }
  const parts = [e.message]
  if (typeof error === 'string')
    parts.push(`${error}${typeof error_description === 'string' ? `: ${error_description.slice(0, 200)}` : ''}`)
  // openid-client wraps oauth4webapi's error, whose message names the claim (`"nonce" claim value`).
  if (cause instanceof Error && cause.message !== e.message) parts.push(cause.message)
  return parts.join(' - ')
}

/** Whether the provider vouches for the email: `email_verified: true` (a boolean). Entra ID never sends
 *  email_verified; its optional claim `xms_edov` (the email's domain is verified by the user's tenant) is
 *  its equivalent, honoured for Entra ID issuers only. */
export function emailVerifiedOf(claims: Record<string, unknown>, issuer: string): boolean {
  if (claims.email_verified === true) return true
  let host = ''
  try {
    host = new URL(issuer).host
  } catch {
    return false
  }
  const edov = claims.xms_edov
  return host === 'login.microsoftonline.com' && (edov === true || edov === 1 || edov === '1' || edov === 'true')
}

const sha256 = (s: string): string => createHash('sha256').update(s).digest('base64url')
// openid-client (and jose) load with the first sign-in: an instance without SSO does not carry them (memory and
// start time: docs/performance.md, 2026-11-29). The module loader keeps them once loaded.
const openId = (): Promise<typeof OpenId> => import('openid-client')
const REQUEST_TIMEOUT_S = 10

export class OidcRelyingParty {
  private config: Promise<OpenId.Configuration> | undefined

  constructor(
    readonly settings: OidcSettings,
    private readonly states: OidcStateStore,
    private readonly log: Log,
  ) {}

  /** The provider's metadata, read once; a failed read is tried again at the next sign-in. */
  private configuration(): Promise<OpenId.Configuration> {
    if (!this.config) {
      const { issuer, clientId, clientSecret, insecureRequests } = this.settings
      this.config = openId()
        .then((client) =>
          client.discovery(issuer, clientId, clientSecret, undefined, {
            execute: insecureRequests ? [client.allowInsecureRequests] : [],
            timeout: REQUEST_TIMEOUT_S,
          }),
        )
        .catch((e: unknown) => {
          this.config = undefined
          this.log(
            'oidc: reading the provider metadata failed',
            { issuer: issuer.href, error: e instanceof Error ? e.message : String(e) },
            'warn',
          )
          throw new OidcFailure('unavailable', 'the identity provider could not be reached')
        })
    }
    return this.config
  }

  /** Starts a sign-in: the provider's authorization URL, and the browser-binding value to set as a cookie. */
  async start(opts: { returnTo: string; invitation?: string; now?: Date }): Promise<{ location: string; binding: string }> {
    const config = await this.configuration()
    const client = await openId()
    const state = client.randomState()
    const nonce = client.randomNonce()
    const verifier = client.randomPKCECodeVerifier()
    const binding = randomBytes(32).toString('base64url')
    const now = opts.now ?? new Date()
    await this.states.put(
      sha256(state),
      { nonce, verifier, binding: sha256(binding), returnTo: opts.returnTo, ...(opts.invitation && { invitation: opts.invitation }) },
      new Date(now.getTime() + OIDC_STATE_TTL_MS),
    )
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUri,
      scope: this.settings.scopes,
      response_type: 'code',
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    })
    return { location: url.href, binding }
  }

  /** Finishes a sign-in from the callback's query string and the browser-binding cookie. */
  async finish(
    search: string,
    binding: string | undefined,
    now = new Date(),
  ): Promise<{ identity: VerifiedIdentity; returnTo: string; invitation?: string }> {
    const params = new URLSearchParams(search)
    const state = params.get('state')
    if (!state || state.length > 512) throw new OidcFailure('state', 'the callback has no state')
    // Taken (and so used up) before anything else is checked: a state works once, whatever follows.
    const pending = await this.states.take(sha256(state), now)
    if (!pending) throw new OidcFailure('state', 'unknown, used or expired state')
    const bound = binding ? Buffer.from(sha256(binding)) : undefined
    if (!bound || !timingSafeEqual(bound, Buffer.from(pending.binding)))
      throw new OidcFailure('state', 'the sign-in was started in another browser')
    const error = params.get('error')
    if (error) throw new OidcFailure('provider', `the provider refused: ${error.slice(0, 100)}`)

    const config = await this.configuration()
    const client = await openId()
    // The callback as registered (PUBLIC_URL), whatever Host the request came in with.
    const current = new URL(this.settings.redirectUri)
    current.search = params.toString()
    let tokens: Awaited<ReturnType<typeof OpenId.authorizationCodeGrant>>
    try {
      tokens = await client.authorizationCodeGrant(config, current, {
        expectedState: state,
        expectedNonce: pending.nonce,
        pkceCodeVerifier: pending.verifier,
        idTokenExpected: true,
      })
    } catch (e) {
      throw new OidcFailure('verification', describe(e))
    }
    const idClaims = tokens.claims()
    if (!idClaims) throw new OidcFailure('verification', 'no ID token')
    let claims: Record<string, unknown> = { ...idClaims }
    // Some providers put email and groups only in userinfo (Okta, or any with conforming ID tokens).
    const groupsClaim = this.settings.groupsClaim
    if (
      (claims.email === undefined || claims[groupsClaim] === undefined) &&
      tokens.access_token &&
      config.serverMetadata().userinfo_endpoint
    ) {
      try {
        const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub)
        claims = { ...info, ...claims }
      } catch (e) {
        throw new OidcFailure('verification', `userinfo: ${describe(e)}`)
      }
    }
    const email = typeof claims.email === 'string' && claims.email.length <= 320 ? claims.email.trim().toLowerCase() : undefined
    // Control characters never reach a stored name.
    const name =
      typeof claims.name === 'string'
        ? claims.name
            .replace(/[\x00-\x1f\x7f]/g, ' ')
            .trim()
            .slice(0, 200)
        : undefined
    return {
      identity: {
        issuer: idClaims.iss,
        subject: idClaims.sub,
        ...(email && { email }),
        emailVerified: emailVerifiedOf(claims, idClaims.iss),
        ...(name && { name }),
        groups: groupsOf(claims[groupsClaim]),
        ...(claims[groupsClaim] === undefined && { groupsClaimMissing: true }),
      },
      returnTo: pending.returnTo,
      ...(pending.invitation && { invitation: pending.invitation }),
    }
  }
}
