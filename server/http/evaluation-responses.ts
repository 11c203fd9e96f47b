// The answers of the two cacheable evaluation reads, GET /api/v1/flags/:key and GET /api/v1/configs/:key,
// from the in-memory snapshot: shared by their Elysia routes and the native fast path (fast-evaluation.ts).
import type { Snapshots } from '../cache/snapshots'
import type { DocumentRow } from '../store/documents'
import { configBodyOf, configValue } from '../services/configs'
import { notFound } from '../errors'
import { cacheControl, preparedFor, PreparedResponse } from './caching'
import { contextFromUrl } from './evaluation-context'
import { countEvaluation } from '../usage/counter'
import { recordExposure } from '../experiments/exposures'

export const FLAG_CACHE_CONTROL = cacheControl({ maxAge: 10 })
export const CONFIG_CACHE_CONTROL = cacheControl({ maxAge: 60 })

/** The evaluation of flag `key` for the `?context=` of `url`; 404 or 400 (bad context) as AppErrors. */
export function flagResponse(snapshots: Snapshots, projectId: string, key: string, url: string): PreparedResponse {
  const flag = snapshots.project(projectId)?.flags.get(key)
  if (flag === undefined) throw notFound('FLAG_NOT_FOUND', `Flag "${key}"`)
  const context = contextFromUrl(url)
  const result = flag.compiled.evaluate(context)
  countEvaluation(projectId, flag.compiled, result, context.environment)
  recordExposure(projectId, flag.compiled, result, context)
  return preparedFor(result, FLAG_CACHE_CONTROL)
}

/** Per stored config row (rows are replaced, never mutated, on change): its prepared answer per environment
 *  that has an override, '' for the base value. Other environment names share the base answer, so the
 *  map's size is bounded by the row's own overrides. */
const configAnswers = new WeakMap<DocumentRow, Map<string, PreparedResponse>>()

/** Config `key`'s value for `environment` (the override when there is one); 404 as an AppError. */
export function configResponse(snapshots: Snapshots, projectId: string, key: string, environment: string | undefined): PreparedResponse {
  const row = snapshots.project(projectId)?.configs.get(key)
  if (row === undefined) throw notFound('CONFIG_NOT_FOUND', `Config "${key}"`)
  let answers = configAnswers.get(row)
  if (answers === undefined) configAnswers.set(row, (answers = new Map()))
  const environments = configBodyOf(row).environments
  const slot = environment !== undefined && environments !== undefined && Object.hasOwn(environments, environment) ? environment : ''
  let answer = answers.get(slot)
  if (answer === undefined) answers.set(slot, (answer = new PreparedResponse(JSON.stringify({ value: configValue(row, slot || undefined) }), CONFIG_CACHE_CONTROL)))
  return answer
}
