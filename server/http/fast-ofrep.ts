// POST /ofrep/v1/evaluate/flags/:key (OFREP single-flag evaluation) ahead of Elysia (fast-dispatch.ts picks
// it by path), for the reason fast-evaluation.ts gives for the GETs: OpenFeature providers call it for every
// flag a page reads, and Elysia's per-request machinery costs several times the evaluation.
//
// The fast path answers only the common case: no Origin, no query, a JSON body small enough and with its
// Content-Length, a token already in memory, unexpired and allowed to read flags, and a flag that exists.
// Anything else is handed to Elysia (`fallback`) before any side effect (the token's touch, the rate-limit and usage
// count), so errors have one implementation: the route in routes/ofrep.ts and the app's hooks. The answer
// itself is the route's own (ofrep-mapping.ts), and so are the body rules (json-input.ts): a body that
// breaks them goes to Elysia, which words the error.
import type { CachedFlag } from '../cache/snapshots'
import type { EvaluationContext } from '../engine'
import type { Caller } from './auth'
import { visibleToClientKeys, isClientKey } from '../access/client-keys'
import { BoundedMemo } from './bounded-memo'
import { RateStampedHeaders } from './caching'
import { JSON_HEADERS } from './errors'
import { deepFreeze, MAX_MEMO_VALUES } from './evaluation-context'
import { fastAdmission, type PendingAnswer } from './fast-admission'
import { notePeerOfCopy } from './client-address'
import type { Server } from 'bun'
import type { FastEvaluationDeps } from './fast-evaluation'
import type { Fallback, FastHandler, FastRoute } from './fast-dispatch'
import { decodeBody, parseJsonText } from './json-input'
import { contextAnswer, mapContext, ofrepContextIn, singleFlagAnswer, type OfrepAnswer, type Tally } from './ofrep-mapping'
import { tallyEvaluation } from './evaluation-tally'
import type { EvaluationResult } from '../engine'

/** What both fast paths are built from (fast-evaluation.ts). */
export type FastOfrepDeps = FastEvaluationDeps

const PATH = '/ofrep/v1/evaluate/flags/:key'

/** An OFREP context is a few hundred bytes; larger bodies (up to json-input.ts's limit) are Elysia's. */
const MAX_FAST_BODY = 16 * 1024
const LENGTH = /^[0-9]{1,5}$/
/** What OpenFeature's OFREP providers and curl users send; other spellings take Elysia's media-type check. */
const JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8'])
const EMPTY_CONTEXT: EvaluationContext = Object.freeze({})

