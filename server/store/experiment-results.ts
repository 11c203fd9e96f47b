// The results' per-variant sufficient statistics, computed in SQL over per-unit rows (docs/experiments.md
// §3): each exposed unit of the phase (left out when seen in more than one variant) joined to its track
// events through the (project, key, attribute, unit, at) index, aggregated per unit, capped, then summed per
// variant. No event reaches JavaScript; one statement per metric, the same text on SQLite and PostgreSQL
// (PostgreSQL's sums cast to double precision so they come back as numbers).
import { sql, type SQL } from 'drizzle-orm'
import type { Db } from './database-types'
import type { Aggregation, MetricKind } from './vocabulary/experiments'

/** How far before a unit's first exposure its CUPED covariate reaches (docs/experiments.md §3). */
export const COVARIATE_DAYS = 14
const DAY_MS = 86_400_000

/** What every metric of one results computation shares. */
export interface ResultsQuery {
  projectId: string
  experimentId: string
  phase: number
  /** the context attribute that names a unit */
  attribute: string
  /** track events of this environment or of none count */
  environment: string
  /** also the covariate over the COVARIATE_DAYS before the first exposure (not for ratios) */
  cuped: boolean
  /** events after this instant (ms) do not count */
  now: number
}

/** One metric's definition, as the store reads it. */
export interface MetricSpec {
  kind: MetricKind
  event: string
  aggregation: Aggregation
  denominatorEvent?: string
  denominatorAggregation?: Aggregation
  windowHours?: number
  cap?: number
}

/** Metrics summed in one statement (each adds nine columns). */
const METRICS_PER_STATEMENT = 10

/** Per variant: `n` and the sums the statistics take (server/stats). */
export interface VariantSums {
  variant: string
  n: number
  sum_y: number
  sum_y2: number
  sum_x?: number
  sum_x2?: number
  sum_xy?: number
  sum_m?: number
  sum_m2?: number
  sum_d?: number
  sum_d2?: number
  sum_md?: number
}

export type Dialect = 'sqlite' | 'postgres'

async function rows(db: Db, dialect: Dialect, query: SQL): Promise<Record<string, unknown>[]> {
  if (dialect === 'postgres')
    return [...(await (db as unknown as { execute(q: SQL): Promise<Iterable<Record<string, unknown>>> }).execute(query))]
  return (db as unknown as { all(q: SQL): Record<string, unknown>[] }).all(query)
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v))

/** PostgreSQL plans the exposure-to-event join from the tables' statistics: with none yet (rows just
 *  written, autovacuum not yet round) it expects one row and scans every event per unit. A table changed by
 *  more than a tenth since its last ANALYZE (and by 1,000 rows at least) is analysed first. */
export async function freshenStatistics(db: Db, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return
  const stale = await rows(
    db,
    dialect,
    sql`
    select relname from pg_stat_user_tables
    where relname in ('exposures', 'track_events') and n_mod_since_analyze > greatest(1000, n_live_tup / 10)`,
  )
  for (const r of stale) await rows(db, dialect, sql`analyze ${sql.identifier(String(r.relname))}`)
}

/** The per-variant sums of each metric (ratio: Σm, Σm², Σd, Σd², Σmd; with `cuped`: Σx, Σx², Σxy too), in
 *  the order given. One pass over the phase's units and their events serves up to METRICS_PER_STATEMENT
 *  metrics: every event key they read in one index range per unit, each metric's window, covariate and
 *  denominator picked out per event. */
export async function metricSums(db: Db, dialect: Dialect, q: ResultsQuery, metrics: MetricSpec[]): Promise<VariantSums[][]> {
  const out: VariantSums[][] = []
  for (let i = 0; i < metrics.length; i += METRICS_PER_STATEMENT)
    out.push(...(await someMetricSums(db, dialect, q, metrics.slice(i, i + METRICS_PER_STATEMENT))))
  return out
}

