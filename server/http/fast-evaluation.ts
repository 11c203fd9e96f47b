// GET /api/v1/flags/:key and GET /api/v1/configs/:key ahead of Elysia (fast-dispatch.ts picks them by path).
// Applications call these on every page view, and Elysia's per-request machinery (hooks, context object,
// header merging) cost several times what the evaluation itself does (bench/request-path.ts shows the split).
//
// The fast path answers only the common case: a GET whose token is already in memory, unexpired and allowed
// to read, for a key that exists and a context that parses. Anything else is handed to Elysia untouched
// (`fallback`), before any side effect, so errors, refreshes of unknown tokens and edge cases have one
// implementation: the routes in routes/flags.ts and routes/configs.ts, whose answers
// (evaluation-responses.ts) this module shares.
import type { Snapshots } from '../cache/snapshots'
import type { Authenticator, Caller } from './auth'
import { isClientKey } from '../access/client-keys'
import type { PreparedResponse } from './caching'
import { CONTEXT_QUERY } from './evaluation-context'
import { configResponse } from './evaluation-responses'
import { FlagAnswers } from './flag-answers'
import { fastAdmission, type FastAccessLog, type Meter, type PendingAnswer } from './fast-admission'
import type { RequestMetrics } from '../metrics/requests'
import type { RateLimiter, RateVerdict } from './rate-limit'
import { decodeQueryValue, hasControlCharacter } from './url-input'
import type { Fallback, FastHandler, FastRoute } from './fast-dispatch'

export interface FastEvaluationDeps {
  snapshots: Snapshots
  authenticator: Authenticator
  limiter: RateLimiter
  /** how the route at `method` and `route` (its template) is metered: its declared rate class and limit */
  meter(method: string, route: string): Meter
  /** where the answers given here are counted (what is handed to Elysia is counted there) */
  requests: RequestMetrics
  /** ACCESS_LOG's lines for the answers given here; undefined when it is off */
  accessLog?: FastAccessLog
}

const FLAG_PATH = '/api/v1/flags/:key'
const CONFIG_PATH = '/api/v1/configs/:key'
const ENVIRONMENT_QUERY = '?environment='

/** The two GETs for fast-dispatch.ts; their HEADs and other methods stay Elysia's. */
export function fastEvaluationRoutes(deps: FastEvaluationDeps, fallback: Fallback): FastRoute[] {
  const { snapshots } = deps
  const flagAnswers = new FlagAnswers(snapshots)
  // Each admission meters as its route declares (route-contract.ts), read here once.
  const flagAdmission = fastAdmission(deps.authenticator, deps.limiter, deps.meter('GET', FLAG_PATH), deps.accessLog)
  const configAdmission = fastAdmission(deps.authenticator, deps.limiter, deps.meter('GET', CONFIG_PATH), deps.accessLog)
  // Resolved once: per answer, counting is a few number increments (metrics.ts).
  const flagSeries = deps.requests.series(FLAG_PATH, 'GET')
  const configSeries = deps.requests.series(CONFIG_PATH, 'GET')

  /** The caller if this GET may take the fast path: no Origin, a known, unexpired token that holds
   *  `permission`. A body (which a GET may carry) is ignored here as Elysia's route ignores it. */
  function admitted(headers: Headers, permission: 'read:flags' | 'read:configs', now: number): Caller | undefined {
    // Requests from browsers (an Origin header) get their CORS headers on Elysia's path (cors.ts). Only GETs
    // arrive here (fast-dispatch.ts): HEAD is Elysia's.
    if (headers.get('origin') !== null) return undefined
    // Who the caller is does not depend on the route's meter: either admission answers it.
    return flagAdmission.caller(headers.get('authorization'), permission, now)
  }

  const flag: FastHandler = (request, url, key, server) => {
    const started = performance.now()
    const now = Date.now()
    const headers = request.headers
    const caller = admitted(headers, 'read:flags', now)
    if (caller === undefined) return fallback(request)
    // Remembered or evaluated now, counted as usage only once admitted (fast-admission.ts).
    const answer = flagAnswers.repeated(caller, url) ?? firstAnswer(caller, url, key)
    if (answer === undefined) return fallback(request)
    return flagAdmission.admit(request, headers, caller, answer, now, flagSeries, started, server)
  }

  /** The evaluation of a URL not among the caller's recent ones; undefined when Elysia should answer. */
  function firstAnswer(caller: Caller, url: string, key: string): PendingAnswer | undefined {
    // Only no query or exactly one `context=` is served here; Elysia refuses any other parameter (`?ctx=`).
    const q = url.indexOf('?')
    if (q !== -1 && (!url.startsWith(CONTEXT_QUERY, q) || url.indexOf('&', q) !== -1)) return undefined
    try {
      return flagAnswers.evaluation(caller, url, key)
    } catch {
      return undefined // unknown flag or a malformed context: Elysia's route words the error
    }
  }

  const config: FastHandler = (request, url, key, server) => {
    const started = performance.now()
    const now = Date.now()
    const headers = request.headers
    const caller = admitted(headers, 'read:configs', now)
    if (caller === undefined) return fallback(request)
    // Elysia validates this route's query (any other parameter is a 400, repeats and encoded names have
    // its own readings): only no query, or exactly one plain `environment=`, is served here.
    const q = url.indexOf('?')
    let environment: string | undefined
    if (q !== -1) {
      if (!url.startsWith(ENVIRONMENT_QUERY, q) || url.indexOf('&', q) !== -1) return fallback(request)
      // Broken encoding or a control character: Elysia's URL check (url-input.ts) words the 400.
      const decoded = decodeQueryValue(url.slice(q + ENVIRONMENT_QUERY.length))
      if (decoded === null || hasControlCharacter(decoded)) return fallback(request)
      environment = decoded
    }
    let prepared: PreparedResponse
    try {
      prepared = configResponse(
        snapshots,
        caller.actor.projectId,
        key,
        environment,
        caller.token.environment,
        isClientKey(caller.token.permissions),
      )
    } catch {
      return fallback(request)
    }
    const answer = { serve: (h: Headers, verdict: RateVerdict) => prepared.respond(h.get('if-none-match'), verdict) }
    return configAdmission.admit(request, headers, caller, answer, now, configSeries, started, server)
  }

  return [
    { method: 'GET', template: FLAG_PATH, handler: flag },
    { method: 'GET', template: CONFIG_PATH, handler: config },
  ]
}
