// Counting every request Elysia answers into the request metrics (metrics/requests.ts): the transport's
// side of them, which knows requests, paths and route templates.
import { BoundedMemo } from './bounded-memo'
import { pathOf } from './url-input'
import { UNMATCHED, type RequestMetrics } from '../metrics/requests'

type Handle = (request: Request) => unknown

/** Elysia's `wrap` (a higher-order function around every route handler and the not-found handler): times
 *  each request Elysia answers and records it under the template `templateOf` finds for its path. */
export function countRequests(
  metrics: RequestMetrics,
  templateOf: (path: string) => string | undefined,
  also?: (request: Request, route: string, status: number, started: number) => void,
) {
  // Paths repeat (the same keys are asked for again and again): their templates are remembered, within
  // bounds, so most requests look up one string instead of walking the template tree.
  const routes = new BoundedMemo<string>(10_000, 512)
  const routeOf = (path: string): string => {
    let route = routes.get(path)
    if (route === undefined) routes.set(path, (route = templateOf(path) ?? UNMATCHED))
    return route
  }
  const done = (request: Request, response: unknown, started: number): unknown => {
    const seconds = (performance.now() - started) / 1000
    const status = response instanceof Response ? response.status : 500
    const route = routeOf(pathOf(request.url))
    metrics.series(route, request.method).record(status, seconds)
    also?.(request, route, status, started)
    return response
  }
  return (handle: Handle) => (request: Request) => {
    const started = performance.now()
    let result: unknown
    try {
      result = handle(request)
    } catch (error) {
      done(request, undefined, started)
      throw error
    }
    if (!(result instanceof Promise)) return done(request, result, started)
    return result.then(
      (response) => done(request, response, started),
      (error: unknown) => {
        done(request, undefined, started)
        throw error
      },
    )
  }
}
