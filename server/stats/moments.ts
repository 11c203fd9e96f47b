// The effect's point estimate and its variance (gbstats EffectMoments, models/tests.py): the difference of
// the two means, relative to the control's unadjusted mean or absolute, and its variance by the delta method
// (with its own form for a relative CUPED effect). The tests build on these two numbers only.
import type { ComparisonError } from './types'
import {
  baseMean,
  baseVariance,
  cupedCovariance,
  meanOf,
  unadjustedMeanOf,
  varianceOf,
  varianceOfRatios,
  type AdjustedStatistic,
  type Statistic,
} from './statistics'

export interface EffectMoments {
  pointEstimate: number
  standardError: number
  error?: ComparisonError
}

function difference(a: Statistic, b: Statistic, relative: boolean): number {
  const meanA = meanOf(a)
  // gbstats frequentist_diff: a zero unadjusted base falls back to the adjusted mean (guarded below anyway)
  const base = unadjustedMeanOf(a) || meanA
  return relative ? (meanOf(b) - meanA) / Math.abs(base) : meanOf(b) - meanA
}

/** Variance of the relative CUPED effect, the control's adjusted mean in the numerator and its unadjusted
 *  mean in the denominator (gbstats frequentist_variance_relative_cuped). */
function relativeCupedVariance(a: AdjustedStatistic, b: AdjustedStatistic): number {
  const baseA = baseMean(a.post)
  const denTreatment = b.n * baseA ** 2
  const denControl = a.n * baseA ** 2
  if (denTreatment === 0 || denControl === 0) return 0
  const theta = a.theta
  const vTreatment = (baseVariance(b.post) + theta ** 2 * baseVariance(b.pre) - 2 * theta * cupedCovariance(b)) / denTreatment
  const c = -baseMean(b.post)
  const numA = (baseVariance(a.post) * c ** 2) / baseA ** 2
  const numB = (2 * theta * cupedCovariance(a) * c) / baseA
  const numC = theta ** 2 * baseVariance(a.pre)
  return vTreatment + (numA + numB + numC) / denControl
}

export function effectVariance(a: Statistic, b: Statistic, relative: boolean): number {
  if (relative && a.type === 'cuped' && b.type === 'cuped') return relativeCupedVariance(a, b)
  const varA = varianceOf(a) / a.n
  const varB = varianceOf(b) / b.n
  if (relative) return varianceOfRatios(meanOf(b), varB, unadjustedMeanOf(a), varA, 0)
  return varB + varA
}

/** The point estimate and standard error of treatment `b` against control `a`, or gbstats' uninformative
 *  answer (0, 0) with the reason when a variance is not positive or the control's mean is 0. */
export function effectMoments(a: Statistic, b: Statistic, relative: boolean): EffectMoments {
  if (varianceOf(a) <= 0 || varianceOf(b) <= 0) return { pointEstimate: 0, standardError: 0, error: 'zero_variance' }
  // gbstats checks the effect's variance first, which a zero base also makes 0 for a relative effect; the
  // answer is the same default either way, and `baseline_zero` names the cause
  if (meanOf(a) === 0 || unadjustedMeanOf(a) === 0) return { pointEstimate: 0, standardError: 0, error: 'baseline_zero' }
  const variance = effectVariance(a, b, relative)
  if (!(variance > 0)) return { pointEstimate: 0, standardError: 0, error: 'zero_variance' }
  return { pointEstimate: difference(a, b, relative), standardError: Math.sqrt(variance) }
}
