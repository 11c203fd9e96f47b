// Usage: what SDKs report (POST /api/v1/usage) added to the hourly buckets the server's own counts fill
// (usage/), each flag's buckets, and which flags are stale: not evaluated for STALE_AFTER_DAYS, or serving
// one variant to everyone and unchanged for that long.
import { parseIsoDate } from '../engine/dates'
import type { DocumentRow } from '../store/documents'
import type { UsageRow } from '../store/usage'
import { hourOf } from '../usage/flusher'
import type { Actor, ServiceDeps } from './context'
import { notFound, validationError, rateLimited } from '../errors'
import type { FlagBody } from '../kinds'
import { KEY_PATTERN } from './keys'
import type { Snapshots } from '../cache/snapshots'

export interface ReportedCount {
  key: string
  environment: string
  variant: string
  count: number
  from: string
  to: string
}

/** Rows one report may hold. */
export const MAX_REPORTED = 500
/** One row's count at most. */
export const MAX_COUNT = 100_000_000
/** How far back a report's times may reach (an SDK offline for days still reports), and how far ahead of
 *  the server's clock they may be. */
export const REPORT_WINDOW_MS = 7 * 86_400_000
const CLOCK_SKEW_MS = 5 * 60_000
/** What one token may report per minute (docs/behaviour.md §8): rows, and the sum of their counts. */
export const REPORT_ROWS_PER_MINUTE = 5_000
export const REPORT_COUNT_PER_MINUTE = 1_000_000_000
const DAY = 86_400_000
/** Usage reads: the longest range one may ask for, and the most buckets one answer holds. */
export const MAX_USAGE_RANGE_DAYS = 31
export const MAX_USAGE_ROWS = 5_000

/** The branches a flag can serve, as counters name them (engine CompiledFlag.branchOf). */
function servable(body: FlagBody, environment: string): (variant: string) => boolean {
  const variants = body.variants
  if (variants !== null && typeof variants === 'object') return (v) => v === 'off' || Object.hasOwn(variants, v)
  // In an environment with its own rules, `rule-<n>` numbers those (docs/behaviour.md §4).
  const override =
    environment !== '' && body.environments && Object.hasOwn(body.environments, environment) ? body.environments[environment] : undefined
  const ruleList = (override?.targeting ?? body.targeting)?.rules
  const rules = Array.isArray(ruleList) ? ruleList.length : 0
  return (v) =>
    v === 'off' ||
    v === 'override' ||
    v === 'rollout' ||
    v === 'default' ||
    (/^rule-[1-9][0-9]{0,3}$/.test(v) && Number(v.slice(5)) <= rules)
}

/** Per token: the minute under way and what it reported in it. One instance's view (a token reporting to
 *  several instances has the budget of each). */
const reported = new Map<string, { minute: number; rows: number; count: number }>()

export type StaleReason = 'never evaluated' | 'not evaluated recently' | 'serves one variant'

export function usageService({ store, settings, snapshots }: Pick<ServiceDeps, 'store' | 'settings' | 'snapshots'>) {
  return {
    /** Adds an SDK's counts (filed under the hour of each `to`); counts of flags the project does not have
     *  (or has archived) are ignored (an SDK may hold a flag deleted meanwhile). Refuses the whole report on
     *  any bad entry: an environment the project does not have, a variant the flag cannot serve, times
     *  outside the last 7 days, a count that is not a whole number in range; and past the token's budget, 429. */
    async report(
      actor: Actor,
      counts: ReportedCount[],
      batchId?: string,
    ): Promise<{ accepted: number; ignored: number; duplicate?: true }> {
      const now = Date.now()
      const { known, accepted, ignored } = checkUsageReport(snapshots, actor, counts, now, batchId === undefined)
      const rows: UsageRow[] = counts
        .filter((c) => known.has(c.key) && c.count > 0)
        .map((c) => {
          const to = parseIsoDate(c.to)
          return {
            projectId: actor.projectId,
            flagKey: c.key,
            environment: c.environment,
            variant: c.variant,
            hour: hourOf(to),
            count: c.count,
            lastAt: new Date(to).toISOString(),
          }
        })
      if (batchId !== undefined) {
        // A relay's batch (docs/operations.md, Relays): its id is taken with the counts, so a resend is a no-op.
        const fresh = await store.transaction(async (tx) => {
          if (!(await store.relayBatches.claim(tx, actor.projectId, batchId, new Date(now).toISOString()))) return false
          if (rows.length) await store.usage.add(tx, rows)
          return true
        })
        return fresh ? { accepted, ignored } : { accepted: 0, ignored: 0, duplicate: true }
      }
      if (rows.length) await store.transaction((tx) => store.usage.add(tx, rows))
      return { accepted, ignored }
    },

    /** One flag's hourly buckets in [since, until), oldest first, at most MAX_USAGE_ROWS (`has_more` when
     *  there are more: ask again from the last hour given). */
    async buckets(projectId: string, key: string, since: number, until: number, environment?: string) {
      if (!(await store.flags.get(store.db, projectId, key))) throw notFound('FLAG_NOT_FOUND', `Flag "${key}"`)
      const rows = await store.usage.buckets(
        store.db,
        projectId,
        key,
        hourOf(since),
        new Date(until).toISOString(),
        environment,
        MAX_USAGE_ROWS + 1,
      )
      return {
        buckets: rows
          .slice(0, MAX_USAGE_ROWS)
          .map((r) => ({ hour: r.hour, environment: r.environment, variant: r.variant, count: r.count })),
        has_more: rows.length > MAX_USAGE_ROWS,
      }
    },

    /** Several flags' hourly buckets in [since, until), by key (every key given is there; unknown ones
     *  have none). */
    async bucketsOf(projectId: string, keys: string[], since: number, until: number, environment?: string) {
      const out: Record<string, { hour: string; environment: string; variant: string; count: number }[]> = Object.fromEntries(
        keys.map((k) => [k, []]),
      )
      const rows = await store.usage.bucketsOf(
        store.db,
        projectId,
        keys,
        hourOf(since),
        new Date(until).toISOString(),
        environment,
        MAX_USAGE_ROWS + 1,
      )
      for (const r of rows.slice(0, MAX_USAGE_ROWS))
        out[r.flagKey]!.push({ hour: r.hour, environment: r.environment, variant: r.variant, count: r.count })
      return { flags: out, has_more: rows.length > MAX_USAGE_ROWS }
    },

    /** Each flag's last evaluation, and a judge of staleness for flags (at `now`). */
    async insight(projectId: string, now = Date.now()) {
      const cutoff = now - settings.staleAfterDays * DAY
      const [last, variants] = await Promise.all([
        store.usage.lastEvaluated(store.db, projectId),
        store.usage.variantsSince(store.db, projectId, hourOf(cutoff)),
      ])
      const staleReason = (row: DocumentRow): StaleReason | undefined => {
        const at = last.get(row.key)
        const unchangedSince = Date.parse(row.updatedAt)
        if (at === undefined) return Date.parse(row.createdAt) <= cutoff ? 'never evaluated' : undefined
        if (Date.parse(at) <= cutoff) return 'not evaluated recently'
        const served = variants.get(row.key)
        if (served?.size === 1 && unchangedSince <= cutoff) return 'serves one variant'
        return undefined
      }
      return { lastEvaluatedAt: (key: string): string | null => last.get(key) ?? null, staleReason }
    },
  }
}
export type UsageService = ReturnType<typeof usageService>

