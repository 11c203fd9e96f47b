// OFREP's terms as Flagship's (v0.3.0; where OFREP is silent, flagd's OFREP service is the model): the
// context mapping, one flag's answer, and the error shape. Shared by the Elysia routes (routes/ofrep.ts) and
// the single-flag fast path ahead of Elysia (fast-ofrep.ts), so both send the same bytes.
import {
  EvaluationBudgetExceeded,
  InvalidContextError,
  openFeatureContext,
  resolveOpenFeature,
  type CompiledFlag,
  type EvaluationContext,
  type EvaluationResult,
} from '../engine'
import type { CachedFlag } from '../cache/snapshots'
import { JSON_HEADERS } from './errors'
import { AppError } from '../errors'
import { contextIn } from './key-environment'
import { tallyEvaluation } from './evaluation-tally'

export type ErrorCode = 'PARSE_ERROR' | 'TARGETING_KEY_MISSING' | 'INVALID_CONTEXT' | 'FLAG_NOT_FOUND' | 'GENERAL'

export class OfrepError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: ErrorCode,
    message: string,
  ) {
    super(message)
  }
}

export const errorBody = (key: string | undefined, code: ErrorCode, details: string) => ({
  ...(key !== undefined && { key }),
  errorCode: code,
  errorDetails: details,
})
export const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: JSON_HEADERS })

/** The request body's context as ours (the mapping itself is the engine's, shared with the SDK's provider). */
export function mapContext(body: unknown): EvaluationContext {
  if (body === undefined || body === null) return {}
  if (typeof body !== 'object' || Array.isArray(body))
    throw new OfrepError(400, 'INVALID_CONTEXT', 'The request body must be an object { "context": { … } }')
  const context = (body as { context?: unknown }).context
  if (context === undefined || context === null) return {}
  if (typeof context !== 'object' || Array.isArray(context)) throw new OfrepError(400, 'INVALID_CONTEXT', 'context must be an object')
  try {
    return openFeatureContext(context as Record<string, unknown>)
  } catch (e) {
    if (e instanceof InvalidContextError) throw new OfrepError(400, 'INVALID_CONTEXT', e.message)
    throw e
  }
}

/** `context` in the caller's environment (key-environment.ts), its refusals in OFREP's shape: 403 for an
 *  environment key's mismatch, 400 for an unknown environment, both with errorCode INVALID_CONTEXT. */
export function ofrepContextIn(keyEnvironment: string | null, context: EvaluationContext, known: readonly string[]): EvaluationContext {
  try {
    return contextIn(keyEnvironment, context, known)
  } catch (e) {
    if (e instanceof AppError) throw new OfrepError(e.status, 'INVALID_CONTEXT', `${e.code}: ${e.message}`)
    throw e
  }
}

const environmentOf = (context: EvaluationContext): string => (typeof context.environment === 'string' ? context.environment : '')

/** One flag's OFREP answer for an engine result: success, or TARGETING_KEY_MISSING (thrown) when its
 *  rollout had nothing to bucket on. */
function answerFor(key: string, compiled: CompiledFlag, version: number, context: EvaluationContext, result: EvaluationResult) {
  const resolved = resolveOpenFeature(key, compiled, context, result)
  if ('errorCode' in resolved) throw new OfrepError(400, resolved.errorCode, resolved.errorDetails)
  return { key, ...resolved, metadata: { flagVersion: version, environment: environmentOf(context) } }
}

/** One flag's OFREP answer: success, or TARGETING_KEY_MISSING when its rollout had nothing to bucket on. */
export function evaluateOne(key: string, flag: CachedFlag, context: EvaluationContext) {
  const result = flag.compiled.evaluate(context)
  tallyEvaluation(flag.row.projectId, flag.compiled, result, context)
  return answerFor(key, flag.compiled, flag.row.version, context, result)
}

/** The status and JSON text of an OFREP single-flag answer (shared between requests: never changed). */
export interface OfrepAnswer {
  readonly status: number
  readonly text: string
}

const errorAnswer = (key: string, e: OfrepError): OfrepAnswer => ({
  status: e.status,
  text: JSON.stringify(errorBody(key, e.errorCode, e.message)),
})

/** Success answers per engine result and environment name, as the GET's answers are prepared once per
 *  result (caching.ts `preparedFor`). A result object is made once per branch when a flag row is compiled, so
 *  it stands for one key, version, value, reason and variant; only the environment the context names, echoed
 *  in the metadata, varies. At most MAX_ENVIRONMENTS per result are kept (clients choose the names). */
const successes = new WeakMap<EvaluationResult, Map<string, OfrepAnswer>>()
const MAX_ENVIRONMENTS = 16

/** Where an evaluation's usage goes: counted at once (the Elysia route, already admitted), or kept by the
 *  fast path until the request is admitted (fast-admission.ts). */
export type Tally = (flag: CachedFlag, result: EvaluationResult, context: EvaluationContext) => void
const countNow: Tally = (flag, result, context) => tallyEvaluation(flag.row.projectId, flag.compiled, result, context)

/** POST /ofrep/v1/evaluate/flags/{key} for a mapped context: 200, 404 FLAG_NOT_FOUND for an absent flag
 *  (`undefined`), or 400 TARGETING_KEY_MISSING. */
export function contextAnswer(key: string, flag: CachedFlag | undefined, context: EvaluationContext, tally: Tally = countNow): OfrepAnswer {
  if (!flag) return { status: 404, text: JSON.stringify(errorBody(key, 'FLAG_NOT_FOUND', `Flag "${key}" not found`)) }
  const { compiled } = flag
  let result: EvaluationResult
  try {
    result = compiled.evaluate(context)
  } catch (e) {
    if (e instanceof EvaluationBudgetExceeded) return errorAnswer(key, new OfrepError(400, 'GENERAL', e.message))
    throw e
  }
  tally(flag, result, context)
  const environment = environmentOf(context)
  const answers = successes.get(result)
  const cached = answers?.get(environment)
  // The cached text stands for the result; whether the rollout found its attribute is the context's, so a
  // rollout result is checked again on every request (resolveOpenFeature does that).
  if (cached !== undefined && result.reason !== 'rollout') return cached
  let body
  try {
    body = answerFor(key, compiled, flag.row.version, context, result)
  } catch (e) {
    if (e instanceof OfrepError) return errorAnswer(key, e)
    throw e
  }
  if (cached !== undefined) return cached
  const answer = { status: 200, text: JSON.stringify(body) }
  if (answers === undefined) successes.set(result, new Map([[environment, answer]]))
  else if (answers.size < MAX_ENVIRONMENTS) answers.set(environment, answer)
  return answer
}

/** POST /ofrep/v1/evaluate/flags/{key} for a parsed body: an invalid context is 400 INVALID_CONTEXT, even
 *  for a flag that does not exist; otherwise `contextAnswer`. */
export function singleFlagAnswer(
  key: string,
  flag: CachedFlag | undefined,
  body: unknown,
  bind?: (context: EvaluationContext) => EvaluationContext,
  tally: Tally = countNow,
): OfrepAnswer {
  let context: EvaluationContext
  try {
    context = mapContext(body)
    if (bind) context = bind(context)
  } catch (e) {
    if (e instanceof OfrepError) return errorAnswer(key, e)
    throw e
  }
  return contextAnswer(key, flag, context, tally)
}
