// Every route declares the permission it needs (`x-permission` in its OpenAPI detail, set by guard() in
// routes/common.ts or by hand where a route checks more than one). The app refuses to start with a route
// that declares none, so a new route cannot slip in unguarded; tests/unit/route-inventory.test.ts shows
// the check failing.

/** Routes that plugins register (the OpenAPI document): public by nature. */
const PLUGIN_ROUTES = new Set(['GET /openapi.json'])

interface RouteLike {
  method: string
  path: string
  hooks?: { detail?: Record<string, unknown> }
}

/** "METHOD /path" of every route without a declared permission. */
export function undeclaredRoutes(routes: readonly RouteLike[]): string[] {
  return routes
    .filter((r) => !PLUGIN_ROUTES.has(`${r.method} ${r.path}`))
    .filter((r) => {
      const declared = r.hooks?.detail?.['x-permission']
      return typeof declared !== 'string' || declared.length === 0
    })
    .map((r) => `${r.method} ${r.path}`)
}
