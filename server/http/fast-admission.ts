// The one admission both fast paths (fast-evaluation.ts, fast-ofrep.ts) go through, in the order the Elysia
// path keeps (app.ts's onRequest, then the route): who the caller is, then the rate limit, and only for an
// admitted request the side effects of an answer (the token's touch, the usage count). A request refused
// with 429 is counted nowhere but in the limiter and the request metrics, on either path.
import type { Server } from 'bun'
import { canEvaluate, type Authenticator, type Caller } from './auth'
import type { RouteSeries } from '../metrics/requests'
import { rateLimited, type RateClass, type RateLimiter, type RateVerdict } from './rate-limit'

/** How a fast route is metered: the rate class its route declares (route-contract.ts, read once when the
 *  fast routes are built) and that class's requests per minute. */
export interface Meter {
  rateClass: RateClass
  limit: number
}

/** An answer computed before admission (pure: nothing counted yet); `serve` counts it and builds the response
 *  (`headers`: the request's, read once by the fast path: each `request.headers` read costs a lookup). */
export interface PendingAnswer {
  serve(headers: Headers, verdict: RateVerdict): Response
}

export interface FastAdmission {
  /** The caller of an `Authorization` header value if it may take the fast path: a token already in memory,
   *  unexpired, holding `permission`; a personal token is checked against its owner's current rights on
   *  Elysia's path, so it is not admitted here. `undefined`: hand the request to Elysia. */
  caller(authorization: string | null, permission: 'read:flags' | 'read:configs', now: number): Caller | undefined
  /** Rate-limits the caller, then (admitted) touches its token and serves the answer, or (refused) answers
   *  429; either way the request is recorded in `series`. Asynchronous only with the Redis limiter. */
  admit(
    request: Request,
    headers: Headers,
    caller: Caller,
    answer: PendingAnswer,
    now: number,
    series: RouteSeries,
    started: number,
    server: Server<unknown> | undefined,
  ): Response | Promise<Response>
}

/** ACCESS_LOG's line for an answer given here (access-log.ts); undefined when the access log is off. */
export type FastAccessLog = (
  request: Request,
  server: Server<unknown> | undefined,
  route: string,
  status: number,
  started: number,
  caller: Caller,
) => void

export function fastAdmission(authenticator: Authenticator, limiter: RateLimiter, meter: Meter, accessLog?: FastAccessLog): FastAdmission {
  const { rateClass, limit } = meter
  function finish(
    request: Request,
    headers: Headers,
    caller: Caller,
    answer: PendingAnswer,
    verdict: RateVerdict,
    now: number,
    series: RouteSeries,
    started: number,
    server: Server<unknown> | undefined,
  ): Response {
    let response: Response
    if (verdict.allowed) {
      authenticator.touch(caller, now)
      response = answer.serve(headers, verdict)
    } else {
      response = rateLimited(verdict)
    }
    series.record(response.status, (performance.now() - started) / 1000)
    if (accessLog !== undefined) accessLog(request, server, series.route, response.status, started, caller)
    return response
  }
  return {
    caller(authorization, permission, now) {
      const caller = authenticator.known(authorization)
      if (caller === undefined || caller.expiresAtMs <= now || !canEvaluate(caller.token, permission) || caller.person !== undefined)
        return undefined
      return caller
    },
    admit(request, headers, caller, answer, now, series, started, server) {
      const verdict = limiter.hit(caller.rateKeys[rateClass], limit, now)
      return verdict instanceof Promise
        ? verdict.then((v) => finish(request, headers, caller, answer, v, now, series, started, server))
        : finish(request, headers, caller, answer, verdict, now, series, started, server)
    },
  }
}