async function someMetricSums(db: Db, dialect: Dialect, q: ResultsQuery, metrics: MetricSpec[]): Promise<VariantSums[][]> {
  if (metrics.length === 0) return []
  const f = (s: SQL): SQL => (dialect === 'postgres' ? sql`cast(${s} as double precision)` : s)
  const eventValue = (agg: Aggregation) => (agg === 'sum' ? sql`e.value` : sql`1`)
  const perEvent = (key: string, agg: Aggregation, when: SQL) =>
    sql`case when e.key = ${key} and ${when} then ${eventValue(agg)} else 0 end`
  const lookbackOf = (m: MetricSpec) => (q.cuped && m.kind !== 'ratio' ? COVARIATE_DAYS * DAY_MS : 0)
  const lookback = Math.max(...metrics.map(lookbackOf))
  const keys = [
    ...new Set(
      metrics.flatMap((m) => (m.kind === 'ratio' && m.denominatorEvent !== undefined ? [m.event, m.denominatorEvent] : [m.event])),
    ),
  ]
  const columns: SQL[] = []
  const capped: SQL[] = []
  const sums: SQL[] = []
  metrics.forEach((m, i) => {
    const windowMs = m.windowHours === undefined ? undefined : Math.round(m.windowHours * 3_600_000)
    // [first, end): the window, else every event after the first exposure up to now.
    const inWindow = windowMs === undefined ? sql`e.at >= x.first_at` : sql`e.at >= x.first_at and e.at < x.first_at + ${windowMs}`
    const inCovariate = sql`e.at >= x.first_at - ${lookbackOf(m)} and e.at < x.first_at`
    const y =
      m.kind === 'proportion' ? sql`max(${perEvent(m.event, 'count', inWindow)})` : sql`sum(${perEvent(m.event, m.aggregation, inWindow)})`
    const c = !lookbackOf(m)
      ? sql`0`
      : m.kind === 'proportion'
        ? sql`max(${perEvent(m.event, 'count', inCovariate)})`
        : sql`sum(${perEvent(m.event, m.aggregation, inCovariate)})`
    const d =
      m.kind === 'ratio' && m.denominatorEvent !== undefined
        ? sql`sum(${perEvent(m.denominatorEvent, m.denominatorAggregation ?? 'count', inWindow)})`
        : sql`0`
    columns.push(
      sql`coalesce(${y}, 0) as ${sql.raw(`y${i}`)}, coalesce(${c}, 0) as ${sql.raw(`c${i}`)}, coalesce(${d}, 0) as ${sql.raw(`d${i}`)}`,
    )
    // A unit's value (and covariate) above the cap counts as the cap.
    const cap = (v: string) => sql.raw(m.cap === undefined ? v : `case when ${v} > ${Number(m.cap)} then ${Number(m.cap)} else ${v} end`)
    capped.push(sql`${cap(`y${i}`)} as ${sql.raw(`y${i}`)}, ${cap(`c${i}`)} as ${sql.raw(`c${i}`)}, ${sql.raw(`d${i}`)}`)
    const [yi, ci, di] = [`y${i}`, `c${i}`, `d${i}`]
    sums.push(
      sql.raw(
        [
          `sum(${yi})`,
          `sum(${yi} * ${yi})`,
          `sum(${ci})`,
          `sum(${ci} * ${ci})`,
          `sum(${ci} * ${yi})`,
          `sum(${di})`,
          `sum(${di} * ${di})`,
          `sum(${yi} * ${di})`,
        ]
          .map((e, k) => `${dialect === 'postgres' ? `cast(${e} as double precision)` : e} as s${i}_${k}`)
          .join(', '),
      ),
    )
  })
  // The events counted for a unit: from its exposure (less the longest covariate period, under CUPED) up to now.
  const inPeriod = sql`e.at >= x.first_at - ${lookback} and e.at <= ${q.now}`
  const perUnit = sql`
    select x.variant as variant, ${sql.join(columns, sql`, `)}
    from exposures x
    left join track_events e on e.project_id = ${q.projectId} and e.key in (${sql.join(
      keys.map((k) => sql`${k}`),
      sql`, `,
    )}) and e.attribute = ${q.attribute}
      and e.unit = x.unit and (e.environment = '' or e.environment = ${q.environment}) and ${inPeriod}
    where x.experiment_id = ${q.experimentId} and x.phase = ${q.phase} and x.multiple = ${dialect === 'postgres' ? sql`false` : sql`0`}
    group by x.unit, x.variant`
  const query = sql`
    select variant, ${f(sql`count(*)`)} as n, ${sql.join(sums, sql`, `)}
    from (select variant, ${sql.join(capped, sql`, `)} from (${perUnit}) p) c
    group by variant order by variant`
  // PostgreSQL joins a million units to their events by hashing and groups them by sorting: with the default
  // 4 MB of work memory both spill to disk in many batches. This statement gets more (bounded, and for its
  // transaction only).
  const result =
    dialect === 'postgres'
      ? await (db as unknown as { transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> }).transaction(async (tx) => {
          await rows(tx, dialect, sql`set local work_mem = '128MB'`)
          return rows(tx, dialect, query)
        })
      : await rows(db, dialect, query)
  return metrics.map((m, i) =>
    result.map((r) => {
      const n = num(r.n)
      const s = (k: number) => num(r[`s${i}_${k}`])
      if (m.kind === 'ratio')
        return {
          variant: String(r.variant),
          n,
          sum_y: s(0),
          sum_y2: s(1),
          sum_m: s(0),
          sum_m2: s(1),
          sum_d: s(5),
          sum_d2: s(6),
          sum_md: s(7),
        }
      const out: VariantSums = { variant: String(r.variant), n, sum_y: s(0), sum_y2: s(1) }
      if (lookbackOf(m)) Object.assign(out, { sum_x: s(2), sum_x2: s(3), sum_xy: s(4) })
      return out
    }),
  )
}

