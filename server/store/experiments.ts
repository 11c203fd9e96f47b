// Repository for experiments, their metrics, track events and exposures (schema-experiments.*.ts). The
// results' per-variant sums are experiment-results.ts.
import { and, asc, count, eq, inArray, lt, ne, sql, type SQL } from 'drizzle-orm'
import type { Db, Tables } from './database-types'

export type MetricRow = Tables['experimentMetrics']['$inferSelect']
export type ExperimentRow = Tables['experiments']['$inferSelect']
export type TrackEventRow = Tables['trackEvents']['$inferSelect']
export type ExposureRow = Tables['exposures']['$inferSelect']

/** Rows per statement. Events and exposures go in as one JSON parameter each statement (the database
 *  unpacks it: json_each on SQLite, json_array_elements on PostgreSQL): building thousands of bound
 *  parameters per statement cost more than the insert itself. */
const ROWS_PER_STATEMENT = 5_000

type Dialect = 'sqlite' | 'postgres'

/** PostgreSQL's rows of such a JSON parameter, each item as `j` (its columns j->>0, j->>1, …). */
const pgRows = (json: string): SQL => sql`json_array_elements(cast(${json} as json)) j`

function run(db: Db, dialect: Dialect, query: SQL): Promise<unknown> {
  if (dialect === 'postgres') return (db as unknown as { execute(q: SQL): Promise<unknown> }).execute(query)
  ;(db as unknown as { run(q: SQL): unknown }).run(query)
  return Promise.resolve()
}

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

