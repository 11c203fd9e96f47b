// Repository for evaluation counts: hourly buckets per flag, environment and variant (schema: flag_usage).
import { and, asc, eq, gte, inArray, lt, max, sql } from 'drizzle-orm'
import type { Db, Tables } from './database-types'

export type UsageRow = Tables['flagUsage']['$inferSelect']

/** Where the stores' additions stop: counts read back as JS numbers stay exact. */
export const MAX_BUCKET_COUNT = Number.MAX_SAFE_INTEGER

/** One row per bucket (project, flag, environment, variant, hour), counts summed and the latest `lastAt`
 *  kept: PostgreSQL refuses an upsert that touches the same row twice (`ON CONFLICT DO UPDATE command cannot
 *  affect row a second time`), which a flag counted before and after a change (two compiled flags) gave. */
export function aggregateUsage(rows: UsageRow[]): UsageRow[] {
  const byBucket = new Map<string, UsageRow>()
  for (const r of rows) {
    const id = JSON.stringify([r.projectId, r.flagKey, r.environment, r.variant, r.hour])
    const seen = byBucket.get(id)
    if (seen === undefined) byBucket.set(id, { ...r })
    else {
      seen.count = Math.min(MAX_BUCKET_COUNT, seen.count + r.count)
      if (r.lastAt > seen.lastAt) seen.lastAt = r.lastAt
    }
  }
  return [...byBucket.values()]
}

export function usageRepository(t: Tables) {
  const u = t.flagUsage
  // The largest stored count that can take the incoming one without passing MAX_BUCKET_COUNT.
  const largestFitting = sql`${MAX_BUCKET_COUNT} - excluded.count`
  return {
    /** Adds counts to their buckets (creating them), so every instance's and SDK's counts sum up. */
    async add(db: Db, input: UsageRow[]): Promise<void> {
      const rows = aggregateUsage(input)
      for (let i = 0; i < rows.length; i += 500) {
        await db
          .insert(u)
          .values(rows.slice(i, i + 500))
          .onConflictDoUpdate({
            target: [u.projectId, u.flagKey, u.environment, u.variant, u.hour],
            // CASE rather than max()/greatest()/least(): the same SQL in both dialects. The sum stops at
            // MAX_BUCKET_COUNT (no overflow, and exact when read back).
            set: {
              count: sql`case when ${u.count} > ${largestFitting} then ${MAX_BUCKET_COUNT} else ${u.count} + excluded.count end`,
              lastAt: sql`case when excluded.last_at > ${u.lastAt} then excluded.last_at else ${u.lastAt} end`,
            },
          })
      }
    },
    /** One flag's buckets from `since` (inclusive) to `until` (exclusive), oldest first. */
    buckets(
      db: Db,
      projectId: string,
      key: string,
      since: string,
      until: string,
      environment: string | undefined,
      limit: number,
    ): Promise<UsageRow[]> {
      return db
        .select()
        .from(u)
        .where(
          and(
            eq(u.projectId, projectId),
            eq(u.flagKey, key),
            gte(u.hour, since),
            lt(u.hour, until),
            ...(environment !== undefined ? [eq(u.environment, environment)] : []),
          ),
        )
        .orderBy(asc(u.hour), asc(u.environment), asc(u.variant))
        .limit(limit)
    },
    /** Several flags' buckets at once (the flag list's sparklines), as `buckets` gives one flag's. */
    bucketsOf(
      db: Db,
      projectId: string,
      keys: string[],
      since: string,
      until: string,
      environment: string | undefined,
      limit: number,
    ): Promise<UsageRow[]> {
      if (keys.length === 0) return Promise.resolve([])
      return db
        .select()
        .from(u)
        .where(
          and(
            eq(u.projectId, projectId),
            inArray(u.flagKey, keys),
            gte(u.hour, since),
            lt(u.hour, until),
            ...(environment !== undefined ? [eq(u.environment, environment)] : []),
          ),
        )
        .orderBy(asc(u.flagKey), asc(u.hour), asc(u.environment), asc(u.variant))
        .limit(limit)
    },
    /** Each flag's latest counted evaluation. */
    async lastEvaluated(db: Db, projectId: string): Promise<Map<string, string>> {
      const rows = await db
        .select({ key: u.flagKey, at: max(u.lastAt) })
        .from(u)
        .where(eq(u.projectId, projectId))
        .groupBy(u.flagKey)
      return new Map(rows.filter((r) => r.at !== null).map((r) => [r.key, r.at!]))
    },
    /** The variants each flag served from `since` on. */
    async variantsSince(db: Db, projectId: string, since: string): Promise<Map<string, Set<string>>> {
      const rows = await db
        .selectDistinct({ key: u.flagKey, variant: u.variant })
        .from(u)
        .where(and(eq(u.projectId, projectId), gte(u.hour, since)))
      const out = new Map<string, Set<string>>()
      for (const r of rows) out.set(r.key, (out.get(r.key) ?? new Set()).add(r.variant))
      return out
    },
  }
}
