// What the statistics answer when the data cannot support a comparison: gbstats' uninformative default
// (lift 0, interval [0, 0], p-value 1 or chance to win 0.5, never significant) with the reason, never NaN.
import { describe, expect, test } from 'bun:test'
import {
  adjustPValues,
  buildResults,
  compareVariants,
  srmPValue,
  type AnalysisSettings,
  type ComparisonError,
  type VariantComparison,
  type VariantStats,
} from '../../server/stats'

const engines: AnalysisSettings[] = [
  { engine: 'frequentist', sequential: false, alpha: 0.05, cuped: true, higher_is_better: true },
  { engine: 'frequentist', sequential: true, alpha: 0.05, cuped: true, higher_is_better: true },
  { engine: 'bayesian', sequential: false, alpha: 0.05, cuped: true, higher_is_better: false },
]

function expectUninformative(c: VariantComparison, s: AnalysisSettings, error: ComparisonError) {
  expect(c.error).toBe(error)
  expect(c.lift).toEqual({ relative: 0, absolute: 0 })
  expect(c.ci).toEqual([0, 0])
  expect(c.significant).toBe(false)
  expect(c.direction).toBe('none')
  if (s.engine === 'frequentist') expect(c.p_value).toBe(1)
  else expect(c.chance_to_win).toBe(0.5)
}

const mean = (ys: number[]): VariantStats => ({
  n: ys.length,
  sum_y: ys.reduce((a, b) => a + b, 0),
  sum_y2: ys.reduce((a, b) => a + b * b, 0),
})
const healthy = mean([1, 2, 3, 4, 5, 6])

describe.each(engines)('$engine (sequential $sequential)', (s) => {
  test('an empty arm, or a single unit per arm: zero variance', () => {
    expectUninformative(compareVariants('mean', { n: 0 }, { n: 0 }, s), s, 'zero_variance')
    expectUninformative(compareVariants('mean', { n: 0 }, healthy, s), s, 'zero_variance')
    expectUninformative(compareVariants('mean', mean([3]), mean([5]), s), s, 'zero_variance')
    expectUninformative(compareVariants('proportion', { n: 0, sum_y: 0 }, { n: 10, sum_y: 3 }, s), s, 'zero_variance')
  })

  test('every unit alike (no variance), or no unit converting in a proportion', () => {
    expectUninformative(compareVariants('mean', mean([2, 2, 2]), healthy, s), s, 'zero_variance')
    expectUninformative(
      compareVariants('proportion', { n: 500, sum_y: 0, sum_y2: 0 }, { n: 500, sum_y: 12, sum_y2: 12 }, s),
      s,
      'zero_variance',
    )
    expectUninformative(compareVariants('proportion', { n: 500, sum_y: 500 }, { n: 500, sum_y: 480 }, s), s, 'zero_variance')
  })

  test('a control mean of zero has no relative lift', () => {
    expectUninformative(compareVariants('mean', mean([-2, 2, -1, 1]), healthy, s), s, 'baseline_zero')
  })

  test('a ratio whose denominators are all zero', () => {
    const zero: VariantStats = { n: 40, sum_m: 0, sum_m2: 0, sum_d: 0, sum_d2: 0, sum_md: 0 }
    const some: VariantStats = { n: 40, sum_m: 100, sum_m2: 900, sum_d: 50, sum_d2: 90, sum_md: 200 }
    expectUninformative(compareVariants('ratio', zero, some, s), s, 'zero_variance')
    expectUninformative(compareVariants('ratio', some, zero, s), s, 'zero_variance')
  })

  test('a covariate without variance leaves CUPED out (θ = 0) and compares the plain means', () => {
    const withX = (v: VariantStats): VariantStats => ({ ...v, sum_x: 3 * v.n, sum_x2: 9 * v.n, sum_xy: 3 * v.sum_y! })
    const other = mean([2, 4, 6, 8, 9, 11])
    const c = compareVariants('mean', withX(healthy), withX(other), s)
    expect(c.cuped_applied).toBe(false)
    expect(c.theta).toBeUndefined()
    expect(c).toEqual(compareVariants('mean', healthy, other, s))
  })

  test('a negative control mean: the relative lift is over its absolute value', () => {
    const c = compareVariants('mean', mean([-4, -6, -5, -5]), mean([-2, -3, -2, -1]), s)
    expect(c.error).toBeUndefined()
    expect(c.lift.absolute).toBeCloseTo(3, 12)
    expect(c.lift.relative).toBeCloseTo(3 / 5, 12)
  })
})

describe('sample-ratio mismatch', () => {
  test('no units, one arm, or no positive weight: nothing to mismatch (p = 1)', () => {
    expect(srmPValue([0, 0], [50, 50])).toBe(1)
    expect(srmPValue([120], [100])).toBe(1)
    expect(srmPValue([10, 20], [0, 0])).toBe(1)
  })

  test('an exact split gives 1; a variant of weight 0 is left out of the sum, not of the degrees of freedom', () => {
    expect(srmPValue([500, 500], [50, 50])).toBe(1)
    // total 1007 → 503.5 expected each: χ² = 2 · 3.5² / 503.5 on 2 degrees of freedom, whose tail is e^(−χ²/2)
    expect(srmPValue([500, 500, 7], [50, 50, 0])).toBeCloseTo(Math.exp(-(2 * 3.5 ** 2) / 503.5 / 2), 12)
  })

  test('a gross mismatch is a tiny p-value, never NaN', () => {
    const p = srmPValue([1_000_000, 10], [50, 50])
    expect(p).toBeGreaterThanOrEqual(0)
    expect(p).toBeLessThan(1e-12)
  })
})

test('corrections of an empty list are empty; of one p-value, itself', () => {
  expect(adjustPValues([], 'holm')).toEqual([])
  expect(adjustPValues([], 'bh')).toEqual([])
  expect(adjustPValues([0.03], 'holm')).toEqual([0.03])
  expect(adjustPValues([0.03], 'bh')).toEqual([0.03])
})

test('a variant without any row in the results: 0 units, mean 0, an uninformative comparison with its reason', () => {
  const r = buildResults(
    {
      control: 'a',
      variants: ['a', 'b'],
      weights: [50, 50],
      engine: 'frequentist',
      sequential: true,
      alpha: 0.05,
      cuped: true,
      correction: 'holm',
    },
    { a: 40, b: 0 },
    [
      {
        key: 'm',
        role: 'goal',
        kind: 'ratio',
        higher_is_better: true,
        stats: { a: { n: 10, sum_m: 5, sum_m2: 9, sum_d: 7, sum_d2: 11, sum_md: 6 } },
      },
    ],
  )
  expect(r.metrics[0]!.variants[1]).toEqual({
    variant: 'b',
    control: false,
    units: 0,
    mean: 0,
    sum: 0,
    denominator_sum: 0,
    lift: { relative: 0, absolute: 0 },
    ci: [0, 0],
    p_value: 1,
    p_value_unadjusted: 1,
    significant: false,
    direction: 'none',
    error: 'zero_variance',
  })
  expect(r.srm.warning).toBe(true)
})
