// The per-variant statistics of gbstats (models/statistics.py): a proportion or sample mean, a ratio of two
// means by the delta method, and a regression-adjusted (CUPED) mean. Each yields the mean and the
// per-unit variance the tests divide by n; the zero guards are gbstats' (an empty arm has mean 0, fewer
// than two units variance 0), so nothing here returns NaN for finite input.

/** A proportion (variance p(1 − p)) or a sample mean (variance with n − 1). */
export interface BaseStatistic {
  type: 'proportion' | 'mean'
  n: number
  sum: number
  sum2: number
}

export interface RatioStatistic {
  type: 'ratio'
  n: number
  m: BaseStatistic
  d: BaseStatistic
  sumMD: number
}

export interface AdjustedStatistic {
  type: 'cuped'
  n: number
  post: BaseStatistic
  pre: BaseStatistic
  sumXY: number
  theta: number
}

export type Statistic = BaseStatistic | RatioStatistic | AdjustedStatistic

export function baseMean(s: BaseStatistic): number {
  return s.n === 0 ? 0 : s.sum / s.n
}

export function baseVariance(s: BaseStatistic): number {
  if (s.type === 'proportion') {
    const p = baseMean(s)
    return p * (1 - p)
  }
  if (s.n <= 1) return 0
  return (s.sum2 - (s.sum * s.sum) / s.n) / (s.n - 1)
}

/** Covariance of two per-unit quantities from their sums and sum of products: population form for two
 *  proportions, sample form otherwise (gbstats compute_covariance). */
export function covariance(n: number, a: BaseStatistic, b: BaseStatistic, sumProducts: number): number {
  if (n <= 1) return 0
  if (a.type === 'proportion' && b.type === 'proportion') return sumProducts / n - (a.sum * b.sum) / (n * n)
  return (sumProducts - (a.sum * b.sum) / n) / (n - 1)
}

/** Variance of M / D by the delta method, given the means, variances and covariance of M and D. */
export function varianceOfRatios(meanM: number, varM: number, meanD: number, varD: number, covMD: number): number {
  if (meanD === 0) return 0
  return varM / meanD ** 2 + (varD * meanM ** 2) / meanD ** 4 - (2 * covMD * meanM) / meanD ** 3
}

/** The (regression-adjusted) mean the effect is estimated on. */
export function meanOf(s: Statistic): number {
  switch (s.type) {
    case 'proportion':
    case 'mean':
      return baseMean(s)
    case 'ratio':
      return s.d.sum === 0 ? 0 : s.m.sum / s.d.sum
    case 'cuped':
      return baseMean(s.post) - s.theta * baseMean(s.pre)
  }
}

/** The mean without CUPED: what a person reads as the variant's mean, and the relative lift's base. */
export function unadjustedMeanOf(s: Statistic): number {
  return s.type === 'cuped' ? baseMean(s.post) : meanOf(s)
}

export function varianceOf(s: Statistic): number {
  switch (s.type) {
    case 'proportion':
    case 'mean':
      return baseVariance(s)
    case 'ratio': {
      const meanD = baseMean(s.d)
      if (meanD === 0 || s.n <= 1) return 0
      return varianceOfRatios(baseMean(s.m), baseVariance(s.m), meanD, baseVariance(s.d), covariance(s.n, s.m, s.d, s.sumMD))
    }
    case 'cuped': {
      if (s.n <= 1) return 0
      return baseVariance(s.post) + s.theta ** 2 * baseVariance(s.pre) - 2 * s.theta * cupedCovariance(s)
    }
  }
}

export function cupedCovariance(s: AdjustedStatistic): number {
  return covariance(s.n, s.post, s.pre, s.sumXY)
}

/** θ of CUPED pooled over both arms: Cov(y, x) / Var(x) of the two arms taken as one sample; 0 when either
 *  pooled variance is 0 (gbstats compute_theta). */
export function pooledTheta(a: AdjustedStatistic, b: AdjustedStatistic): number {
  const n = a.n + b.n
  const joint = (x: BaseStatistic, y: BaseStatistic): BaseStatistic => ({ type: x.type, n, sum: x.sum + y.sum, sum2: x.sum2 + y.sum2 })
  const post = joint(a.post, b.post)
  const pre = joint(a.pre, b.pre)
  if (baseVariance(pre) === 0 || baseVariance(post) === 0) return 0
  return covariance(n, post, pre, a.sumXY + b.sumXY) / baseVariance(pre)
}
