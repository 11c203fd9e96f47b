// /api/v1/auth/oidc: single sign-on through the OpenID provider of OIDC_ISSUER (teams.md §5). `start`
// sends the browser to the provider (state, nonce and PKCE kept server-side, bound to this browser by a
// short-lived cookie); `callback` verifies the answer (identity/oidc.ts), signs the person in
// (identity/oidc-sign-in.ts) and sends the browser to its same-origin return_to. Any failure ends on the
// console's sign-in page with a reason code, never a session; the reason's detail goes to the log and the
// instance audit, not to the URL.
import { t } from 'elysia'
import type { AppDeps } from '../deps'
import { loadOidcSettings, type OidcSettings } from '../../identity/oidc-settings'
import { OidcFailure, OidcRelyingParty, OIDC_STATE_TTL_MS } from '../../identity/oidc'
import { auditRefusedOidcSignIn, StoredOidcStates } from '../../identity/oidc-states'
import { signInWithOidc, SsoRefused, type SsoInvitations } from '../../identity/oidc-sign-in'
import { safeReturnTo } from '../../identity/oidc-return-to'
import { invitationOperations } from '../../identity/invitations'
import { clientAddress } from '../../identity/request-meta'
import { guard, routeModule } from './common'
import { errorResponse } from '../errors'
import { AppError } from '../../errors'

const START_SUMMARY = 'Single sign-on: redirects (302) to the identity provider; 404 OIDC_DISABLED without OIDC_ISSUER'
const CALLBACK_SUMMARY =
  'Single sign-on: the identity provider returns here; signs in and redirects (302) to return_to, or to /signin?sso_error={reason}'
const START_REDIRECT =
  "to the identity provider's authorization endpoint (or to /signin?sso_error=unavailable, " +
  'or =throttled with Retry-After after 30 sign-in attempts a minute from one address)'
const CALLBACK_REDIRECT = 'to return_to with the session cookie, or to /signin?sso_error={reason} without one'
const START_QUERY = t.Object({
  return_to: t.Optional(t.String({ maxLength: 2048, description: 'a path on this service to open afterwards (anything else: /)' })),
  invitation: t.Optional(t.String({ maxLength: 256, description: 'an invitation token to accept with this sign-in' })),
})

const JSON_ERROR = {
  'application/json': {
    schema: {
      type: 'object' as const,
      properties: { error: { type: 'string' as const }, code: { type: 'string' as const } },
      required: ['error', 'code'],
    },
  },
}

/** Route options: the guard, with the redirects documented (they have no JSON body). */
function documented(summary: string, redirect: string) {
  const g = guard('public', 'auth', summary)
  return {
    ...g,
    detail: {
      ...g.detail,
      responses: {
        302: { description: redirect, headers: { Location: { schema: { type: 'string' as const } } } },
        404: { description: 'OIDC_DISABLED: single sign-on is not configured', content: JSON_ERROR },
      },
    },
  }
}

const BINDING = /^[A-Za-z0-9_-]{43}$/
const bindingCookieName = (s: OidcSettings) => (s.publicUrl.startsWith('https://') ? '__Host-flagship_oidc' : 'flagship_oidc')
// SameSite=Lax: the provider sends the browser back with a cross-site navigation, which Strict would strip.
const bindingAttributes = (s: OidcSettings) =>
  s.publicUrl.startsWith('https://') ? 'Path=/; HttpOnly; SameSite=Lax; Secure' : 'Path=/api/v1/auth/oidc; HttpOnly; SameSite=Lax'

function readBinding(request: Request, s: OidcSettings): string | undefined {
  const name = bindingCookieName(s)
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim()
      return BINDING.test(value) ? value : undefined
    }
  }
  return undefined
}

