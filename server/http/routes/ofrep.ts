// OFREP, the OpenFeature Remote Evaluation Protocol (v0.3.0): POST /ofrep/v1/evaluate/flags/{key} and
// POST /ofrep/v1/evaluate/flags, so every OpenFeature SDK's generic OFREP provider works with Flagship
// unchanged. A thin mapping over the in-memory snapshot and the one engine (the same compiled flags as
// GET /api/v1/flags/:key); authentication, the evaluation rate-limit class and the body reader are the
// app's, as for every other route. Where OFREP is silent, flagd's OFREP service is the model.
import { t } from 'elysia'
import { attributeKey, getProperty, type CompiledFlag, type EvaluationContext, type EvaluationResult } from '../../engine'
import { AppError } from '../../services/errors'
import type { AppDeps } from '../app'
import { requirePermission } from '../auth'
import { sendCached, etagOf } from '../caching'
import { JSON_HEADERS } from '../errors'
import { routeModule } from './common'

type ErrorCode = 'PARSE_ERROR' | 'TARGETING_KEY_MISSING' | 'INVALID_CONTEXT' | 'FLAG_NOT_FOUND' | 'GENERAL'

const OFREP_REASON: Record<EvaluationResult['reason'], string> = {
  disabled: 'DISABLED', override: 'TARGETING_MATCH', targeting: 'TARGETING_MATCH', rollout: 'SPLIT', default: 'DEFAULT', environment_override: 'DEFAULT',
}

class OfrepError extends Error {
  constructor(readonly status: number, readonly errorCode: ErrorCode, message: string) {
    super(message)
  }
}

const errorBody = (key: string | undefined, code: ErrorCode, details: string) => ({ ...(key !== undefined && { key }), errorCode: code, errorDetails: details })
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: JSON_HEADERS })

/** The OFREP context as ours: `targetingKey` is `user_id`, `environment` and `plan` are themselves, every
 *  other attribute goes to `custom` (where conditions on e.g. `country` find it). */
export function mapContext(body: unknown): EvaluationContext {
  if (body === undefined || body === null) return {}
  if (typeof body !== 'object' || Array.isArray(body)) throw new OfrepError(400, 'INVALID_CONTEXT', 'The request body must be an object { "context": { … } }')
  const context = (body as { context?: unknown }).context
  if (context === undefined || context === null) return {}
  if (typeof context !== 'object' || Array.isArray(context)) throw new OfrepError(400, 'INVALID_CONTEXT', 'context must be an object')
  const mapped: Record<string, unknown> = {}
  const custom: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(context)) {
    if (name === 'targetingKey') {
      if (typeof value !== 'string') throw new OfrepError(400, 'INVALID_CONTEXT', 'targetingKey must be a string')
      mapped.user_id = value
    } else if (name === 'environment' || name === 'plan') {
      if (typeof value !== 'string') throw new OfrepError(400, 'INVALID_CONTEXT', `${name} must be a string`)
      mapped[name] = value
    } else custom[name] = value
  }
  return { ...mapped, custom } as EvaluationContext
}

/** One flag's OFREP answer: success, or TARGETING_KEY_MISSING when its rollout had nothing to bucket on. */
function evaluateOne(key: string, compiled: CompiledFlag, version: number, context: EvaluationContext) {
  const result = compiled.evaluate(context)
  const branch = compiled.branchOf(result)
  if (result.reason === 'rollout' && compiled.rolloutAttribute !== null && attributeKey(getProperty(context, compiled.rolloutAttribute)) === undefined) {
    throw new OfrepError(400, 'TARGETING_KEY_MISSING', `Flag "${key}" rolls out by "${compiled.rolloutAttribute}", which the context does not hold (send targetingKey for user_id)`)
  }
  const fixed = (result.reason === 'default' || result.reason === 'environment_override') && compiled.isStatic
  return {
    key,
    value: result.value,
    reason: fixed ? 'STATIC' : OFREP_REASON[result.reason],
    variant: branch,
    metadata: { flagVersion: version, environment: typeof context.environment === 'string' ? context.environment : '' },
  }
}

