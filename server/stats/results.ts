// The `srm` and `metrics` of a results body (experiments.md §3) from per-variant sums: one row per metric
// and variant (the control's without a comparison), each treatment compared with the control, and with a
// correction the frequentist p-values of goal metrics × treatments adjusted together.
import type { ExperimentAnalysis, MetricInput, MetricResult, ResultsBody, SrmResult, VariantResult, VariantStats } from './types'
import { compareVariants, directionOf } from './compare'
import { adjustPValues } from './corrections'
import { srmPValue, SRM_WARNING_P } from './srm'

const EMPTY: VariantStats = { n: 0 }

export function srmOf(units: Record<string, number>, e: Pick<ExperimentAnalysis, 'variants' | 'weights'>): SrmResult {
  const p = srmPValue(
    e.variants.map((v) => units[v] ?? 0),
    e.weights,
  )
  return { p_value: p, warning: p < SRM_WARNING_P }
}

function describe(m: MetricInput, variant: string, control: boolean): VariantResult {
  const s = m.stats[variant] ?? EMPTY
  if (m.kind === 'ratio') {
    const sum = s.sum_m ?? 0
    const denominator = s.sum_d ?? 0
    return { variant, control, units: s.n, mean: denominator === 0 ? 0 : sum / denominator, sum, denominator_sum: denominator }
  }
  const sum = s.sum_y ?? 0
  return { variant, control, units: s.n, mean: s.n === 0 ? 0 : sum / s.n, sum }
}

function metricResult(m: MetricInput, e: ExperimentAnalysis): MetricResult {
  const control = m.stats[e.control] ?? EMPTY
  let cupedApplied = false
  const settings = { ...e, higher_is_better: m.higher_is_better }
  const variants = e.variants.map((variant): VariantResult => {
    const row = describe(m, variant, variant === e.control)
    if (variant === e.control) return row
    const c = compareVariants(m.kind, control, m.stats[variant] ?? EMPTY, settings)
    cupedApplied ||= c.cuped_applied
    return {
      ...row,
      lift: c.lift,
      ci: c.ci,
      ...(c.p_value !== undefined ? { p_value: c.p_value } : {}),
      ...(c.chance_to_win !== undefined ? { chance_to_win: c.chance_to_win } : {}),
      significant: c.significant,
      direction: c.direction,
      ...(c.error ? { error: c.error } : {}),
    }
  })
  return { metric: m.key, role: m.role, kind: m.kind, cuped_applied: cupedApplied, variants }
}

/** Holm or Benjamini–Hochberg over every goal metric × treatment p-value: `p_value` becomes the adjusted
 *  value, `p_value_unadjusted` keeps the raw one, `significant` and `direction` follow the adjusted value;
 *  intervals stay as they are. The Bayesian engine has no p-values, so nothing changes there. */
function applyCorrection(metrics: MetricResult[], inputs: MetricInput[], e: ExperimentAnalysis): void {
  if (e.correction === 'none' || e.engine !== 'frequentist') return
  const rows: { row: VariantResult; higherIsBetter: boolean; error: boolean }[] = []
  metrics.forEach((m, i) => {
    if (m.role !== 'goal') return
    for (const row of m.variants)
      if (!row.control && row.p_value !== undefined) rows.push({ row, higherIsBetter: inputs[i]!.higher_is_better, error: !!row.error })
  })
  if (rows.length === 0) return
  const adjusted = adjustPValues(
    rows.map((r) => r.row.p_value!),
    e.correction,
  )
  rows.forEach(({ row, higherIsBetter, error }, k) => {
    row.p_value_unadjusted = row.p_value
    row.p_value = adjusted[k]!
    row.significant = !error && row.p_value < e.alpha
    row.direction = directionOf(row.significant, row.lift!.relative, higherIsBetter)
  })
}

/** The statistics of a results body: `units` as given, `srm` against the split's weights, and `metrics` in
 *  the order given with the variants in split order. */
export function buildResults(e: ExperimentAnalysis, units: Record<string, number>, metrics: MetricInput[]): ResultsBody {
  const out = metrics.map((m) => metricResult(m, e))
  applyCorrection(out, metrics, e)
  return { units, srm: srmOf(units, e), metrics: out }
}
