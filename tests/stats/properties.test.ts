// Properties of the statistics over random per-unit data (summed the way the store sums them): finite
// answers inside their ranges, the point inside its interval, significance exactly when the interval leaves
// zero, symmetries of swapping the arms and of a metric's good direction, and the corrections' order laws.
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { adjustPValues, compareVariants, srmPValue, type AnalysisSettings, type MetricKind, type VariantStats } from '../../server/stats'

const unitValues = fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 0, maxLength: 60 })
const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0)
const dot = (xs: number[], ys: number[]) => sum(xs.map((x, i) => x * ys[i]!))

/** A variant's sums from per-unit (y, x, d) triples, as every kind needs them. */
function statsOf(kind: MetricKind, ys: number[], xs: number[]): VariantStats {
  const y = kind === 'proportion' ? ys.map((v) => (v > 20 ? 1 : 0)) : ys
  const x = kind === 'proportion' ? xs.map((v) => (v > 20 ? 1 : 0)) : xs
  const d = xs.map((v) => (v % 4) + 1)
  return {
    n: y.length,
    sum_y: sum(y),
    sum_y2: dot(y, y),
    sum_x: sum(x),
    sum_x2: dot(x, x),
    sum_xy: dot(x, y),
    sum_m: sum(ys),
    sum_m2: dot(ys, ys),
    sum_d: sum(d),
    sum_d2: dot(d, d),
    sum_md: dot(ys, d),
  }
}

const arm = fc
  .tuple(unitValues, fc.integer({ min: 0, max: 10 }))
  .map(([ys, seed]) => ({ ys, xs: ys.map((y, i) => (y * 7 + i + seed) % 31) }))
const settings = fc.record({
  engine: fc.constantFrom<'bayesian' | 'frequentist'>('bayesian', 'frequentist'),
  sequential: fc.boolean(),
  alpha: fc.constantFrom(0.01, 0.05, 0.1, 0.2),
  cuped: fc.boolean(),
  higher_is_better: fc.boolean(),
}) as fc.Arbitrary<AnalysisSettings>
const kind = fc.constantFrom<MetricKind>('proportion', 'mean', 'ratio')

