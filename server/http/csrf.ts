// Cross-site request forgery rules (teams.md §3). A cookie-authenticated request other than GET/HEAD/
// OPTIONS, and every sign-in, setup and invitation-accept request (cookie or not), must carry
// `X-Flagship-Request: 1` (a header no form and no simple cross-site request can send) and must not come
// from another site (`Sec-Fetch-Site`, `Origin`). Bearer-token requests are not affected.
import type { Settings } from '../settings'
import { AppError } from '../errors'

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Sign-in routes: checked whether or not a cookie came with the request. */
export const ALWAYS_CHECKED = new Set([
  '/api/v1/auth/login',
  '/api/v1/auth/setup',
  '/api/v1/auth/invitations/accept',
  '/api/v1/auth/password-reset',
])

const refused = (why: string) => new AppError(403, 'CSRF_REJECTED', `Cross-site request refused: ${why}`)

/** This service's origin: PUBLIC_URL's, else the one the request was sent to (its Host). */
function ownOrigin(request: Request, settings: Pick<Settings, 'publicUrl'>): string {
  if (settings.publicUrl) return new URL(settings.publicUrl).origin
  return new URL(request.url).origin
}

/** The refusal for a request that breaks the rules, undefined when it may go on. */
export function csrfRefusal(
  request: Request,
  path: string,
  cookieAuthenticated: boolean,
  settings: Pick<Settings, 'publicUrl'>,
): AppError | undefined {
  if (SAFE.has(request.method)) return undefined
  if (!cookieAuthenticated && !ALWAYS_CHECKED.has(path)) return undefined
  const headers = request.headers
  if (headers.get('x-flagship-request') !== '1') return refused('the X-Flagship-Request: 1 header is missing')
  const site = headers.get('sec-fetch-site')
  if (site === 'cross-site' || site === 'same-site') return refused(`Sec-Fetch-Site is ${site}`)
  const origin = headers.get('origin')
  if (origin !== null && origin !== ownOrigin(request, settings)) return refused('the Origin is not this service')
  return undefined
}
