// Sample-ratio mismatch (gbstats utils.check_srm): Pearson's chi-square of the units per variant against
// the split's weights, on (variants − 1) degrees of freedom. A small p-value says the assignment or the
// exposure logging is broken, so no other number of the experiment can be trusted.
import chisquare from '@stdlib/stats-base-dists-chisquare'

/** Below this the results carry an SRM warning (experiments.md §3). */
export const SRM_WARNING_P = 0.001

export function srmPValue(units: number[], weights: number[]): number {
  const total = units.reduce((s, u) => s + u, 0)
  const totalWeight = weights.reduce((s, w) => s + (w > 0 ? w : 0), 0)
  // nothing observed, a single arm or no positive weight: nothing can mismatch
  if (!total || units.length < 2 || !(totalWeight > 0)) return 1
  let x = 0
  for (let i = 0; i < units.length; i++) {
    const w = weights[i] ?? 0
    if (w <= 0) continue
    const expected = (w / totalWeight) * total
    x += (units[i]! - expected) ** 2 / expected
  }
  return 1 - chisquare.cdf(x, units.length - 1)
}
