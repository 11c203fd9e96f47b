// Usage: POST /api/v1/usage (SDKs report their local evaluation counts) and GET /api/v1/flags/:key/usage
// (one flag's hourly buckets). The server's own counts come from every evaluation surface (usage/).
import { t } from 'elysia'
import { MAX_REPORTED, MAX_USAGE_RANGE_DAYS, MAX_USAGE_ROWS } from '../../services/usage'
import { validationError } from '../../errors'
import { parseIsoDate } from '../../engine/dates'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import * as S from '../../schemas'
import { guard, jsonBody, routeModule } from './common'
import { withRateClass } from '../route-contract'
import { batchIdOf } from '../relay-batch'

export const UsageAnswer = t.Object({
  success: S.Success,
  accepted: t.Integer(),
  ignored: t.Integer({ description: 'counts of flags this project does not have' }),
  duplicate: t.Optional(t.Boolean({ description: "true: a relay's batch (Flagship-Batch-Id) already applied, nothing was added" })),
})

const DAY = 86_400_000

export const ReportedCount = t.Object(
  {
    key: t.String(),
    environment: t.String({ description: 'one of the project\'s environments, "" for none' }),
    variant: t.String({ description: 'off, override, `rule-{n}`, rollout or default; for a flag with variants, off or a variant name' }),
    count: t.Integer({ minimum: 0, description: 'a whole number (a JSON number, never a string)' }),
    from: t.String({ description: 'ISO 8601: start of the counted period' }),
    to: t.String({ description: 'ISO 8601: its end; counts are filed under this hour' }),
  },
  { title: 'ReportedCount' },
)

/** An ISO time query parameter, or `fallback` when absent; 400 naming the parameter when malformed. */
function timeParam(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback
  const ms = parseIsoDate(value)
  if (Number.isNaN(ms)) throw validationError([{ path: name, message: 'must be an ISO 8601 date-time' }])
  return ms
}

/** The [since, until) window of a usage read, at most MAX_USAGE_RANGE_DAYS long. Without `until`, a `since`
 *  in the future is an empty window (nothing was counted there yet), not an error; `since` after an explicit
 *  `until` is a contradiction. */
function usageWindow(query: { since?: string; until?: string }, defaultDays: number): { since: number; until: number } {
  const until = timeParam('until', query.until, Date.now())
  const since = timeParam('since', query.since, until - defaultDays * DAY)
  if (since > until) {
    if (query.until !== undefined) throw validationError([{ path: 'since', message: 'is after until' }])
    return { since, until: since }
  }
  if (until - since > MAX_USAGE_RANGE_DAYS * DAY)
    throw validationError([{ path: 'since', message: `must be at most ${MAX_USAGE_RANGE_DAYS} days before until` }])
  return { since, until }
}

/** How many flags one GET /api/v1/usage may name (the list's largest page). */
const MAX_KEYS = 100

export const usageRoutes = ({ services }: Pick<AppDeps, 'services'>) =>
  routeModule('usage')
    .post(
      '/api/v1/usage',
      async ({ request, body }) => {
        const caller = callerOf(request)
        const result = await services.usage.report(caller.actor, body.counts, batchIdOf(request, caller))
        return { success: true as const, ...result }
      },
      {
        ...withRateClass('evaluation', guard('read:flags', 'usage', 'Report evaluation counts made in process (SDKs)')),
        ...jsonBody(t.Object({ counts: t.Array(ReportedCount, { maxItems: MAX_REPORTED }) }, { title: 'UsageReport' })),
        response: { 200: UsageAnswer, ...S.errors(400, 401, 403, 413, 415, 429) },
      },
    )
    .get(
      '/api/v1/usage',
      async ({ request, query }) => {
        const { since, until } = usageWindow(query, 1)
        const keys = [...new Set((query.keys ?? '').split(',').filter(Boolean))]
        if (keys.length === 0 || keys.length > MAX_KEYS)
          throw validationError([{ path: 'keys', message: `must name 1 to ${MAX_KEYS} flags, comma-separated` }])
        return services.usage.bucketsOf(callerOf(request).actor.projectId, keys, since, until, query.environment)
      },
      {
        ...guard('read:flags', 'usage', "Several flags' evaluation counts per hour, environment and variant (the flag list's sparklines)"),
        query: t.Object({
          // Optional in the schema so that a missing list is this route's 400 (`keys`), worded like the rest.
          keys: t.Optional(
            t.String({ description: `required: flag keys, comma-separated (at most ${MAX_KEYS}); unknown ones get no buckets` }),
          ),
          since: t.Optional(t.String({ description: 'ISO 8601 (default: until minus 24 hours)' })),
          until: t.Optional(t.String({ description: 'ISO 8601 (default: now)' })),
          environment: t.Optional(t.String({ description: 'only this environment ("" for none)' })),
        }),
        response: {
          200: t.Object({
            flags: S.Dict(t.Array(S.UsageBucket), 'flag key -> its hourly buckets, oldest first'),
            has_more: t.Boolean({
              description: `more than ${MAX_USAGE_ROWS} buckets matched: the first ones (by key, then hour) are given`,
            }),
          }),
          ...S.errors(400, 401, 403, 429),
        },
      },
    )
    .get(
      '/api/v1/flags/:key/usage',
      async ({ request, params, query }) => {
        const { since, until } = usageWindow(query, 7)
        return {
          key: params.key,
          ...(await services.usage.buckets(callerOf(request).actor.projectId, params.key, since, until, query.environment)),
        }
      },
      {
        ...guard('read:flags', 'usage', "One flag's evaluation counts per hour, environment and variant"),
        params: S.KeyParam,
        query: t.Object({
          since: t.Optional(t.String({ description: 'ISO 8601 (default: until minus 7 days)' })),
          until: t.Optional(t.String({ description: 'ISO 8601 (default: now)' })),
          environment: t.Optional(t.String({ description: 'only this environment ("" for none)' })),
        }),
        response: {
          200: t.Object({
            key: t.String(),
            buckets: t.Array(S.UsageBucket),
            has_more: t.Boolean({
              description: `more than ${MAX_USAGE_ROWS} buckets matched: the oldest are given; ask again from the last hour`,
            }),
          }),
          ...S.errors(400, 401, 403, 404, 429),
        },
      },
    )
