// OFREP, the OpenFeature Remote Evaluation Protocol (v0.3.0): POST /ofrep/v1/evaluate/flags/{key} and
// POST /ofrep/v1/evaluate/flags, so every OpenFeature SDK's generic OFREP provider works with Flagship
// unchanged. A thin mapping over the in-memory snapshot and the one engine (the same compiled flags as
// GET /api/v1/flags/:key); authentication, the evaluation rate-limit class and the body reader are the
// app's, as for every other route. Where OFREP is silent, flagd's OFREP service is the model. The mapping
// itself is ofrep-mapping.ts, shared with the single-flag fast path ahead of Elysia (fast-ofrep.ts).
import { t } from 'elysia'
import {
  BULK_EVALUATION_BUDGET,
  EvaluationBudgetExceeded,
  sharingPrerequisites,
  withEvaluationBudget,
  type EvaluationContext,
} from '../../engine'
import { AppError } from '../../errors'
import type { AppDeps } from '../deps'
import { callerOf, canEvaluate, type Caller } from '../auth'
import { isClientKey, visibleToClientKeys } from '../../access/client-keys'
import type { CachedFlag } from '../../cache/snapshots'
import { authorizeRoute } from '../request-access'
import { sendCached, etagOf } from '../caching'
import { JSON_HEADERS } from '../errors'
import { decodePathSegment, hasControlCharacter } from '../url-input'
import { OfrepError, errorBody, evaluateOne, json, mapContext, ofrepContextIn, singleFlagAnswer } from '../ofrep-mapping'
import { routeModule } from './common'
import { OFREP_STREAM_PATH, ticketUrl } from './stream'

/** Errors the app's own layers raise on an OFREP path (a body that is not JSON, UTF-8 or shallow enough)
 *  in OFREP's shape; anything else keeps the service's shape. */
export function ofrepErrorResponse(path: string, error: AppError): Response | undefined {
  if (!path.startsWith('/ofrep/v1/evaluate/') || error.status !== 400) return undefined
  const raw = /^\/ofrep\/v1\/evaluate\/flags\/([^/]+)$/.exec(path)?.[1]
  return json(400, errorBody(raw === undefined ? undefined : keyAsSent(raw), 'PARSE_ERROR', error.message))
}

/** The path's key decoded, or as sent when its text is what was wrong (`%FF`, `a%00`). */
function keyAsSent(raw: string): string {
  const decoded = decodePathSegment(raw)
  return decoded === null || hasControlCharacter(decoded) ? raw : decoded
}

const OfrepBody = t.Unknown({
  description: 'OFREP evaluation request: { "context": { "targetingKey": "u-42", … } }; the body or its context may be absent',
})
const detail = (summary: string) => ({
  tags: ['ofrep'],
  summary,
  security: [{ bearer: [] }],
  description:
    'OpenFeature Remote Evaluation Protocol v0.3.0. Permission: `read:flags`. ' +
    'Auth: `Authorization: Bearer {token}` or `X-API-Key: {token}`.',
  'x-permission': 'read:flags',
  'x-rate-class': 'evaluation',
})
const ErrorEntry = t.Object({ key: t.Optional(t.String()), errorCode: t.String(), errorDetails: t.String() }, { title: 'OfrepError' })
const Success = t.Object(
  {
    key: t.String(),
    value: t.Any({ description: 'any JSON value' }),
    reason: t.String({ description: 'STATIC, DEFAULT, TARGETING_MATCH, SPLIT or DISABLED' }),
    variant: t.String({ description: 'off, override, `rule-{n}`, rollout or default' }),
    metadata: t.Object({ flagVersion: t.Number(), environment: t.String() }),
  },
  { title: 'OfrepEvaluation' },
)

/** The caller, once it may evaluate flags (read:flags, or a client key). */
function evaluator(request: Request): Caller {
  authorizeRoute(request, 'read:flags', 'all')
  const caller = callerOf(request)
  if (!canEvaluate(caller.token, 'read:flags'))
    throw new AppError(403, 'FORBIDDEN', 'This token lacks the "read:flags" permission', { required: 'read:flags' })
  return caller
}