/** The POST for fast-dispatch.ts; the path's other methods stay Elysia's. */
export function fastOfrepRoutes(deps: FastOfrepDeps, fallback: Fallback): FastRoute[] {
  const { snapshots } = deps
  // Meters as its route declares (route-contract.ts), read here once.
  const admission = fastAdmission(deps.authenticator, deps.limiter, deps.meter('POST', PATH), deps.accessLog)
  // Resolved once: per answer, counting is a few number increments (metrics.ts).
  const series = deps.requests.series(PATH, 'POST')
  // The route's headers (Content-Type, then the X-RateLimit-* the app's hook adds), in the same order.
  const answerHeaders = new RateStampedHeaders(new Headers(JSON_HEADERS))
  /** Body text -> its mapped, frozen context: a provider sends the same user's context flag after flag, and
   *  parsing and mapping it cost more than the evaluation (bounded as evaluation-context.ts's memo is). */
  const contexts = new BoundedMemo<EvaluationContext>(4096, 1024)

  /** The caller if this request may take the fast path (see the top of the file). */
  function admitted(h: Headers, url: string, length: string | null, now: number): Caller | undefined {
    // Browsers (an Origin) get their CORS headers on Elysia's path (cors.ts); Elysia checks every query's
    // paging parameters. A body without Content-Length (chunked) has no size to bound the read by; Bun
    // itself refuses a request that sends both, or two lengths.
    if (h.get('origin') !== null || url.includes('?')) return undefined
    if (length === null || !LENGTH.test(length) || Number(length) > MAX_FAST_BODY) return undefined
    // An empty body needs no media type (json-input.ts reads it as absent); any other must be JSON.
    const type = h.get('content-type')
    if (type === null ? length !== '0' : !JSON_TYPES.has(type)) return undefined
    // OFREP clients may send the token as X-API-Key; Authorization wins when both are there (auth.ts).
    const authorization = h.get('authorization')
    const apiKey = authorization === null ? h.get('x-api-key') : null
    return admission.caller(apiKey === null ? authorization : `Bearer ${apiKey}`, 'read:flags', now)
  }

  /** The answer for the body's text; throws (an AppError) when json-input.ts refuses the text. */
  function answerFor(
    key: string,
    flag: CachedFlag,
    text: string,
    keyEnvironment: string | null,
    known: readonly string[],
    tally: Tally,
  ): OfrepAnswer {
    let context = contexts.get(text)
    if (context === undefined) {
      const body = parseJsonText(text, 'body')
      try {
        context = mapContext(body)
      } catch {
        return singleFlagAnswer(key, flag, body, undefined, tally) // INVALID_CONTEXT, in the route's own words
      }
      if (deepFreeze(context) <= MAX_MEMO_VALUES) contexts.set(text, context)
    }
    // An environment key's mismatch or an unknown environment throws: the route words it.
    return contextAnswer(key, flag, ofrepContextIn(keyEnvironment, context, known), tally)
  }

  /** Admits the request (fast-admission.ts), then counts the evaluation the answer made (if any) and answers. */
  function respond(
    request: Request,
    requestHeaders: Headers,
    server: Server<unknown> | undefined,
    caller: Caller,
    answer: OfrepAnswer,
    evaluated: Evaluated,
    now: number,
    started: number,
  ): Response | Promise<Response> {
    const pending: PendingAnswer = {
      serve: (_headers, verdict) => {
        if (evaluated.flag !== undefined)
          tallyEvaluation(evaluated.flag.row.projectId, evaluated.flag.compiled, evaluated.result!, evaluated.context!)
        return new Response(answer.text, { status: answer.status, headers: answerHeaders.stamp(verdict) })
      },
    }
    return admission.admit(request, requestHeaders, caller, pending, now, series, started, server)
  }

  /** Reads the body (the one asynchronous step) and answers. A body json-input.ts refuses, or anything
   *  unexpected, goes to Elysia in a copy of the request with the same bytes, since this one's are spent. */
  async function withBody(
    request: Request,
    headers: Headers,
    server: Server<unknown> | undefined,
    caller: Caller,
    key: string,
    flag: CachedFlag,
    known: readonly string[],
    now: number,
    started: number,
  ): Promise<Response> {
    const bytes = await request.bytes()
    const evaluated = new Evaluated()
    let answer: OfrepAnswer
    try {
      answer = answerFor(key, flag, decodeBody(bytes), caller.token.environment, known, evaluated.tally)
    } catch {
      const copy = new Request(request.url, { method: request.method, headers, body: bytes })
      notePeerOfCopy(copy, server?.requestIP(request)?.address)
      return fallback(copy)
    }
    return respond(request, headers, server, caller, answer, evaluated, now, started)
  }

  const single: FastHandler = (request, url, key, server) => {
    const started = performance.now()
    const now = Date.now()
    const headers = request.headers
    const length = headers.get('content-length')
    const caller = admitted(headers, url, length, now)
    if (caller === undefined) return fallback(request)
    const snap = snapshots.project(caller.actor.projectId)
    const flag = snap?.flags.get(key)
    // Unknown flag (or one a client key may not see): 404, or a 400 when the body is wrong too; either way
    // the route's to word.
    if (flag === undefined || (isClientKey(caller.token.permissions) && !visibleToClientKeys(flag.row.body))) return fallback(request)
    const known = snap!.project.environments
    if (length !== '0') return withBody(request, headers, server, caller, key, flag, known, now, started)
    const evaluated = new Evaluated()
    let answer: OfrepAnswer
    try {
      answer = contextAnswer(key, flag, ofrepContextIn(caller.token.environment, EMPTY_CONTEXT, known), evaluated.tally)
    } catch {
      return fallback(request)
    }
    return respond(request, headers, server, caller, answer, evaluated, now, started)
  }

  return [{ method: 'POST', template: PATH, handler: single }]
}

/** The evaluation an answer made, kept until the request is admitted (then counted as usage). */
class Evaluated {
  flag: CachedFlag | undefined
  result: EvaluationResult | undefined
  context: EvaluationContext | undefined
  readonly tally: Tally = (flag, result, context) => {
    this.flag = flag
    this.result = result
    this.context = context
  }
}
