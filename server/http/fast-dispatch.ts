// Bun's `fetch` for the service: the fast paths (fast-evaluation.ts, fast-ofrep.ts) are picked by the
// request's path before Elysia sees it; everything else goes to Elysia untouched.
//
// Why not Bun's own router (`routes`): a parametric route (`/api/v1/flags/:key`) costs Bun about 1,000
// instructions per request more than `fetch` (callgrind, docs/performance.md), a tenth of what the fast
// path itself runs, while the handlers read `request.url` anyway: finding a prefix and the key in it costs a
// few comparisons. Elysia's routes are not handed to Bun's router either (`systemRouter: false` in app.ts),
// so no path is claimed by two routers.
import type { Server } from 'bun'

/** A fast route's handler: the request, its URL (read once here: each read of `request.url` makes a string),
 *  the path's key and the server. */
export type FastHandler = (request: Request, url: string, key: string, server: Server<unknown>) => Response | Promise<Response>
export type Fallback = (request: Request) => Response | Promise<Response>
/** Bun.serve's `fetch` (listen.ts): what `fastDispatch` makes. */
export type Fetch = (request: Request, server: Server<unknown>) => Response | Promise<Response>

export interface FastRoute {
  method: 'GET' | 'POST'
  /** the route's template as Elysia declares it, ending in `/:key` (e.g. `/api/v1/flags/:key`) */
  template: `${string}/:key`
  handler: FastHandler
}

/** The route `:key` of a path that starts at `at` in `url`: the rest of the path up to the query. Stored keys
 *  are `[A-Za-z0-9._-]` (engine/names.ts), so a segment with `/` (a longer route) or `%` (an encoded key,
 *  which Elysia decodes and words the errors of) is not one the fast path answers. */
export function keyAt(url: string, at: number): string | undefined {
  let end = url.indexOf('?', at)
  if (end === -1) end = url.length
  if (end === at) return undefined
  const key = url.slice(at, end)
  return key.indexOf('/') === -1 && key.indexOf('%') === -1 ? key : undefined
}

/** `fetch` for Bun.serve: a request whose method and path are a fast route's goes to its handler, any other
 *  to `fallback` (Elysia). Bun's request URLs are absolute (`http://host/path?query`), so the path starts
 *  at the first `/` after the scheme's `//`. */
export function fastDispatch(routes: readonly FastRoute[], fallback: Fallback): Fetch {
  // Each template's path up to its key (`/api/v1/flags/`); none is the start of another.
  const table = routes.map((r) => ({ ...r, prefix: r.template.slice(0, -':key'.length) }))
  return (request: Request, server: Server<unknown>): Response | Promise<Response> => {
    const url = request.url
    const path = url.indexOf('/', url.indexOf('//') + 2)
    for (let i = 0; i < table.length; i++) {
      const route = table[i]!
      if (!url.startsWith(route.prefix, path)) continue
      const key = keyAt(url, path + route.prefix.length)
      if (key !== undefined && request.method === route.method) return route.handler(request, url, key, server)
      break
    }
    return fallback(request)
  }
}
