// The answers of the two cacheable evaluation reads, GET /api/v1/flags/:key and GET /api/v1/configs/:key,
// from the in-memory snapshot: shared by their Elysia routes and the native fast path (fast-evaluation.ts).
import type { CachedFlag, ProjectSnapshot, Snapshots } from '../cache/snapshots'
import type { DocumentRow } from '../store/documents'
import { configValue } from '../services/configs'
import { notFound } from '../errors'
import { cacheControl, preparedFor, PreparedResponse } from './caching'
import { contextFromUrl } from './evaluation-context'
import { visibleToClientKeys } from '../access/client-keys'
import { contextIn, environmentFor } from './key-environment'
import type { CompiledFlag, EvaluationContext, EvaluationResult } from '../engine'
import type { RateVerdict } from './rate-limit'
import { tallyIn } from './evaluation-tally'
import { usageCell, type UsageCell } from '../usage/counter'

export const FLAG_CACHE_CONTROL = cacheControl({ maxAge: 10 })
export const CONFIG_CACHE_CONTROL = cacheControl({ maxAge: 60 })

/** The evaluation of flag `key` for the `?context=` of `url`; 404, 400 (bad context, unknown environment)
 *  or 403 (ENVIRONMENT_MISMATCH) as AppErrors. `keyEnvironment`: the caller's environment key's (null for
 *  none); `client`: a client key, which sees only client_side flags. */
export function flagResponse(
  snapshots: Snapshots,
  projectId: string,
  key: string,
  url: string,
  keyEnvironment: string | null = null,
  client = false,
): PreparedResponse {
  const evaluation = flagEvaluation(snapshots, projectId, key, url, keyEnvironment, client)
  evaluation.count()
  return evaluation.prepared
}

/** `flagResponse` before its usage is counted: the fast path counts only once the request is admitted
 *  (fast-admission.ts), so a request refused with 429 is not usage. */
export function flagEvaluation(
  snapshots: Snapshots,
  projectId: string,
  key: string,
  url: string,
  keyEnvironment: string | null = null,
  client = false,
): FlagEvaluation {
  const snap = snapshots.project(projectId)
  const flag = visibleFlag(snap, key, client)
  return evaluateFlag(projectId, flag, contextFromUrl(url), keyEnvironment, snap!.project.environments)
}

/** Flag `key` of the project as a caller (`client`: a client key, which sees only client_side flags) may
 *  see it; 404 FLAG_NOT_FOUND as an AppError. */
export function visibleFlag(snap: ProjectSnapshot | undefined, key: string, client: boolean): CachedFlag {
  const flag = snap?.flags.get(key)
  if (flag === undefined || (client && !visibleToClientKeys(flag.row.body))) throw notFound('FLAG_NOT_FOUND', `Flag "${key}"`)
  return flag
}

/** `flag` evaluated for the context the request sent (`requested`), in the environment key's environment
 *  when there is one (`known`: the project's environments); 400 or 403 as contextIn throws them. */
export function evaluateFlag(
  projectId: string,
  flag: CachedFlag,
  requested: EvaluationContext,
  keyEnvironment: string | null,
  known: readonly string[],
): FlagEvaluation {
  const context = contextIn(keyEnvironment, requested, known)
  const result = flag.compiled.evaluate(context)
  return new FlagEvaluation(projectId, flag.compiled, result, context, preparedFor(result, FLAG_CACHE_CONTROL))
}

/** One evaluation, its answer prepared and its usage (and exposure) not yet counted: one object per request,
 *  or per repeated request when its answer is remembered (flag-answers.ts), counting each time it serves. */
export class FlagEvaluation {
  /** where its usage counts, found on the first count */
  private cell: UsageCell | undefined

  constructor(
    private readonly projectId: string,
    private readonly compiled: CompiledFlag,
    private readonly result: EvaluationResult,
    private readonly context: EvaluationContext,
    readonly prepared: PreparedResponse,
  ) {}

  /** The answer depends on the context alone (engine: CompiledFlag.contextOnly): it may be remembered. */
  get contextOnly(): boolean {
    return this.compiled.contextOnly
  }

  count(): void {
    const cell = (this.cell ??= usageCell(this.projectId, this.compiled, this.result, this.context.environment))
    tallyIn(cell, this.projectId, this.compiled, this.result, this.context)
  }

  /** Counts the evaluation and answers (fast-admission.ts calls it once the request is admitted). */
  serve(headers: Headers, verdict: RateVerdict): Response {
    this.count()
    return this.prepared.respond(headers.get('if-none-match'), verdict)
  }
}

/** Per stored config row (rows are replaced, never mutated, on change): its prepared answer per environment
 *  that has an override, '' for the base value. Other environment names share the base answer, so the
 *  map's size is bounded by the row's own overrides. */
const configAnswers = new WeakMap<DocumentRow, Map<string, PreparedResponse>>()

/** Config `key`'s value for `requested` (the override when there is one), or for the environment key's
 *  environment; 404, 400 UNKNOWN_ENVIRONMENT or 403 ENVIRONMENT_MISMATCH as AppErrors. */
export function configResponse(
  snapshots: Snapshots,
  projectId: string,
  key: string,
  requested: string | undefined,
  keyEnvironment: string | null = null,
  client = false,
): PreparedResponse {
  const snap = snapshots.project(projectId)
  const row = snap?.configs.get(key)
  if (row === undefined || (client && !visibleToClientKeys(row.body))) throw notFound('CONFIG_NOT_FOUND', `Config "${key}"`)
  const environment = environmentFor(keyEnvironment, requested, snap!.project.environments)
  let answers = configAnswers.get(row)
  if (answers === undefined) configAnswers.set(row, (answers = new Map()))
  const environments = row.body.environments
  const slot = environment !== undefined && environments !== undefined && Object.hasOwn(environments, environment) ? environment : ''
  let answer = answers.get(slot)
  if (answer === undefined)
    answers.set(slot, (answer = new PreparedResponse(JSON.stringify({ value: configValue(row, slot || undefined) }), CONFIG_CACHE_CONTROL)))
  return answer
}
