// The statistics of experiments (experiments.md §3), as GrowthBook's gbstats computes them, on
// @stdlib's distributions. Pure: no store, no clock, no I/O; the results endpoint hands in per-variant sums.
export type {
  MetricKind,
  MetricRole,
  Correction,
  VariantStats,
  AnalysisSettings,
  VariantComparison,
  ComparisonError,
  ExperimentAnalysis,
  MetricInput,
  VariantResult,
  MetricResult,
  SrmResult,
  ResultsBody,
} from './types'
export { compareVariants, DEFAULT_SEQUENTIAL_TUNING } from './compare'
export { srmPValue, SRM_WARNING_P } from './srm'
export { adjustPValues } from './corrections'
export { buildResults, srmOf } from './results'
export { resultsCsv } from './csv'