export function experimentRepository(t: Tables, dialect: Dialect) {
  const m = t.experimentMetrics
  const x = t.experiments
  const e = t.trackEvents
  const u = t.exposures
  return {
    metrics: {
      list: (db: Db, projectId: string, limit: number, offset: number) =>
        db.select().from(m).where(eq(m.projectId, projectId)).orderBy(asc(m.key)).limit(limit).offset(offset),
      async total(db: Db, projectId: string): Promise<number> {
        const [row] = await db.select({ n: count() }).from(m).where(eq(m.projectId, projectId))
        return Number(row?.n ?? 0)
      },
      async get(db: Db, projectId: string, key: string): Promise<MetricRow | undefined> {
        const [row] = await db
          .select()
          .from(m)
          .where(and(eq(m.projectId, projectId), eq(m.key, key)))
        return row
      },
      many: (db: Db, projectId: string, keys: string[]) =>
        keys.length
          ? db
              .select()
              .from(m)
              .where(and(eq(m.projectId, projectId), inArray(m.key, keys)))
          : Promise.resolve([]),
      insert: async (db: Db, row: MetricRow) => void (await db.insert(m).values(row)),
      update: async (db: Db, row: MetricRow) =>
        void (await db
          .update(m)
          .set({ body: row.body, updatedAt: row.updatedAt })
          .where(and(eq(m.projectId, row.projectId), eq(m.key, row.key)))),
      delete: async (db: Db, projectId: string, key: string) =>
        void (await db.delete(m).where(and(eq(m.projectId, projectId), eq(m.key, key)))),
    },
    experiments: {
      list: (db: Db, projectId: string, limit: number, offset: number, state?: string) =>
        db
          .select()
          .from(x)
          .where(and(eq(x.projectId, projectId), ...(state ? [eq(x.state, state)] : [])))
          .orderBy(asc(x.key))
          .limit(limit)
          .offset(offset),
      async total(db: Db, projectId: string, state?: string): Promise<number> {
        const [row] = await db
          .select({ n: count() })
          .from(x)
          .where(and(eq(x.projectId, projectId), ...(state ? [eq(x.state, state)] : [])))
        return Number(row?.n ?? 0)
      },
      async get(db: Db, projectId: string, key: string): Promise<ExperimentRow | undefined> {
        const [row] = await db
          .select()
          .from(x)
          .where(and(eq(x.projectId, projectId), eq(x.key, key)))
        return row
      },
      /** Every experiment not stopped, of every project (the in-memory registry: experiments/registry.ts). */
      live: (db: Db) => db.select().from(x).where(ne(x.state, 'stopped')),
      /** The running experiment on a flag in an environment, if any. */
      async runningOn(db: Db, projectId: string, flagKey: string, environment: string): Promise<ExperimentRow | undefined> {
        const [row] = await db
          .select()
          .from(x)
          .where(and(eq(x.projectId, projectId), eq(x.flagKey, flagKey), eq(x.environment, environment), eq(x.state, 'running')))
        return row
      },
      /** Experiments whose stop waits for a change request. */
      waitingFor: (db: Db, changeRequestId: string) => db.select().from(x).where(eq(x.pendingChangeRequest, changeRequestId)),
      /** Metric keys some experiment of the project uses (a metric in use cannot be deleted). */
      usingMetric: async (db: Db, projectId: string, key: string) =>
        (await db.select().from(x).where(eq(x.projectId, projectId)))
          .filter((r) => [...r.body.goal_metrics, ...r.body.guardrail_metrics, ...r.body.secondary_metrics].includes(key))
          .map((r) => r.key),
      insert: async (db: Db, row: ExperimentRow) => void (await db.insert(x).values(row)),
      update: async (db: Db, row: ExperimentRow) =>
        void (await db
          .update(x)
          .set({
            state: row.state,
            phase: row.phase,
            phases: row.phases,
            body: row.body,
            decision: row.decision,
            pendingChangeRequest: row.pendingChangeRequest,
            updatedAt: row.updatedAt,
          })
          .where(eq(x.id, row.id))),
      /** Deletes a draft and whatever was recorded for it. */
      async delete(db: Db, id: string): Promise<void> {
        await db.delete(u).where(eq(u.experimentId, id))
        await db.delete(x).where(eq(x.id, id))
      },
    },
    events: {
      async insert(db: Db, rows: TrackEventRow[]): Promise<void> {
        for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
          const json = JSON.stringify(
            rows.slice(i, i + ROWS_PER_STATEMENT).map((r) => [r.projectId, r.key, r.attribute, r.unit, r.environment, r.at, r.value]),
          )
          await run(
            db,
            dialect,
            dialect === 'postgres'
              ? sql`insert into track_events (project_id, key, attribute, unit, environment, at, value)
                select j->>0, j->>1, j->>2, j->>3, j->>4, cast(j->>5 as bigint), cast(j->>6 as double precision) from ${pgRows(json)}`
              : sql`insert into track_events (project_id, key, attribute, unit, environment, at, value)
                select value->>0, value->>1, value->>2, value->>3, value->>4, value->>5, value->>6 from json_each(${json})`,
          )
        }
      },
      /** Deletes events older than `beforeMs`, at most `limit` at a time through the time index; answers how many. */
      async prune(db: Db, beforeMs: number): Promise<void> {
        await db.delete(e).where(lt(e.at, beforeMs))
      },
    },
    exposures: {
      async add(db: Db, input: ExposureRow[]): Promise<void> {
        const rows = foldExposures(input)
        for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
          const json = JSON.stringify(
            rows.slice(i, i + ROWS_PER_STATEMENT).map((r) => [r.experimentId, r.phase, r.unit, r.firstAt, r.variant, r.multiple ? 1 : 0]),
          )
          const source =
            dialect === 'postgres'
              ? sql`select j->>0, cast(j->>1 as integer), j->>2, cast(j->>3 as bigint), j->>4, (j->>5) = '1' from ${pgRows(json)}`
              : sql`select value->>0, value->>1, value->>2, value->>3, value->>4, value->>5 from json_each(${json}) where true`
          // The earlier time wins with its variant; a second variant marks the unit (left out of the results).
          await run(
            db,
            dialect,
            sql`insert into exposures (experiment_id, phase, unit, first_at, variant, multiple) ${source}
            on conflict (experiment_id, phase, unit) do update set
              multiple = (exposures.multiple or excluded.multiple or exposures.variant <> excluded.variant),
              variant = case when excluded.first_at < exposures.first_at then excluded.variant else exposures.variant end,
              first_at = case when excluded.first_at < exposures.first_at then excluded.first_at else exposures.first_at end`,
          )
        }
      },
    },
  }
}
export type ExperimentRepository = ReturnType<typeof experimentRepository>
