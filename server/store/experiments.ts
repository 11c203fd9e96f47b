// Repository for experiments, their metrics, track events and exposures (schema-experiments.*.ts). The
// results' per-variant sums are experiment-results.ts.
import { and, asc, count, eq, inArray, lt, ne, sql } from 'drizzle-orm'
import type { Db, Tables } from './database-types'

export type MetricRow = Tables['experimentMetrics']['$inferSelect']
export type ExperimentRow = Tables['experiments']['$inferSelect']
export type TrackEventRow = Tables['trackEvents']['$inferSelect']
export type ExposureRow = Tables['exposures']['$inferSelect']

/** Rows per insert statement (PostgreSQL takes at most 65,535 parameters; SQLite 32,766). */
const EVENT_ROWS_PER_STATEMENT = 2_000
const EXPOSURE_ROWS_PER_STATEMENT = 2_000

/** One row per (experiment, phase, unit): the earliest time and its variant, `multiple` when the unit was
 *  also seen in another variant. PostgreSQL refuses an upsert touching the same row twice, so a batch is
 *  folded first. */
export function foldExposures(rows: ExposureRow[]): ExposureRow[] {
  const byUnit = new Map<string, ExposureRow>()
  for (const r of rows) {
    const id = `${r.experimentId}\u0000${r.phase}\u0000${r.unit}`
    const seen = byUnit.get(id)
    if (seen === undefined) byUnit.set(id, { ...r })
    else {
      if (seen.variant !== r.variant) seen.multiple = true
      seen.multiple ||= r.multiple
      if (r.firstAt < seen.firstAt) {
        seen.firstAt = r.firstAt
        seen.variant = r.variant
      }
    }
  }
  return [...byUnit.values()]
}

export function experimentRepository(t: Tables) {
  const m = t.experimentMetrics
  const x = t.experiments
  const e = t.trackEvents
  const u = t.exposures
  return {
    metrics: {
      list: (db: Db, projectId: string, limit: number, offset: number) => db.select().from(m).where(eq(m.projectId, projectId)).orderBy(asc(m.key)).limit(limit).offset(offset),
      async total(db: Db, projectId: string): Promise<number> {
        const [row] = await db.select({ n: count() }).from(m).where(eq(m.projectId, projectId))
        return Number(row?.n ?? 0)
      },
      async get(db: Db, projectId: string, key: string): Promise<MetricRow | undefined> {
        const [row] = await db.select().from(m).where(and(eq(m.projectId, projectId), eq(m.key, key)))
        return row
      },
      many: (db: Db, projectId: string, keys: string[]) => (keys.length ? db.select().from(m).where(and(eq(m.projectId, projectId), inArray(m.key, keys))) : Promise.resolve([])),
      insert: async (db: Db, row: MetricRow) => void (await db.insert(m).values(row)),
      update: async (db: Db, row: MetricRow) => void (await db.update(m).set({ body: row.body, updatedAt: row.updatedAt }).where(and(eq(m.projectId, row.projectId), eq(m.key, row.key)))),
      delete: async (db: Db, projectId: string, key: string) => void (await db.delete(m).where(and(eq(m.projectId, projectId), eq(m.key, key)))),
    },
    experiments: {
      list: (db: Db, projectId: string, limit: number, offset: number, state?: string) =>
        db.select().from(x).where(and(eq(x.projectId, projectId), ...(state ? [eq(x.state, state)] : []))).orderBy(asc(x.key)).limit(limit).offset(offset),
      async total(db: Db, projectId: string, state?: string): Promise<number> {
        const [row] = await db.select({ n: count() }).from(x).where(and(eq(x.projectId, projectId), ...(state ? [eq(x.state, state)] : [])))
        return Number(row?.n ?? 0)
      },
      async get(db: Db, projectId: string, key: string): Promise<ExperimentRow | undefined> {
        const [row] = await db.select().from(x).where(and(eq(x.projectId, projectId), eq(x.key, key)))
        return row
      },
      /** Every experiment not stopped, of every project (the in-memory registry: experiments/registry.ts). */
      live: (db: Db) => db.select().from(x).where(ne(x.state, 'stopped')),
      /** The running experiment on a flag in an environment, if any. */
      async runningOn(db: Db, projectId: string, flagKey: string, environment: string): Promise<ExperimentRow | undefined> {
        const [row] = await db.select().from(x).where(and(eq(x.projectId, projectId), eq(x.flagKey, flagKey), eq(x.environment, environment), eq(x.state, 'running')))
        return row
      },
      /** Experiments whose stop waits for a change request. */
      waitingFor: (db: Db, changeRequestId: string) => db.select().from(x).where(eq(x.pendingChangeRequest, changeRequestId)),
      /** Metric keys some experiment of the project uses (a metric in use cannot be deleted). */
      usingMetric: async (db: Db, projectId: string, key: string) =>
        (await db.select().from(x).where(eq(x.projectId, projectId))).filter((r) => [...r.body.goal_metrics, ...r.body.guardrail_metrics, ...r.body.secondary_metrics].includes(key)).map((r) => r.key),
      insert: async (db: Db, row: ExperimentRow) => void (await db.insert(x).values(row)),
      update: async (db: Db, row: ExperimentRow) =>
        void (await db.update(x).set({ state: row.state, phase: row.phase, phases: row.phases, body: row.body, decision: row.decision, pendingChangeRequest: row.pendingChangeRequest, updatedAt: row.updatedAt }).where(eq(x.id, row.id))),
      /** Deletes a draft and whatever was recorded for it. */
      async delete(db: Db, id: string): Promise<void> {
        await db.delete(u).where(eq(u.experimentId, id))
        await db.delete(x).where(eq(x.id, id))
      },
    },
    events: {
      async insert(db: Db, rows: TrackEventRow[]): Promise<void> {
        for (let i = 0; i < rows.length; i += EVENT_ROWS_PER_STATEMENT) await db.insert(e).values(rows.slice(i, i + EVENT_ROWS_PER_STATEMENT))
      },
      /** Deletes events older than `beforeMs`, at most `limit` at a time through the time index; answers how many. */
      async prune(db: Db, beforeMs: number): Promise<void> {
        await db.delete(e).where(lt(e.at, beforeMs))
      },
    },
    exposures: {
      async add(db: Db, input: ExposureRow[]): Promise<void> {
        const rows = foldExposures(input)
        for (let i = 0; i < rows.length; i += EXPOSURE_ROWS_PER_STATEMENT) {
          await db.insert(u).values(rows.slice(i, i + EXPOSURE_ROWS_PER_STATEMENT)).onConflictDoUpdate({
            target: [u.experimentId, u.phase, u.unit],
            // One statement for both dialects: the later of two variants marks the unit, the earlier time wins.
            set: {
              multiple: sql`(${u.multiple} or excluded.multiple or ${u.variant} <> excluded.variant)`,
              variant: sql`case when excluded.first_at < ${u.firstAt} then excluded.variant else ${u.variant} end`,
              firstAt: sql`case when excluded.first_at < ${u.firstAt} then excluded.first_at else ${u.firstAt} end`,
            },
          })
        }
      },
    },
  }
}
export type ExperimentRepository = ReturnType<typeof experimentRepository>