/** Checks an SDK's report as POST /api/v1/usage does, wherever it arrives (an origin, or a relay that
 *  forwards it): refuses the whole report on any bad entry (400) or past the token's budget (429, when
 *  `charge`: a relay's forwarded batch was charged at the relay); which flags the project knows. */
export function checkUsageReport(
  snapshots: Pick<Snapshots, 'project'>,
  actor: Actor,
  counts: readonly ReportedCount[],
  now: number,
  charge: boolean,
): { known: Set<string>; accepted: number; ignored: number } {
  const snap = snapshots.project(actor.projectId)
  const environments = new Set<string>(snap?.project.environments ?? [])
  const issues: { path: string; message: string }[] = []
  counts.forEach((c, i) => {
    const at = `counts[${i}]`
    const row = snap?.flags.get(c.key)?.row
    const flag = row?.body
    if (!KEY_PATTERN.test(c.key)) issues.push({ path: `${at}.key`, message: 'is not a flag key' })
    if (c.environment !== '' && !environments.has(c.environment))
      issues.push({ path: `${at}.environment`, message: 'must be one of the project\'s environments, or "" for none' })
    if (flag !== undefined && !servable(flag, c.environment)(c.variant))
      issues.push({ path: `${at}.variant`, message: `is not a variant flag "${c.key}" can serve` })
    if (!Number.isSafeInteger(c.count) || c.count < 0 || c.count > MAX_COUNT)
      issues.push({ path: `${at}.count`, message: `must be a whole number from 0 to ${MAX_COUNT}` })
    const from = parseIsoDate(c.from)
    const to = parseIsoDate(c.to)
    const recent = (t: number) => t >= now - REPORT_WINDOW_MS && t <= now + CLOCK_SKEW_MS
    if (Number.isNaN(from)) issues.push({ path: `${at}.from`, message: 'must be an ISO 8601 date-time' })
    else if (!recent(from)) issues.push({ path: `${at}.from`, message: 'must lie within the last 7 days' })
    if (Number.isNaN(to)) issues.push({ path: `${at}.to`, message: 'must be an ISO 8601 date-time' })
    else if (!recent(to)) issues.push({ path: `${at}.to`, message: 'must lie within the last 7 days (and not in the future)' })
    if (from > to) issues.push({ path: `${at}.from`, message: 'is after `to`' })
  })
  if (issues.length) throw validationError(issues.slice(0, 20))
  if (charge) chargeReport(`${actor.projectId}:${actor.name}`, counts, now)
  const known = new Set(snap ? [...snap.flags.keys()] : [])
  return { known, accepted: counts.filter((c) => known.has(c.key)).length, ignored: counts.filter((c) => !known.has(c.key)).length }
}

/** Counts a report against its token's minute; 429 (nothing counted) past the budget. */
function chargeReport(token: string, counts: readonly ReportedCount[], now: number): void {
  const minute = Math.floor(now / 60_000)
  let spent = reported.get(token)
  if (spent === undefined || spent.minute !== minute) {
    // Old minutes are forgotten as tokens report again; the map holds at most the tokens of one minute.
    if (reported.size > 10_000) for (const [k, v] of reported) if (v.minute !== minute) reported.delete(k)
    reported.set(token, (spent = { minute, rows: 0, count: 0 }))
  }
  const rows = spent.rows + counts.length
  const count = counts.reduce((sum, c) => sum + c.count, spent.count)
  if (rows > REPORT_ROWS_PER_MINUTE || count > REPORT_COUNT_PER_MINUTE) {
    const retryAfter = Math.max(1, Math.ceil(((minute + 1) * 60_000 - now) / 1000))
    throw rateLimited(
      'RATE_LIMITED',
      `This token may report at most ${REPORT_ROWS_PER_MINUTE} usage rows and ${REPORT_COUNT_PER_MINUTE} evaluations per minute`,
      retryAfter,
    )
  }
  spent.rows = rows
  spent.count = count
}
