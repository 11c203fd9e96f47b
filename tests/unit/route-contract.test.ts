// A route's rate class, and whether it takes a caller at all, are declared on the route (route-contract.ts)
// instead of being read from its path. This pins the move: for every route of both apps (the service's and a
// relay's), on request paths that reach it, the declaration gives what the path rules it replaced gave
// (frozen below as they were), and the evaluation class holds exactly the routes it always held.
import { describe, expect, test } from 'bun:test'
import { createApp } from '../../server/http/app'
import { rateClassOf, routeContracts, takesNoCaller } from '../../server/http/route-contract'
import { loadSettings } from '../../server/settings'

/** The path rules as they were (app.ts's rateClassOf, and routes/auth.ts's PUBLIC_AUTH_PATHS). */
const OLD_STREAM_PATHS = new Set(['/api/v1/stream', '/ofrep/v1/stream'])
function oldRateClassOf(method: string, path: string): 'evaluation' | 'management' {
  if (
    method === 'POST' &&
    (path === '/api/v1/evaluate' || path === '/api/v1/usage' || path === '/api/v1/events' || path.startsWith('/ofrep/'))
  )
    return 'evaluation'
  if (method === 'GET' && /^\/api\/v1\/(flags|configs)\/[^/]+$/.test(path)) return 'evaluation'
  if (method === 'GET' ? OLD_STREAM_PATHS.has(path) || path === '/api/v1/definitions' : path === '/api/v1/stream/tickets')
    return 'evaluation'
  return 'management'
}
const OLD_PUBLIC_AUTH_PATHS = new Set([
  '/api/v1/auth/methods',
  '/api/v1/auth/setup',
  '/api/v1/auth/login',
  '/api/v1/auth/invitations/accept',
  '/api/v1/auth/invitations/lookup',
  '/api/v1/auth/oidc/start',
  '/api/v1/auth/oidc/callback',
  '/api/v1/auth/password-reset',
])

/** Stands in for every dependency: the route table is built, but no handler runs. */
function stub(): unknown {
  const self: unknown = new Proxy(() => {}, {
    get: (_, key) => (typeof key === 'symbol' || key === 'then' ? undefined : self),
    apply: () => self,
  })
  return self
}
const settings = loadSettings({})
const fullDeps = new Proxy({ settings } as Record<string | symbol, unknown>, { get: (t, k) => (k in t ? t[k] : stub()) })
const relayDeps = new Proxy({ settings, relay: stub() } as Record<string | symbol, unknown>, {
  get: (t, k) => (k in t ? t[k] : stub()),
  has: (t, k) => k in t,
})

/** Request paths for a template: each `:param` filled with an ordinary value, and with the words the old
 *  rules compared against (a path the rules knew by name may reach a template with a parameter). */
const FILLS = ['x', 'flags', 'configs', 'evaluate', 'usage', 'events', 'definitions', 'stream', 'tickets', 'v1', 'ofrep']
const samplePaths = (template: string) => [...new Set(FILLS.map((fill) => template.replace(/:[^/]+/g, fill)))]

/** The API surface the app's request gate runs on (app.ts's onRequest); other paths take no part. */
const onApiSurface = (path: string) => path.startsWith('/api/') || path.startsWith('/ofrep/')

for (const [mode, deps] of [
  ['service', fullDeps],
  ['relay', relayDeps],
] as const) {
  describe(`${mode}: every route's declared contract matches the path rules it replaced`, () => {
    const { app } = createApp(deps as never)
    const contracts = routeContracts(app.routes as never)
    const routes = app.routes.filter((r) => onApiSurface(r.path))

    test('the rate class and the caller-less (public) routes, on every path that reaches each route', () => {
      const mismatches: string[] = []
      for (const route of routes) {
        let reached = 0
        for (const path of samplePaths(route.path)) {
          const declaration = contracts.ofRequest(route.method, path)
          if (declaration !== contracts.of(route.method, route.path)) continue
          reached++
          const was = OLD_PUBLIC_AUTH_PATHS.has(path) ? 'public' : oldRateClassOf(route.method, path)
          const now = takesNoCaller(declaration) ? 'public' : rateClassOf(declaration)
          if (now !== was) mismatches.push(`${route.method} ${route.path} (${path}): was ${was}, declared ${now}`)
        }
        if (reached === 0) mismatches.push(`${route.method} ${route.path}: no sample path reaches it`)
      }
      expect(routes.length).toBeGreaterThan(mode === 'service' ? 100 : 10)
      expect(mismatches).toEqual([])
    })

    test('the evaluation class: the routes an application calls as it evaluates', () => {
      const evaluation = routes
        .filter((r) => rateClassOf(contracts.of(r.method, r.path)) === 'evaluation')
        .map((r) => `${r.method} ${r.path}`)
      expect(evaluation.sort()).toEqual([
        'GET /api/v1/configs/:key',
        'GET /api/v1/definitions',
        'GET /api/v1/flags/:key',
        'GET /api/v1/stream',
        'GET /ofrep/v1/stream',
        'POST /api/v1/evaluate',
        'POST /api/v1/events',
        'POST /api/v1/stream/tickets',
        'POST /api/v1/usage',
        'POST /ofrep/v1/evaluate/flags',
        'POST /ofrep/v1/evaluate/flags/:key',
      ])
    })

    test('every route that takes a caller declares its rate class; caller-less routes declare none', () => {
      const wrong = routes
        .map((r) => ({ route: `${r.method} ${r.path}`, declaration: contracts.of(r.method, r.path) }))
        .filter(({ declaration }) => takesNoCaller(declaration) === (declaration?.['x-rate-class'] !== undefined))
        .map(({ route }) => route)
      expect(wrong).toEqual([])
    })
  })
}
