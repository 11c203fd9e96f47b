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

export interface MetricQuery {
  projectId: string
  experimentId: string
  phase: number
  /** the context attribute that names a unit */
  attribute: string
  /** track events of this environment or of none count */
  environment: string
  kind: MetricKind
  event: string
  aggregation: Aggregation
  denominatorEvent?: string
  denominatorAggregation?: Aggregation
  windowHours?: number
  cap?: number
  /** also the covariate over the COVARIATE_DAYS before the first exposure */
  cuped: boolean
  /** events after this instant (ms) do not count */
  now: number
}

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
  if (dialect === 'postgres') return [...(await (db as unknown as { execute(q: SQL): Promise<Iterable<Record<string, unknown>>> }).execute(query))]
  return (db as unknown as { all(q: SQL): Record<string, unknown>[] }).all(query)
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v))

/** PostgreSQL plans the exposure-to-event join from the tables' statistics: with none yet (rows just
 *  written, autovacuum not yet round) it expects one row and scans every event per unit. A table changed by
 *  more than a tenth since its last ANALYZE (and by 1,000 rows at least) is analysed first. */
export async function freshenStatistics(db: Db, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return
  const stale = await rows(db, dialect, sql`
    select relname from pg_stat_user_tables
    where relname in ('exposures', 'track_events') and n_mod_since_analyze > greatest(1000, n_live_tup / 10)`)
  for (const r of stale) await rows(db, dialect, sql`analyze ${sql.identifier(String(r.relname))}`)
}

/** The per-variant sums of one metric (ratio: Σm, Σm², Σd, Σd², Σmd; with `cuped`: Σx, Σx², Σxy too). */
export async function metricSums(db: Db, dialect: Dialect, q: MetricQuery): Promise<VariantSums[]> {
  const f = (s: SQL): SQL => (dialect === 'postgres' ? sql`cast(${s} as double precision)` : s)
  const windowMs = q.windowHours === undefined ? undefined : Math.round(q.windowHours * 3_600_000)
  // [first, end): the window, else every event after the first exposure up to now.
  const end = windowMs === undefined ? sql`${q.now + 1}` : sql`(x.first_at + ${windowMs})`
  const lookback = q.cuped && q.kind !== 'ratio' ? COVARIATE_DAYS * DAY_MS : 0
  const inWindow = sql`e.at >= x.first_at and e.at < ${end}`
  const inCovariate = sql`e.at >= x.first_at - ${lookback} and e.at < x.first_at`
  const valueOf = (agg: Aggregation) => (agg === 'sum' ? sql`e.value` : sql`1`)
  // Per unit: y (numerator) over the window; the covariate x; the denominator d for a ratio.
  const perEvent = (key: string, agg: Aggregation, when: SQL) => sql`case when e.key = ${key} and ${when} then ${valueOf(agg)} else 0 end`
  const yAgg = q.kind === 'proportion' ? sql`max(${perEvent(q.event, 'count', inWindow)})` : sql`sum(${perEvent(q.event, q.aggregation, inWindow)})`
  const xAgg = !lookback ? sql`0` : q.kind === 'proportion' ? sql`max(${perEvent(q.event, 'count', inCovariate)})` : sql`sum(${perEvent(q.event, q.aggregation, inCovariate)})`
  const dAgg = q.kind === 'ratio' && q.denominatorEvent !== undefined ? sql`sum(${perEvent(q.denominatorEvent, q.denominatorAggregation ?? 'count', inWindow)})` : sql`0`
  const keys = q.kind === 'ratio' && q.denominatorEvent !== undefined && q.denominatorEvent !== q.event ? [q.event, q.denominatorEvent] : [q.event]
  const keyTest = keys.length === 1 ? sql`e.key = ${keys[0]}` : sql`e.key in (${keys[0]}, ${keys[1]})`
  const capped = (v: SQL) => (q.cap === undefined ? v : sql`case when ${v} > ${q.cap} then ${q.cap} else ${v} end`)
  const perUnit = sql`
    select x.variant as variant, coalesce(${yAgg}, 0) as y, coalesce(${xAgg}, 0) as c, coalesce(${dAgg}, 0) as d
    from exposures x
    left join track_events e on e.project_id = ${q.projectId} and ${keyTest} and e.attribute = ${q.attribute} and e.unit = x.unit
      and (e.environment = '' or e.environment = ${q.environment}) and e.at >= x.first_at - ${lookback} and e.at < ${end}
    where x.experiment_id = ${q.experimentId} and x.phase = ${q.phase} and x.multiple = ${dialect === 'postgres' ? sql`false` : sql`0`}
    group by x.unit, x.variant`
  const query = sql`
    select variant, ${f(sql`count(*)`)} as n, ${f(sql`sum(y)`)} as sy, ${f(sql`sum(y * y)`)} as sy2,
      ${f(sql`sum(c)`)} as sx, ${f(sql`sum(c * c)`)} as sx2, ${f(sql`sum(c * y)`)} as sxy,
      ${f(sql`sum(d)`)} as sd, ${f(sql`sum(d * d)`)} as sd2, ${f(sql`sum(y * d)`)} as syd
    from (select variant, ${capped(sql`y`)} as y, ${capped(sql`c`)} as c, d from (${perUnit}) p) capped
    group by variant order by variant`
  return (await rows(db, dialect, query)).map((r) => {
    const n = num(r.n)
    if (q.kind === 'ratio') return { variant: String(r.variant), n, sum_y: num(r.sy), sum_y2: num(r.sy2), sum_m: num(r.sy), sum_m2: num(r.sy2), sum_d: num(r.sd), sum_d2: num(r.sd2), sum_md: num(r.syd) }
    const out: VariantSums = { variant: String(r.variant), n, sum_y: num(r.sy), sum_y2: num(r.sy2) }
    if (lookback) Object.assign(out, { sum_x: num(r.sx), sum_x2: num(r.sx2), sum_xy: num(r.sxy) })
    return out
  })
}