/** Whether the caller may see this flag: a client key sees only client_side ones. */
const sees = (caller: Caller) => {
  const client = isClientKey(caller.token.permissions)
  return (flag: CachedFlag | undefined): flag is CachedFlag => flag !== undefined && (!client || visibleToClientKeys(flag.row.body))
}

/** How long a client may keep its stream closed while hidden (OFREP's `inactivityDelaySec`; flagd's value). */
const INACTIVITY_DELAY_SEC = 120

export const ofrepRoutes = (deps: Pick<AppDeps, 'snapshots' | 'settings' | 'tickets'>) => {
  const { snapshots } = deps
  return routeModule('ofrep')
    .post(
      '/ofrep/v1/evaluate/flags/:key',
      ({ request, params, body }) => {
        const caller = evaluator(request)
        const { key } = params
        const snap = snapshots.project(caller.actor.projectId)
        const flag = snap?.flags.get(key)
        // The same answer as the fast path's (fast-ofrep.ts), which serves this route's common case.
        const { status, text } = singleFlagAnswer(key, sees(caller)(flag) ? flag : undefined, body, (c) =>
          ofrepContextIn(caller.token.environment, c, snap?.project.environments ?? []),
        )
        return new Response(text, { status, headers: JSON_HEADERS })
      },
      {
        body: OfrepBody,
        params: t.Object({ key: t.String() }),
        detail: detail('Evaluate one flag (OFREP)'),
        response: { 200: Success, 400: ErrorEntry, 403: ErrorEntry, 404: ErrorEntry },
      },
    )
    .post(
      '/ofrep/v1/evaluate/flags',
      ({ request, body }) => {
        const caller = evaluator(request)
        const snap = snapshots.project(caller.actor.projectId)
        let context: EvaluationContext
        try {
          context = ofrepContextIn(caller.token.environment, mapContext(body), snap?.project.environments ?? [])
        } catch (e) {
          if (e instanceof OfrepError) return json(e.status, errorBody(undefined, e.errorCode, e.message))
          throw e
        }
        const flags: unknown[] = []
        // One work budget for the whole answer, prerequisites shared between flags (engine/budget.ts).
        withEvaluationBudget(BULK_EVALUATION_BUDGET, () =>
          sharingPrerequisites(() => {
            const visible = sees(caller)
            for (const [key, flag] of snap?.flags ?? []) {
              if (!visible(flag)) continue
              try {
                flags.push(evaluateOne(key, flag, context))
              } catch (e) {
                // One flag's error never fails the whole answer.
                flags.push(
                  e instanceof OfrepError
                    ? errorBody(key, e.errorCode, e.message)
                    : errorBody(key, 'GENERAL', e instanceof EvaluationBudgetExceeded ? e.message : 'evaluation failed'),
                )
              }
            }
          }),
        )
        // The stream URL carries a ticket, never the token; tickets are stable for minutes (streams/tickets.ts),
        // so the ETag holds and a client's open stream is kept.
        const eventStreams = [
          { type: 'sse', url: ticketUrl(deps, request, caller, OFREP_STREAM_PATH).url, inactivityDelaySec: INACTIVITY_DELAY_SEC },
        ]
        const text = JSON.stringify({ flags, metadata: {}, eventStreams })
        return sendCached(request, text, etagOf(text), 'private, no-cache')
      },
      {
        body: OfrepBody,
        // Sent by OFREP web providers when a stream message made them re-fetch; the answer is always complete.
        query: t.Object({
          flagConfigEtag: t.Optional(
            t.String({ description: 'the `etag` of the stream message that prompted this call (accepted, not needed)' }),
          ),
          flagConfigLastModified: t.Optional(t.String({ description: 'the `lastModified` of that message (accepted, not needed)' })),
        }),
        detail: detail('Evaluate every flag of the project (OFREP bulk); strong ETag, 304 on If-None-Match'),
        response: {
          200: t.Object({
            flags: t.Array(t.Union([Success, ErrorEntry])),
            metadata: t.Object({}, { additionalProperties: true }),
            eventStreams: t.Array(
              t.Object({
                type: t.String({ enum: ['sse'] }),
                url: t.String({ description: 'absolute URL of GET /ofrep/v1/stream with a short-lived ticket' }),
                inactivityDelaySec: t.Integer(),
              }),
            ),
          }),
          400: ErrorEntry,
          403: ErrorEntry,
        },
      },
    )
}
