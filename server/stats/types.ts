// The statistics' vocabulary (experiments.md §3): what the store hands in per variant and what the results
// endpoint hands out. Names follow the fixtures' `stats` so a row from SQL maps onto them one to one.

export type MetricKind = 'proportion' | 'mean' | 'ratio'
export type MetricRole = 'goal' | 'guardrail' | 'secondary'
export type Correction = 'none' | 'holm' | 'bh'

/** Per-variant sufficient statistics over per-unit rows. Proportion and mean: n, Σy, Σy² (a proportion's
 *  y is 0 or 1); CUPED covariate x (the metric over the 14 days before first exposure): Σx, Σx², Σxy;
 *  ratio: numerator m and denominator d per unit, Σm, Σm², Σd, Σd², Σmd. */
export interface VariantStats {
  n: number
  sum_y?: number
  sum_y2?: number
  sum_x?: number
  sum_x2?: number
  sum_xy?: number
  sum_m?: number
  sum_m2?: number
  sum_d?: number
  sum_d2?: number
  sum_md?: number
}

export interface AnalysisSettings {
  engine: 'bayesian' | 'frequentist'
  /** Frequentist only: always-valid confidence sequences instead of a fixed-horizon t test. */
  sequential: boolean
  alpha: number
  cuped: boolean
  higher_is_better: boolean
  /** The sequential test's tuning parameter (gbstats' `sequential_tuning_parameter`), default 5000. */
  sequential_tuning?: number
}

/** Why a comparison could not be made (gbstats answers with its uninformative default then: lift 0, interval
 *  [0, 0], p-value 1 or chance to win 0.5, never significant). */
export type ComparisonError = 'zero_variance' | 'baseline_zero'

export interface VariantComparison {
  /** Relative (treatment − control) / |control| and absolute treatment − control. */
  lift: { relative: number; absolute: number }
  /** The interval of the relative lift: confidence (frequentist) or credible (Bayesian), level 1 − alpha. */
  ci: [number, number]
  /** Frequentist only. */
  p_value?: number
  /** Bayesian only: the chance the treatment is better (for a lower-is-better metric: lower). */
  chance_to_win?: number
  significant: boolean
  direction: 'better' | 'worse' | 'none'
  /** Whether CUPED changed the estimate (asked for, not a ratio, a covariate given, θ ≠ 0). */
  cuped_applied: boolean
  /** θ of CUPED, pooled over the two arms, when applied. */
  theta?: number
  /** Set when the data cannot support a comparison; the numbers are then gbstats' defaults. */
  error?: ComparisonError
}

/** The experiment's side of a results computation. `variants` in split order (the control among them),
 *  `weights` the split's weights in the same order. */
export interface ExperimentAnalysis {
  control: string
  variants: string[]
  weights: number[]
  engine: 'bayesian' | 'frequentist'
  sequential: boolean
  alpha: number
  cuped: boolean
  correction: Correction
  sequential_tuning?: number
}

export interface MetricInput {
  key: string
  role: MetricRole
  kind: MetricKind
  higher_is_better: boolean
  /** Per variant key; a variant without a row counts as no units. */
  stats: Record<string, VariantStats>
}

/** One row of a metric's results (experiments.md §3). The control's row carries no comparison fields. */
export interface VariantResult {
  variant: string
  control: boolean
  units: number
  mean: number
  sum?: number
  denominator_sum?: number
  lift?: { relative: number; absolute: number }
  ci?: [number, number]
  p_value?: number
  p_value_unadjusted?: number
  chance_to_win?: number
  significant?: boolean
  direction?: 'better' | 'worse' | 'none'
  error?: ComparisonError
}

export interface MetricResult {
  metric: string
  role: MetricRole
  kind: MetricKind
  cuped_applied: boolean
  variants: VariantResult[]
}

export interface SrmResult {
  p_value: number
  warning: boolean
}

export interface ResultsBody {
  units: Record<string, number>
  srm: SrmResult
  metrics: MetricResult[]
}
