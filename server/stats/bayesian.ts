// gbstats' EffectBayesianABTest with its default improper prior (bayesian/tests.py): the posterior of the
// effect is Normal(point estimate, standard error²), so the chance to win is P(effect > 0) (or < 0 for a
// lower-is-better metric, gbstats' `inverse`) and the credible interval its alpha/2 and 1 − alpha/2 quantiles.
import normal from '@stdlib/stats-base-dists-normal'
import type { EffectMoments } from './moments'

export interface BayesianResult {
  estimate: number
  ci: [number, number]
  chanceToWin: number
}

const UNINFORMATIVE: BayesianResult = { estimate: 0, ci: [0, 0], chanceToWin: 0.5 }

export function effectBayesianTest(moments: EffectMoments, alpha: number, inverse: boolean): BayesianResult {
  if (moments.error || !(moments.standardError > 0)) return UNINFORMATIVE
  const mean = moments.pointEstimate
  const sd = moments.standardError
  // P(effect > 0) = Φ(mean / sd); its complement read from the other tail, so neither loses precision
  const chanceToWin = inverse ? normal.cdf(-mean / sd, 0, 1) : normal.cdf(mean / sd, 0, 1)
  return { estimate: mean, ci: [normal.quantile(alpha / 2, mean, sd), normal.quantile(1 - alpha / 2, mean, sd)], chanceToWin }
}
