// The session cookie (teams.md §3): `__Host-flagship_session` and Secure when PUBLIC_URL is https, else
// `flagship_session`; HttpOnly, SameSite=Strict, Path=/.
import type { Settings } from '../settings'

export const isSecure = (settings: Pick<Settings, 'publicUrl'>): boolean => settings.publicUrl?.startsWith('https://') ?? false

export const sessionCookieName = (settings: Pick<Settings, 'publicUrl'>): string =>
  isSecure(settings) ? '__Host-flagship_session' : 'flagship_session'

const attributes = (settings: Pick<Settings, 'publicUrl'>) => `Path=/; HttpOnly; SameSite=Strict${isSecure(settings) ? '; Secure' : ''}`

/** The Set-Cookie value that hands the browser a session (a session cookie: no Max-Age; the server ends it). */
export const sessionCookie = (settings: Pick<Settings, 'publicUrl'>, value: string): string =>
  `${sessionCookieName(settings)}=${value}; ${attributes(settings)}`

export const clearedSessionCookie = (settings: Pick<Settings, 'publicUrl'>): string =>
  `${sessionCookieName(settings)}=; ${attributes(settings)}; Max-Age=0`

/** The session cookie's value on a request, read by hand: only our cookie's name, only a value of the
 *  shape we issue (43 base64url characters), so nothing else a client sends is ever parsed. */
export function readSessionCookie(request: Request, settings: Pick<Settings, 'publicUrl'>): string | undefined {
  const header = request.headers.get('cookie')
  if (!header) return undefined
  const name = sessionCookieName(settings)
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq === -1 || part.slice(0, eq).trim() !== name) continue
    const value = part.slice(eq + 1).trim()
    return /^[A-Za-z0-9_-]{43}$/.test(value) ? value : ''
  }
  return undefined
}