/** Per variant the units of a phase seen only in it, and how many were seen in several. */
export async function exposureCounts(
  db: Db,
  dialect: Dialect,
  experimentId: string,
  phase: number,
): Promise<{ units: Map<string, number>; multiple: number }> {
  const f = (s: SQL): SQL => (dialect === 'postgres' ? sql`cast(${s} as double precision)` : s)
  const multipleTrue = dialect === 'postgres' ? sql`true` : sql`1`
  const result = await rows(
    db,
    dialect,
    sql`
    select case when multiple = ${multipleTrue} then '' else variant end as variant, ${f(sql`count(*)`)} as n
    from exposures where experiment_id = ${experimentId} and phase = ${phase}
    group by case when multiple = ${multipleTrue} then '' else variant end`,
  )
  const units = new Map<string, number>()
  let multiple = 0
  for (const r of result) {
    if (r.variant === '') multiple = num(r.n)
    else units.set(String(r.variant), num(r.n))
  }
  return { units, multiple }
}

/** Cumulative units per variant per day of the phase (the console's chart), at most `days` points. */
export async function exposuresByDay(
  db: Db,
  dialect: Dialect,
  experimentId: string,
  phase: number,
): Promise<{ day: number; variant: string; n: number }[]> {
  const f = (s: SQL): SQL => (dialect === 'postgres' ? sql`cast(${s} as double precision)` : s)
  // the day number inlined, not a parameter: PostgreSQL matches the grouped expression by its text
  const day = sql`(first_at / ${sql.raw(String(DAY_MS))})`
  const result = await rows(
    db,
    dialect,
    sql`
    select ${f(day)} as day, variant, ${f(sql`count(*)`)} as n from exposures
    where experiment_id = ${experimentId} and phase = ${phase} and multiple = ${dialect === 'postgres' ? sql`false` : sql`0`}
    group by ${day}, variant order by 1 limit 5000`,
  )
  return result.map((r) => ({ day: Math.floor(num(r.day)) * DAY_MS, variant: String(r.variant), n: num(r.n) }))
}
