// Frequentist tests on an effect's moments (gbstats frequentist/tests.py): Welch's two-sided t test with
// the Welch–Satterthwaite degrees of freedom, and the asymptotic confidence sequence of Waudby-Smith et al.
// (arXiv 2103.06476v7, eqs. 9, 155 and 161) whose interval and p-value stay valid however often one looks.
import t from '@stdlib/stats-base-dists-t'
import type { EffectMoments } from './moments'
import { varianceOf, type Statistic } from './statistics'

export interface FrequentistResult {
  estimate: number
  ci: [number, number]
  pValue: number
}

/** gbstats' answer when the moments could not be computed. */
const UNINFORMATIVE: FrequentistResult = { estimate: 0, ci: [0, 0], pValue: 1 }

/** Welch–Satterthwaite degrees of freedom from the per-unit variances of the two (adjusted) arms. */
export function welchDof(a: Statistic, b: Statistic): number {
  const va = varianceOf(a)
  const vb = varianceOf(b)
  return (vb / b.n + va / a.n) ** 2 / (vb ** 2 / (b.n ** 2 * (b.n - 1)) + va ** 2 / (a.n ** 2 * (a.n - 1)))
}

export function twoSidedTTest(moments: EffectMoments, a: Statistic, b: Statistic, alpha: number): FrequentistResult {
  if (moments.error) return UNINFORMATIVE
  const dof = welchDof(a, b)
  const critical = moments.pointEstimate / moments.standardError
  const pValue = 2 * (1 - t.cdf(Math.abs(critical), dof))
  const halfwidth = t.quantile(1 - alpha / 2, dof) * moments.standardError
  return { estimate: moments.pointEstimate, ci: [moments.pointEstimate - halfwidth, moments.pointEstimate + halfwidth], pValue }
}

/** ρ of the two-sided confidence sequence, tuned so that it is tightest near `tuning` units (eq. 161). */
export function sequentialRho(alpha: number, tuning: number): number {
  const l = -2 * Math.log(alpha)
  return Math.sqrt((l + Math.log(l + 1)) / tuning)
}

/** The confidence sequence on `n` = both arms' units: its half-width (eq. 9) and always-valid p-value, the
 *  reciprocal of the e-value (eq. 155), capped at 1. */
export function sequentialTwoSidedTTest(moments: EffectMoments, n: number, alpha: number, tuning: number): FrequentistResult {
  if (moments.error) return UNINFORMATIVE
  const rho = sequentialRho(alpha, tuning)
  const s2 = moments.standardError ** 2 * n
  const nr2p1 = n * rho ** 2 + 1
  const halfwidth = Math.sqrt(s2) * Math.sqrt((2 * nr2p1 * Math.log(Math.sqrt(nr2p1) / alpha)) / (n * rho) ** 2)
  const st2 = (moments.pointEstimate ** 2 * n) / moments.standardError ** 2
  // 1 / e-value written as a product so that a very strong effect gives a tiny p-value, not 1 / Infinity
  const pValue = Math.min(Math.sqrt(nr2p1) * Math.exp(-(rho ** 2 * st2) / (2 * nr2p1)), 1)
  return { estimate: moments.pointEstimate, ci: [moments.pointEstimate - halfwidth, moments.pointEstimate + halfwidth], pValue }
}
