// Usage: what SDKs report (POST /api/v1/usage) added to the hourly buckets the server's own counts fill
// (usage/), each flag's buckets, and which flags are stale: not evaluated for STALE_AFTER_DAYS, or serving
// one variant to everyone and unchanged for that long.
import { parseIsoDate } from '../engine/dates'
import type { DocumentRow } from '../store/documents'
import type { UsageRow } from '../store/usage'
import { hourOf } from '../usage/flusher'
import type { Actor, ServiceDeps } from './context'
import { notFound, validationError } from './errors'
import { KEY_PATTERN } from './keys'

export interface ReportedCount {
  key: string
  environment: string
  variant: string
  count: number
  from: string
  to: string
}

export const MAX_REPORTED = 1000
const MAX_COUNT = 1_000_000_000
const LABEL = /^[A-Za-z0-9._:-]{0,64}$/
const DAY = 86_400_000

export type StaleReason = 'never evaluated' | 'not evaluated recently' | 'serves one variant'

export function usageService({ store, settings }: Pick<ServiceDeps, 'store' | 'settings'>) {
  return {
    /** Adds an SDK's counts (filed under the hour of each `to`); counts of flags the project does not have
     *  are ignored (an SDK may hold a flag deleted meanwhile). Refuses the whole report on any bad entry. */
    async report(actor: Actor, counts: ReportedCount[]): Promise<{ accepted: number; ignored: number }> {
      const now = Date.now()
      const issues: { path: string; message: string }[] = []
      counts.forEach((c, i) => {
        const at = `counts[${i}]`
        if (!KEY_PATTERN.test(c.key)) issues.push({ path: `${at}.key`, message: 'is not a flag key' })
        if (!LABEL.test(c.environment)) issues.push({ path: `${at}.environment`, message: 'must be up to 64 of A-Z a-z 0-9 . _ : -' })
        if (!LABEL.test(c.variant) || c.variant === '') issues.push({ path: `${at}.variant`, message: 'must be 1 to 64 of A-Z a-z 0-9 . _ : -' })
        if (!Number.isInteger(c.count) || c.count < 0 || c.count > MAX_COUNT) issues.push({ path: `${at}.count`, message: `must be an integer from 0 to ${MAX_COUNT}` })
        const from = parseIsoDate(c.from)
        const to = parseIsoDate(c.to)
        if (Number.isNaN(from)) issues.push({ path: `${at}.from`, message: 'must be an ISO 8601 date-time' })
        if (Number.isNaN(to)) issues.push({ path: `${at}.to`, message: 'must be an ISO 8601 date-time' })
        else if (to > now + 5 * 60_000) issues.push({ path: `${at}.to`, message: 'is in the future' })
        if (from > to) issues.push({ path: `${at}.from`, message: 'is after `to`' })
      })
      if (issues.length) throw validationError(issues.slice(0, 20))
      const known = new Set((await store.flags.stamps(store.db, actor.projectId)).map((s) => s.key))
      const rows: UsageRow[] = counts.filter((c) => known.has(c.key) && c.count > 0).map((c) => {
        const to = parseIsoDate(c.to)
        return { projectId: actor.projectId, flagKey: c.key, environment: c.environment, variant: c.variant, hour: hourOf(to), count: c.count, lastAt: new Date(to).toISOString() }
      })
      if (rows.length) await store.transaction((tx) => store.usage.add(tx, rows))
      return { accepted: counts.filter((c) => known.has(c.key)).length, ignored: counts.filter((c) => !known.has(c.key)).length }
    },

    /** One flag's hourly buckets in [since, until). */
    async buckets(projectId: string, key: string, since: number, until: number, environment?: string) {
      if (!(await store.flags.get(store.db, projectId, key))) throw notFound('FLAG_NOT_FOUND', `Flag "${key}"`)
      const rows = await store.usage.buckets(store.db, projectId, key, hourOf(since), new Date(until).toISOString(), environment)
      return rows.map((r) => ({ hour: r.hour, environment: r.environment, variant: r.variant, count: r.count }))
    },

    /** Several flags' hourly buckets in [since, until), by key (every key given is there; unknown ones
     *  have none). */
    async bucketsOf(projectId: string, keys: string[], since: number, until: number, environment?: string) {
      const out: Record<string, { hour: string; environment: string; variant: string; count: number }[]> = Object.fromEntries(keys.map((k) => [k, []]))
      for (const r of await store.usage.bucketsOf(store.db, projectId, keys, hourOf(since), new Date(until).toISOString(), environment)) {
        out[r.flagKey]!.push({ hour: r.hour, environment: r.environment, variant: r.variant, count: r.count })
      }
      return out
    },

    /** Each flag's last evaluation, and a judge of staleness for flags (at `now`). */
    async insight(projectId: string, now = Date.now()) {
      const cutoff = now - settings.staleAfterDays * DAY
      const [last, variants] = await Promise.all([store.usage.lastEvaluated(store.db, projectId), store.usage.variantsSince(store.db, projectId, hourOf(cutoff))])
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