function redirect(location: string, cookies: string[]): Response {
  const headers = new Headers({ location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' })
  for (const c of cookies) headers.append('set-cookie', c)
  return new Response(null, { status: 302, headers })
}

/** The routes, when OIDC_ISSUER is set (settings are read and checked here at start: a bad one stops it). */
export function oidcRoutes(
  deps: Pick<AppDeps, 'identity' | 'settings' | 'store' | 'log' | 'access'>,
  env: Record<string, string | undefined> = process.env,
) {
  const settings = loadOidcSettings(env, deps.settings.publicUrl)
  // Without OIDC_ISSUER the routes still exist (and are documented), answering 404 OIDC_DISABLED.
  if (!settings) {
    const disabled = () => errorResponse(404, 'OIDC_DISABLED', 'Single sign-on is not configured on this service (OIDC_ISSUER)')
    return routeModule('oidc')
      .get('/api/v1/auth/oidc/start', disabled, { ...documented(START_SUMMARY, START_REDIRECT), query: START_QUERY })
      .get('/api/v1/auth/oidc/callback', disabled, documented(CALLBACK_SUMMARY, CALLBACK_REDIRECT))
  }
  deps.log('single sign-on is on', {
    issuer: settings.issuer.href,
    client_id: settings.clientId,
    scopes: settings.scopes,
    groups_claim: settings.groupsClaim,
    role_map_groups: Object.keys(settings.roleMap).length,
    auto_create: settings.autoCreate,
    redirect_uri: settings.redirectUri,
  })
  if (settings.allowInsecure)
    deps.log(
      'OIDC_ALLOW_INSECURE is on: the identity provider may be reached over plain http. Use it only for local trials.',
      { issuer: settings.issuer.href },
      'warn',
    )
  const rp = new OidcRelyingParty(settings, new StoredOidcStates(deps.store), deps.log)
  // `?invitation=` on start: the same invitations as /invite/<token>, used for the verified email.
  const operations = invitationOperations(deps.store, deps.identity, deps.access)
  const invitations: SsoInvitations = {
    emailOf: (token) =>
      operations.byToken(token).then(
        (r) => r.email,
        () => undefined,
      ),
    accept: (token, user) => operations.acceptFor(token, user),
  }
  deps.identity.oidcProviders.push({ id: settings.id, name: settings.name })
  const cleared = `${bindingCookieName(settings)}=; ${bindingAttributes(settings)}; Max-Age=0`
  const signInPage = (reason: string) => `/signin?sso_error=${encodeURIComponent(reason)}`

  return routeModule('oidc')
    .get(
      '/api/v1/auth/oidc/start',
      async ({ request, query }) => {
        // A browser follows this link: too many attempts from its address end on the sign-in page too.
        try {
          await deps.identity.throttle.checkAddress(clientAddress(request))
        } catch (e) {
          if (!(e instanceof AppError) || e.status !== 429) throw e
          const r = redirect(signInPage('throttled'), [])
          if (e.headers?.['Retry-After']) r.headers.set('retry-after', e.headers['Retry-After'])
          return r
        }
        const invitation = typeof query.invitation === 'string' && query.invitation ? query.invitation : undefined
        try {
          const { location, binding } = await rp.start({ returnTo: safeReturnTo(query.return_to), invitation })
          return redirect(location, [
            `${bindingCookieName(settings)}=${binding}; ${bindingAttributes(settings)}; Max-Age=${OIDC_STATE_TTL_MS / 1000}`,
          ])
        } catch (e) {
          if (e instanceof OidcFailure) return redirect(signInPage(e.reason), [])
          throw e
        }
      },
      { ...documented(START_SUMMARY, START_REDIRECT), query: START_QUERY },
    )
    .get(
      '/api/v1/auth/oidc/callback',
      async ({ request }) => {
        const url = new URL(request.url)
        const ip = clientAddress(request)
        try {
          // Counted as a sign-in attempt at the start; here only a refused callback counts (below).
          const done = await rp.finish(url.search, readBinding(request, settings))
          const { cookie } = await signInWithOidc(
            { store: deps.store, identity: deps.identity, settings, log: deps.log, invitations },
            done.identity,
            done.invitation,
            request,
          )
          return redirect(done.returnTo, [cleared, cookie])
        } catch (e) {
          // An AppError here is the profile refused by user creation (an email or name it cannot take).
          const reason = e instanceof OidcFailure || e instanceof SsoRefused ? e.reason : e instanceof AppError ? 'account' : undefined
          if (reason === undefined) throw e
          await deps.identity.throttle.checkAddress(ip).catch(() => undefined)
          deps.log('oidc: sign-in refused', { reason, detail: (e as Error).message, ip }, 'warn')
          await auditRefusedOidcSignIn(deps.store, deps.identity, reason, ip)
          return redirect(signInPage(reason), [cleared])
        }
      },
      documented(CALLBACK_SUMMARY, CALLBACK_REDIRECT),
    )
}
