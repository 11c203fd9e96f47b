// An experiment's results (docs/experiments.md §3): the store sums each metric per variant in SQL over
// per-unit rows (store/experiment-results.ts), server/stats turns the sums into lifts, intervals and
// p-values or chances to win, and the answer is kept 60 s per experiment and phase unless refreshed.
import type { MetricInput } from '../stats'
import { resultsCsv } from '../stats/csv'
import { statistics } from '../stats/load'
import type { ExperimentRow, MetricRow } from '../store/experiments'
import type { VariantSums } from '../store/experiment-results'
import type { ServiceDeps } from './context'
import type { FlagBody } from './flag-body'
import { splitIn } from './experiment-flag'
import { experimentNotFound } from './experiments'
import { validationError } from '../errors'

/** How long an answer is kept (per experiment and phase) unless `refresh=true`. */
export const RESULTS_TTL_MS = 60_000
const MAX_CACHED = 500

export function experimentResultService({ store }: Pick<ServiceDeps, 'store'>) {
  const cache = new Map<string, { at: number; value: ReturnType<typeof compute> }>()

  /** The split the experiment compares, in order: the flag's split in its environment now, or (when it has
   *  none any more, e.g. after ship) the variants that have units, the control first, weights equal. */
  function splitOf(row: ExperimentRow, flag: FlagBody | undefined, units: Map<string, number>): { variants: string[]; weights: number[] } {
    const split = flag && row.state !== 'stopped' ? splitIn(flag, row.environment) : undefined
    if (split?.some((s) => s.variant === row.body.control))
      return { variants: split.map((s) => s.variant), weights: split.map((s) => s.weight) }
    const variants = [row.body.control, ...[...units.keys()].filter((v) => v !== row.body.control).sort()]
    return { variants, weights: variants.map(() => 1) }
  }

  async function compute(row: ExperimentRow, phase: number, now: number) {
    await store.experimentResults.freshenStatistics(store.db)
    const { units, multiple } = await store.experimentResults.exposureCounts(store.db, row.id, phase)
    const flagRow = await store.flags.get(store.db, row.projectId, row.flagKey)
    const split = splitOf(row, flagRow ? flagRow.body : undefined, units)
    const roles = [
      ...row.body.goal_metrics.map((k) => ['goal', k] as const),
      ...row.body.guardrail_metrics.map((k) => ['guardrail', k] as const),
      ...row.body.secondary_metrics.map((k) => ['secondary', k] as const),
    ]
    const defs = new Map(
      (
        await store.experiments.metrics.many(
          store.db,
          row.projectId,
          roles.map(([, k]) => k),
        )
      ).map((m: MetricRow) => [m.key, m.body]),
    )
    const measured = roles.filter(([, key]) => defs.has(key)).map(([role, key]) => ({ role, key, m: defs.get(key)! }))
    const sums = await store.experimentResults.metricSums(
      store.db,
      {
        projectId: row.projectId,
        experimentId: row.id,
        phase,
        attribute: row.body.unit,
        environment: row.environment,
        cuped: row.body.cuped,
        now,
      },
      measured.map(({ m }) => ({
        kind: m.kind,
        event: m.event,
        aggregation: m.aggregation,
        denominatorEvent: m.denominator_event,
        denominatorAggregation: m.denominator_aggregation,
        windowHours: m.window_hours,
        cap: m.cap,
      })),
    )
    const inputs: MetricInput[] = measured.map(({ role, key, m }, i) => ({
      key,
      role,
      kind: m.kind,
      higher_is_better: m.higher_is_better,
      stats: Object.fromEntries(sums[i]!.map((s: VariantSums) => [s.variant, statsOf(s)])),
    }))
    const unitsByVariant = Object.fromEntries(split.variants.map((v) => [v, units.get(v) ?? 0]))
    const { buildResults } = await statistics()
    const body = buildResults(
      {
        control: row.body.control,
        variants: split.variants,
        weights: split.weights,
        engine: row.body.engine,
        sequential: row.body.sequential,
        alpha: row.body.alpha,
        cuped: row.body.cuped,
        correction: row.body.correction,
      },
      unitsByVariant,
      inputs,
    )
    return {
      experiment: row.key,
      phase,
      computed_at: new Date(now).toISOString(),
      units: body.units,
      multiple_exposures: multiple,
      srm: body.srm,
      metrics: body.metrics,
    }
  }

  return {
    /** The results of `phase` (default: the current one), from the cache when younger than 60 s. */
    async results(projectId: string, key: string, phase?: number, refresh = false) {
      const row = await store.experiments.experiments.get(store.db, projectId, key)
      if (!row) throw experimentNotFound(key)
      const n = phase ?? row.phase
      if (row.phase === 0) throw validationError([{ path: 'phase', message: `experiment "${key}" has not started: it has no results yet` }])
      if (!Number.isInteger(n) || n < 1 || n > row.phase)
        throw validationError([{ path: 'phase', message: `must be a phase of the experiment, 1 to ${row.phase}` }])
      const id = `${row.id}:${n}`
      const now = Date.now()
      const hit = cache.get(id)
      if (!refresh && hit && now - hit.at < RESULTS_TTL_MS) return hit.value
      const value = compute(row, n, now)
      cache.delete(id)
      if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!)
      cache.set(id, { at: now, value })
      value.catch(() => cache.get(id)?.value === value && cache.delete(id))
      return value
    },
    csv: (metrics: Parameters<typeof resultsCsv>[0]) => resultsCsv(metrics),
  }
}

/** The store's sums as server/stats names them (a ratio's y is its numerator m). */
function statsOf(s: VariantSums) {
  const { variant: _, ...rest } = s
  if (s.sum_m !== undefined) {
    const { sum_y: _y, sum_y2: _y2, ...ratio } = rest
    return ratio
  }
  return rest
}
