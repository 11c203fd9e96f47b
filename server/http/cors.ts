// CORS for the evaluation surface only (docs/behaviour.md §9): browsers may call the evaluation endpoints
// (they carry bearer tokens, never cookies) from the origins in CORS_ORIGINS (default `*`); management
// endpoints send no CORS headers, so a page elsewhere cannot drive them.
const EVALUATION_SURFACE: [RegExp, string][] = [
  [/^\/ofrep\/v1\/evaluate\/flags(\/[^/]+)?$/, 'POST'],
  [/^\/api\/v1\/evaluate$/, 'POST'],
  [/^\/api\/v1\/(flags|configs)\/[^/]+$/, 'GET'],
  [/^\/(api|ofrep)\/v1\/stream$/, 'GET'],
  [/^\/api\/v1\/stream\/tickets$/, 'POST'],
  [/^\/api\/v1\/definitions$/, 'GET'],
  // The SDK's usage reports: a browser SDK on another origin sends them too.
  [/^\/api\/v1\/usage$/, 'POST'],
  // Track and exposure events (docs/experiments.md §1), sent by pages as by servers.
  [/^\/api\/v1\/events$/, 'POST'],
]
const ALLOW_HEADERS = 'Authorization, X-API-Key, Content-Type, If-None-Match, Last-Event-ID'
const EXPOSE_HEADERS = 'ETag, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset'

export interface Cors {
  /** The CORS headers for a request to `path` from `origin`; undefined when none apply. */
  headers(path: string, origin: string | null): Record<string, string> | undefined
  /** The answer to a preflight (OPTIONS) on the evaluation surface; undefined for any other path. */
  preflight(path: string, origin: string | null): Response | undefined
}

export function createCors(origins: readonly string[]): Cors {
  const any = origins.includes('*')
  const allowed = new Set(origins)
  const methodFor = (path: string) => EVALUATION_SURFACE.find(([re]) => re.test(path))?.[1]
  const allowOrigin = (origin: string | null): Record<string, string> | undefined => {
    if (any) return { 'Access-Control-Allow-Origin': '*' }
    if (origin !== null && allowed.has(origin)) return { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' }
    return undefined
  }
  return {
    headers(path, origin) {
      if (origin === null || methodFor(path) === undefined) return undefined
      const allow = allowOrigin(origin)
      return allow && { ...allow, 'Access-Control-Expose-Headers': EXPOSE_HEADERS }
    },
    preflight(path, origin) {
      const method = methodFor(path)
      if (method === undefined) return undefined
      const allow = allowOrigin(origin)
      if (!allow) return new Response(null, { status: 204, headers: { Vary: 'Origin' } })
      return new Response(null, {
        status: 204,
        headers: {
          ...allow,
          'Access-Control-Allow-Methods': method,
          'Access-Control-Allow-Headers': ALLOW_HEADERS,
          'Access-Control-Max-Age': '600',
        },
      })
    },
  }
}