/** Errors the app's own layers raise on an OFREP path (a body that is not JSON, UTF-8 or shallow enough)
 *  in OFREP's shape; anything else keeps the service's shape. */
export function ofrepErrorResponse(path: string, error: AppError): Response | undefined {
  if (!path.startsWith('/ofrep/v1/evaluate/') || error.status !== 400) return undefined
  const key = /^\/ofrep\/v1\/evaluate\/flags\/([^/]+)$/.exec(path)?.[1]
  return json(400, errorBody(key === undefined ? undefined : decodeURIComponent(key), 'PARSE_ERROR', error.message))
}

const OfrepBody = t.Unknown({ description: 'OFREP evaluation request: { "context": { "targetingKey": "u-42", … } }; the body or its context may be absent' })
const detail = (summary: string) => ({ tags: ['ofrep'], summary, security: [{ bearer: [] }], description: 'OpenFeature Remote Evaluation Protocol v0.3.0. Permission: `read:flags`. Auth: `Authorization: Bearer <token>` or `X-API-Key: <token>`.' })
const ErrorEntry = t.Object({ key: t.Optional(t.String()), errorCode: t.String(), errorDetails: t.String() }, { title: 'OfrepError' })
const Success = t.Object({
  key: t.String(),
  value: t.Any({ description: 'any JSON value' }),
  reason: t.String({ description: 'STATIC, DEFAULT, TARGETING_MATCH, SPLIT or DISABLED' }),
  variant: t.String({ description: 'off, override, rule-<n>, rollout or default' }),
  metadata: t.Object({ flagVersion: t.Number(), environment: t.String() }),
}, { title: 'OfrepEvaluation' })

export const ofrepRoutes = ({ snapshots }: AppDeps) =>
  routeModule('ofrep')
    .post('/ofrep/v1/evaluate/flags/:key', ({ request, params, body }) => {
      const caller = requirePermission(request, 'read:flags')
      const { key } = params
      try {
        const context = mapContext(body)
        const flag = snapshots.project(caller.actor.projectId)?.flags.get(key)
        if (!flag) return json(404, errorBody(key, 'FLAG_NOT_FOUND', `Flag "${key}" not found`))
        return json(200, evaluateOne(key, flag.compiled, flag.row.version, context))
      } catch (e) {
        if (e instanceof OfrepError) return json(e.status, errorBody(key, e.errorCode, e.message))
        throw e
      }
    }, {
      body: OfrepBody,
      params: t.Object({ key: t.String() }),
      detail: detail('Evaluate one flag (OFREP)'),
      response: { 200: Success, 400: ErrorEntry, 404: ErrorEntry },
    })
    .post('/ofrep/v1/evaluate/flags', ({ request, body }) => {
      const caller = requirePermission(request, 'read:flags')
      let context: EvaluationContext
      try {
        context = mapContext(body)
      } catch (e) {
        if (e instanceof OfrepError) return json(e.status, errorBody(undefined, e.errorCode, e.message))
        throw e
      }
      const flags = []
      for (const [key, flag] of snapshots.project(caller.actor.projectId)?.flags ?? []) {
        try {
          flags.push(evaluateOne(key, flag.compiled, flag.row.version, context))
        } catch (e) {
          // One flag's error never fails the whole answer.
          flags.push(e instanceof OfrepError ? errorBody(key, e.errorCode, e.message) : errorBody(key, 'GENERAL', 'evaluation failed'))
        }
      }
      const text = JSON.stringify({ flags, metadata: {} })
      return sendCached(request, text, etagOf(text), 'private, no-cache')
    }, {
      body: OfrepBody,
      detail: detail('Evaluate every flag of the project (OFREP bulk); strong ETag, 304 on If-None-Match'),
      response: {
        200: t.Object({ flags: t.Array(t.Union([Success, ErrorEntry])), metadata: t.Object({}, { additionalProperties: true }) }),
        400: ErrorEntry,
      },
    })
