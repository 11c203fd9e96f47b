// A route declares its whole contract on the route, in its OpenAPI detail: the permission it needs
// (`x-permission`; `public` takes no caller), the rate class that meters it (`x-rate-class`), whether it
// writes flags, configs or segments (a write permission, or `x-writes-documents`), and the rest of its
// OpenAPI. guard() (routes/common.ts) writes the common case. This is the one place the gates read a
// declaration from: app.ts's request gate (whether there is a caller, which rate class, whether X-API-Key
// is accepted), the offline gate (offline-gate.ts), and the fast paths (once, at startup), so none of them
// keeps a list of paths of its own.
import type { RateClass } from './rate-limit'
import { routeTemplates } from './route-templates'

/** A route's OpenAPI detail, `x-` fields included. */
export type Declaration = Readonly<Record<string, unknown>>

interface RouteLike {
  method: string
  path: string
  hooks?: { detail?: Record<string, unknown> }
}

export interface RouteContracts {
  /** The declaration of the route registered for `method` at `route` (its template, as the router names it). */
  of(method: string, route: string): Declaration | undefined
  /** The declaration of the route a request for `method` and `path` reaches: the router's precedence (a
   *  literal segment before a `:param`), among that method's routes. */
  ofRequest(method: string, path: string): Declaration | undefined
}

export function routeContracts(routes: readonly RouteLike[]): RouteContracts {
  const declared = new Map<string, Declaration | undefined>()
  const paths = new Map<string, string[]>()
  for (const r of routes) {
    declared.set(`${r.method} ${r.path}`, r.hooks?.detail)
    paths.set(r.method, [...(paths.get(r.method) ?? []), r.path])
  }
  const templates = new Map([...paths].map(([method, list]) => [method, routeTemplates(list)]))
  const of = (method: string, route: string) => declared.get(`${method} ${route}`)
  return {
    of,
    ofRequest(method, path) {
      const route = templates.get(method)?.(path)
      return route === undefined ? undefined : of(method, route)
    },
  }
}

/** Declares a route's options (guard()'s) in a rate class other than guard()'s default, `management`: the
 *  routes an application calls as it evaluates (and reports what it evaluated) are `evaluation`. */
export const withRateClass = <T extends { detail: object }>(rateClass: RateClass, options: T): T => ({
  ...options,
  detail: { ...options.detail, 'x-rate-class': rateClass },
})

/** Whether the route is answered without a caller (`public`: the sign-in routes; no token, no rate class). */
export const takesNoCaller = (declaration: Declaration | undefined): boolean => declaration?.['x-permission'] === 'public'

/** The rate class a route is metered by (docs/behaviour.md §7). Every route that takes a caller declares
 *  one (route-inventory.ts refuses to start otherwise); `management` is only the type's fallback. */
export const rateClassOf = (declaration: Declaration | undefined): RateClass =>
  declaration?.['x-rate-class'] === 'evaluation' ? 'evaluation' : 'management'