describe('compareVariants', () => {
  test('every answer is finite and in range; the estimate lies inside its interval; significance is the interval leaving 0', () => {
    fc.assert(
      fc.property(kind, arm, arm, settings, (k, a, b, s) => {
        const c = compareVariants(k, statsOf(k, a.ys, a.xs), statsOf(k, b.ys, b.xs), s)
        for (const v of [c.lift.relative, c.lift.absolute, c.ci[0], c.ci[1]]) expect(Number.isFinite(v)).toBe(true)
        expect(c.ci[0]).toBeLessThanOrEqual(c.lift.relative + 1e-12)
        expect(c.ci[1]).toBeGreaterThanOrEqual(c.lift.relative - 1e-12)
        if (s.engine === 'frequentist') {
          expect(c.p_value).toBeGreaterThanOrEqual(0)
          expect(c.p_value).toBeLessThanOrEqual(1)
          expect(c.chance_to_win).toBeUndefined()
          // p < alpha exactly when the (1 − alpha) interval excludes 0 (Welch and the confidence sequence alike),
          // away from the boundary where rounding may decide either way
          const excludes = c.ci[0] > 0 || c.ci[1] < 0
          const margin = Math.min(Math.abs(c.ci[0]), Math.abs(c.ci[1])) / Math.max(1e-12, c.ci[1] - c.ci[0])
          if (margin > 1e-9) expect(c.significant).toBe(excludes)
        } else {
          expect(c.chance_to_win).toBeGreaterThanOrEqual(0)
          expect(c.chance_to_win).toBeLessThanOrEqual(1)
          expect(c.p_value).toBeUndefined()
          expect(c.significant).toBe(!c.error && (c.chance_to_win! >= 1 - s.alpha || c.chance_to_win! <= s.alpha))
        }
        if (!c.significant) expect(c.direction).toBe('none')
        if (k === 'ratio') expect(c.cuped_applied).toBe(false)
      }),
      { numRuns: 400 },
    )
  })

  test('swapping the arms negates the absolute lift; the fixed-horizon test then gives the same absolute conclusion', () => {
    fc.assert(
      fc.property(kind, arm, arm, fc.boolean(), (k, a, b, higher) => {
        const s: AnalysisSettings = { engine: 'frequentist', sequential: false, alpha: 0.05, cuped: false, higher_is_better: higher }
        const ab = compareVariants(k, statsOf(k, a.ys, a.xs), statsOf(k, b.ys, b.xs), s)
        const ba = compareVariants(k, statsOf(k, b.ys, b.xs), statsOf(k, a.ys, a.xs), s)
        if (ab.error || ba.error) return
        expect(ba.lift.absolute).toBeCloseTo(-ab.lift.absolute, 9)
      }),
      { numRuns: 300 },
    )
  })

  test("a lower-is-better metric's chance to win is the complement, and its direction the opposite", () => {
    fc.assert(
      fc.property(kind, arm, arm, fc.boolean(), (k, a, b, cuped) => {
        const s: AnalysisSettings = { engine: 'bayesian', sequential: false, alpha: 0.05, cuped, higher_is_better: true }
        const up = compareVariants(k, statsOf(k, a.ys, a.xs), statsOf(k, b.ys, b.xs), s)
        const down = compareVariants(k, statsOf(k, a.ys, a.xs), statsOf(k, b.ys, b.xs), { ...s, higher_is_better: false })
        if (up.error) return
        expect(down.chance_to_win! + up.chance_to_win!).toBeCloseTo(1, 12)
        expect(down.ci).toEqual(up.ci)
        const flip = { better: 'worse', worse: 'better', none: 'none' } as const
        expect(down.direction).toBe(flip[up.direction])
      }),
      { numRuns: 300 },
    )
  })

  test('the sequential interval is always wider than the fixed-horizon one at the same alpha', () => {
    fc.assert(
      fc.property(arm, arm, (a, b) => {
        const base: AnalysisSettings = { engine: 'frequentist', sequential: false, alpha: 0.05, cuped: false, higher_is_better: true }
        const fixed = compareVariants('mean', statsOf('mean', a.ys, a.xs), statsOf('mean', b.ys, b.xs), base)
        const seq = compareVariants('mean', statsOf('mean', a.ys, a.xs), statsOf('mean', b.ys, b.xs), { ...base, sequential: true })
        if (fixed.error) return
        expect(seq.ci[1] - seq.ci[0]).toBeGreaterThan(fixed.ci[1] - fixed.ci[0])
        expect(seq.p_value!).toBeGreaterThanOrEqual(fixed.p_value! - 1e-12)
      }),
      { numRuns: 300 },
    )
  })
})

describe('adjustPValues', () => {
  const pValues = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 30 })
  test('never below the raw value nor above 1, in the order of the raw values, BH never above Holm', () => {
    fc.assert(
      fc.property(pValues, (ps) => {
        const holm = adjustPValues(ps, 'holm')
        const bh = adjustPValues(ps, 'bh')
        ps.forEach((p, i) => {
          // (p · m / m may round one unit in the last place below p)
          expect(holm[i]).toBeGreaterThanOrEqual(p * (1 - 1e-15))
          expect(bh[i]).toBeGreaterThanOrEqual(p * (1 - 1e-15))
          expect(holm[i]).toBeLessThanOrEqual(1)
          expect(bh[i]).toBeLessThanOrEqual(holm[i]! + 1e-15)
          ps.forEach((q, j) => {
            if (p < q) {
              expect(holm[i]).toBeLessThanOrEqual(holm[j]!)
              expect(bh[i]).toBeLessThanOrEqual(bh[j]!)
            }
          })
        })
        // the smallest p-value's Holm value is Bonferroni's: p · m
        const min = Math.min(...ps)
        expect(Math.min(...holm)).toBeCloseTo(Math.min(1, min * ps.length), 12)
      }),
    )
  })
})

describe('srmPValue', () => {
  test('in [0, 1], 1 for an exact split, and falling as the same imbalance is seen on more units', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 1, max: 200 }), (n, skew) => {
        expect(srmPValue([n, n], [1, 1])).toBe(1)
        const small = srmPValue([n + skew, n], [1, 1])
        const large = srmPValue([10 * (n + skew), 10 * n], [1, 1])
        expect(small).toBeGreaterThanOrEqual(0)
        expect(small).toBeLessThanOrEqual(1)
        expect(large).toBeLessThanOrEqual(small)
      }),
    )
  })
})
