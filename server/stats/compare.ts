// One treatment against the control on one metric: the statistics gbstats would build from the same sums,
// CUPED's θ pooled over the two arms, then the engine's test on the relative effect (interval, p-value or
// chance to win) and on the absolute one (the absolute lift).
import type { AnalysisSettings, MetricKind, VariantComparison, VariantStats } from './types'
import { effectMoments } from './moments'
import { twoSidedTTest, sequentialTwoSidedTTest } from './frequentist'
import { effectBayesianTest } from './bayesian'
import { pooledTheta, type AdjustedStatistic, type BaseStatistic, type Statistic } from './statistics'

export const DEFAULT_SEQUENTIAL_TUNING = 5000

function base(type: 'proportion' | 'mean', n: number, sum = 0, sum2 = 0): BaseStatistic {
  // a proportion's y is 0 or 1, so Σy² is Σy whatever the row says
  return { type, n, sum, sum2: type === 'proportion' ? sum : sum2 }
}

/** The unadjusted statistic of a metric kind from one variant's sums. */
export function statisticOf(kind: MetricKind, s: VariantStats): Statistic {
  if (kind === 'ratio') {
    return { type: 'ratio', n: s.n, m: base('mean', s.n, s.sum_m, s.sum_m2), d: base('mean', s.n, s.sum_d, s.sum_d2), sumMD: s.sum_md ?? 0 }
  }
  return base(kind, s.n, s.sum_y, s.sum_y2)
}

function hasCovariate(s: VariantStats): boolean {
  return s.sum_x !== undefined && s.sum_x2 !== undefined && s.sum_xy !== undefined
}

/** The pair the tests run on: CUPED-adjusted with the pooled θ when asked for, possible (not a ratio, both
 *  arms carry a covariate) and useful (θ ≠ 0: gbstats falls back to the plain means otherwise). */
export function statisticsFor(
  kind: MetricKind,
  control: VariantStats,
  treatment: VariantStats,
  cuped: boolean,
): { a: Statistic; b: Statistic; theta?: number } {
  const a = statisticOf(kind, control)
  const b = statisticOf(kind, treatment)
  if (!cuped || kind === 'ratio' || !hasCovariate(control) || !hasCovariate(treatment)) return { a, b }
  const adjusted = (post: BaseStatistic, s: VariantStats): AdjustedStatistic => ({
    type: 'cuped',
    n: s.n,
    post,
    pre: base(post.type, s.n, s.sum_x, s.sum_x2),
    sumXY: s.sum_xy!,
    theta: 0,
  })
  const ra = adjusted(a as BaseStatistic, control)
  const rb = adjusted(b as BaseStatistic, treatment)
  const theta = pooledTheta(ra, rb)
  if (theta === 0 || !Number.isFinite(theta)) return { a, b }
  return { a: { ...ra, theta }, b: { ...rb, theta }, theta }
}

/** gbstats' comparison of `treatment` with `control` under the experiment's settings. `significant`:
 *  frequentist p < alpha, Bayesian chance to win ≥ 1 − alpha or ≤ alpha; `direction` whether that
 *  significant change is good for the metric. */
export function compareVariants(kind: MetricKind, control: VariantStats, treatment: VariantStats, s: AnalysisSettings): VariantComparison {
  const { a, b, theta } = statisticsFor(kind, control, treatment, s.cuped)
  const relative = effectMoments(a, b, true)
  const absolute = effectMoments(a, b, false)
  const cupedApplied = theta !== undefined
  const base = { cuped_applied: cupedApplied, ...(cupedApplied ? { theta } : {}), ...(relative.error ? { error: relative.error } : {}) }
  if (s.engine === 'bayesian') {
    const rel = effectBayesianTest(relative, s.alpha, !s.higher_is_better)
    const abs = effectBayesianTest(absolute, s.alpha, !s.higher_is_better)
    const better = rel.chanceToWin >= 1 - s.alpha
    const worse = rel.chanceToWin <= s.alpha
    return {
      lift: { relative: rel.estimate, absolute: abs.estimate },
      ci: rel.ci,
      chance_to_win: rel.chanceToWin,
      significant: !relative.error && (better || worse),
      direction: relative.error ? 'none' : better ? 'better' : worse ? 'worse' : 'none',
      ...base,
    }
  }
  const test = (m: typeof relative) =>
    s.sequential
      ? sequentialTwoSidedTTest(m, a.n + b.n, s.alpha, s.sequential_tuning ?? DEFAULT_SEQUENTIAL_TUNING)
      : twoSidedTTest(m, a, b, s.alpha)
  const rel = test(relative)
  const abs = test(absolute)
  const significant = !relative.error && rel.pValue < s.alpha
  return {
    lift: { relative: rel.estimate, absolute: abs.estimate },
    ci: rel.ci,
    p_value: rel.pValue,
    significant,
    direction: directionOf(significant, rel.estimate, s.higher_is_better),
    ...base,
  }
}

/** Whether a significant change of sign `lift` is good for a metric: `none` when not significant. */
export function directionOf(significant: boolean, lift: number, higherIsBetter: boolean): 'better' | 'worse' | 'none' {
  if (!significant || lift === 0) return 'none'
  return lift > 0 === higherIsBetter ? 'better' : 'worse'
}