/** Per variant the units of a phase seen only in it, and how many were seen in several. */
export async function exposureCounts(db: Db, dialect: Dialect, experimentId: string, phase: number): Promise<{ units: Map<string, number>; multiple: number }> {
  const f = (s: SQL): SQL => (dialect === 'postgres' ? sql`cast(${s} as double precision)` : s)
  const multipleTrue = dialect === 'postgres' ? sql`true` : sql`1`
  const result = await rows(db, dialect, sql`
    select case when multiple = ${multipleTrue} then '' else variant end as variant, ${f(sql`count(*)`)} as n
    from exposures where experiment_id = ${experimentId} and phase = ${phase}
    group by case when multiple = ${multipleTrue} then '' else variant end`)
  const units = new Map<string, number>()
  let multiple = 0
  for (const r of result) {
    if (r.variant === '') multiple = num(r.n)
    else units.set(String(r.variant), num(r.n))
  }
  return { units, multiple }
}

/** Cumulative units per variant per day of the phase (the console's chart), at most `days` points. */
export async function exposuresByDay(db: Db, dialect: Dialect, experimentId: string, phase: number): Promise<{ day: number; variant: string; n: number }[]> {
  const f = (s: SQL): SQL => (dialect === 'postgres' ? sql`cast(${s} as double precision)` : s)
  // the day number inlined, not a parameter: PostgreSQL matches the grouped expression by its text
  const day = sql`(first_at / ${sql.raw(String(DAY_MS))})`
  const result = await rows(db, dialect, sql`
    select ${f(day)} as day, variant, ${f(sql`count(*)`)} as n from exposures
    where experiment_id = ${experimentId} and phase = ${phase} and multiple = ${dialect === 'postgres' ? sql`false` : sql`0`}
    group by ${day}, variant order by 1 limit 5000`)
  return result.map((r) => ({ day: Math.floor(num(r.day)) * DAY_MS, variant: String(r.variant), n: num(r.n) }))
}
