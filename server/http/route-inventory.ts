// Every route declares the permission it needs (`x-permission` in its OpenAPI detail, set by guard() in
// routes/common.ts or by hand where a route checks more than one), and a route of the API surface (/api,
// /ofrep) that takes a caller declares its rate class (`x-rate-class`, route-contract.ts). The app refuses
// to start with a route that declares neither, so a new route cannot slip in unguarded or unmetered;
// tests/unit/route-inventory.test.ts shows the check failing.

/** Routes that plugins register (the OpenAPI document): public by nature. */
const PLUGIN_ROUTES = new Set(['GET /openapi.json'])
const RATE_CLASSES = new Set<unknown>(['evaluation', 'management'])

interface RouteLike {
  method: string
  path: string
  hooks?: { detail?: Record<string, unknown> }
}

const onApiSurface = (path: string) => path.startsWith('/api/') || path.startsWith('/ofrep/')

/** "METHOD /path" of every route without a declared permission, or (on the API surface, taking a caller)
 *  without a declared rate class. */
export function undeclaredRoutes(routes: readonly RouteLike[]): string[] {
  return routes
    .filter((r) => !PLUGIN_ROUTES.has(`${r.method} ${r.path}`))
    .filter((r) => {
      const declared = r.hooks?.detail?.['x-permission']
      if (typeof declared !== 'string' || declared.length === 0) return true
      return declared !== 'public' && onApiSurface(r.path) && !RATE_CLASSES.has(r.hooks?.detail?.['x-rate-class'])
    })
    .map((r) => `${r.method} ${r.path}`)
}
