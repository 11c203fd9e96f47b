// Where a finished sign-in may send the browser: only a path on this service (teams.md §5). Anything that a
// browser could read as another origin (`//x`, `/\x`, `https://x`, and their percent-encoded forms) goes
// to `/`, so the sign-in can never be turned into an open redirect.

const MAX_LENGTH = 2048
const BASE = 'http://return-to.invalid'

function acceptable(path: string): boolean {
  if (!path.startsWith('/')) return false
  // Browsers read `//host` and `/\host` (backslashes count as slashes) as another origin.
  if (path[1] === '/' || path[1] === '\\') return false
  // No backslash anywhere, no whitespace or control characters (browsers strip tabs and newlines).
  return !/[\\\x00-\x20\x7f]/.test(path)
}

/** `raw` when it is a same-origin path (with query and fragment), else `/`. */
export function safeReturnTo(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_LENGTH) return '/'
  // Every decoding of it must still be a plain path: `/%2F%2Fx`, `%2F%2Fx`, `/%5Cx` and doubly encoded
  // forms are refused along with what they decode to.
  let text = raw
  for (let i = 0; i < 5; i++) {
    if (!acceptable(text)) return '/'
    let decoded: string
    try {
      decoded = decodeURIComponent(text)
    } catch {
      return '/'
    }
    if (decoded === text) break
    text = decoded
    if (i === 4) return '/'
  }
  // What a browser resolves it to must stay on the same origin.
  let url: URL
  try {
    url = new URL(raw, BASE)
  } catch {
    return '/'
  }
  if (url.origin !== BASE) return '/'
  const path = url.pathname + url.search + url.hash
  return acceptable(path) ? path : '/'
}
