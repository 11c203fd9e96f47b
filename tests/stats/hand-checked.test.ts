// Cases checked by hand, independently of gbstats: tests/fixtures/stats/hand-checked.py computes them with
// NumPy and SciPy from RAW per-unit values (SciPy's Welch test and chi-square test, the delta method and the
// confidence sequence written out); here the same raw values are summed the way the store sums them and
// must give the same numbers through server/stats.
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { adjustPValues, compareVariants, srmPValue, type AnalysisSettings, type VariantStats } from '../../server/stats'
import { statisticOf, statisticsFor } from '../../server/stats/compare'
import { effectMoments } from '../../server/stats/moments'
import { twoSidedTTest, welchDof } from '../../server/stats/frequentist'
import { close } from './fixture-datasets'

const cases = JSON.parse(readFileSync(join(import.meta.dir, '..', 'fixtures', 'stats', 'hand-checked.json'), 'utf8'))

const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0)
const dot = (xs: number[], ys: number[]) => sum(xs.map((x, i) => x * ys[i]!))
const meanStats = (y: number[]): VariantStats => ({ n: y.length, sum_y: sum(y), sum_y2: dot(y, y) })
const cupedStats = (y: number[], x: number[]): VariantStats => ({ ...meanStats(y), sum_x: sum(x), sum_x2: dot(x, x), sum_xy: dot(x, y) })
const ratioStats = (m: number[], d: number[]): VariantStats => ({
  n: m.length,
  sum_m: sum(m),
  sum_m2: dot(m, m),
  sum_d: sum(d),
  sum_d2: dot(d, d),
  sum_md: dot(m, d),
})
const proportionStats = ([events, n]: [number, number]): VariantStats => ({ n, sum_y: events, sum_y2: events })

const frequentist: AnalysisSettings = { engine: 'frequentist', sequential: false, alpha: 0.05, cuped: false, higher_is_better: true }

function expectClose(actual: number, expected: number) {
  if (!close(actual, expected)) expect(actual).toBe(expected)
}

test("Welch's t test on the absolute difference agrees with SciPy's ttest_ind(equal_var=False)", () => {
  const c = cases.welch_absolute
  const a = statisticOf('mean', meanStats(c.control))
  const b = statisticOf('mean', meanStats(c.treatment))
  expectClose(welchDof(a, b), c.dof)
  const r = twoSidedTTest(effectMoments(a, b, false), a, b, 0.05)
  expectClose(r.estimate, c.estimate)
  expectClose(r.pValue, c.p_value)
  expectClose(r.ci[0], c.ci[0])
  expectClose(r.ci[1], c.ci[1])
})

test('the relative lift, its delta-method interval and p-value', () => {
  const raw = cases.welch_absolute
  const c = cases.welch_relative
  const r = compareVariants('mean', meanStats(raw.control), meanStats(raw.treatment), frequentist)
  expectClose(r.lift.relative, c.estimate)
  expectClose(r.lift.absolute, raw.estimate)
  expectClose(r.p_value!, c.p_value)
  expectClose(r.ci[0], c.ci[0])
  expectClose(r.ci[1], c.ci[1])
  expect(r).toMatchObject({ significant: true, direction: 'better', cuped_applied: false })
  // the same significant rise of a lower-is-better metric is a change for the worse
  expect(
    compareVariants('mean', meanStats(raw.control), meanStats(raw.treatment), { ...frequentist, higher_is_better: false }).direction,
  ).toBe('worse')
})

test('Bayesian proportion: chance to win and credible interval of the normal posterior', () => {
  const c = cases.bayesian_proportion
  const s = { ...frequentist, engine: 'bayesian' as const }
  const r = compareVariants('proportion', proportionStats(c.control), proportionStats(c.treatment), s)
  expectClose(r.lift.relative, c.estimate)
  expectClose(r.lift.absolute, c.absolute)
  expectClose(r.chance_to_win!, c.chance_to_win)
  expectClose(r.ci[0], c.ci[0])
  expectClose(r.ci[1], c.ci[1])
  expect(r.p_value).toBeUndefined()
  // 0.94 < 1 − alpha: not significant at 0.05, but at 0.1 it is (chance to win ≥ 0.9)
  expect(r).toMatchObject({ significant: false, direction: 'none' })
  expect(compareVariants('proportion', proportionStats(c.control), proportionStats(c.treatment), { ...s, alpha: 0.1 })).toMatchObject({
    significant: true,
    direction: 'better',
  })
  const lower = compareVariants('proportion', proportionStats(c.control), proportionStats(c.treatment), {
    ...s,
    alpha: 0.1,
    higher_is_better: false,
  })
  expectClose(lower.chance_to_win!, c.chance_to_win_lower_is_better)
  expect(lower).toMatchObject({ significant: true, direction: 'worse' })
})

test("sample-ratio mismatch agrees with SciPy's chisquare against the split", () => {
  for (const c of cases.srm) expectClose(srmPValue(c.units, c.weights), c.p_value)
})

test('CUPED: θ is the pooled least-squares slope and the effect is that of y − θx', () => {
  const c = cases.cuped_absolute
  const control = cupedStats(c.control.y, c.control.x)
  const treatment = cupedStats(c.treatment.y, c.treatment.x)
  const pair = statisticsFor('mean', control, treatment, true)
  expectClose(pair.theta!, c.theta)
  const moments = effectMoments(pair.a, pair.b, false)
  const r = twoSidedTTest(moments, pair.a, pair.b, 0.05)
  expectClose(r.estimate, c.estimate)
  expectClose(r.pValue, c.p_value)
  expectClose(r.ci[0], c.ci[0])
  expectClose(r.ci[1], c.ci[1])
  const compared = compareVariants('mean', control, treatment, { ...frequentist, cuped: true })
  expect(compared.cuped_applied).toBe(true)
  expectClose(compared.lift.absolute, c.estimate)
  // without the covariate (or with CUPED off) the plain difference of means
  const plain = compareVariants('mean', meanStats(c.control.y), meanStats(c.treatment.y), { ...frequentist, cuped: true })
  expect(plain.cuped_applied).toBe(false)
  expectClose(plain.lift.absolute, sum(c.treatment.y) / c.treatment.y.length - sum(c.control.y) / c.control.y.length)
})

test('ratio metric: delta method, sequential interval and always-valid p-value (tuning 5,000)', () => {
  const c = cases.ratio_sequential
  const r = compareVariants('ratio', ratioStats(c.control.m, c.control.d), ratioStats(c.treatment.m, c.treatment.d), {
    ...frequentist,
    sequential: true,
    cuped: true,
  })
  expectClose(r.lift.relative, c.estimate)
  expectClose(r.ci[0], c.ci[0])
  expectClose(r.ci[1], c.ci[1])
  expectClose(r.p_value!, c.p_value)
  // a ratio is never CUPED-adjusted, even when asked
  expect(r.cuped_applied).toBe(false)
})

test('Holm and Benjamini–Hochberg, each rank worked out by hand', () => {
  const c = cases.corrections
  adjustPValues(c.p, 'holm').forEach((p, i) => expectClose(p, c.holm[i]))
  adjustPValues(c.p, 'bh').forEach((p, i) => expectClose(p, c.bh[i]))
  // by hand: sorted 0.005 0.01 0.03 0.04 0.2 → Holm ×5 ×4 ×3 ×2 ×1 = 0.025 0.04 0.09 0.08→0.09 0.2
  expect(adjustPValues(c.p, 'holm').map((p) => +p.toFixed(6))).toEqual([0.04, 0.09, 0.09, 0.025, 0.2])
  // BH ×5/1 ×5/2 ×5/3 ×5/4 ×5/5 = 0.025 0.025 0.05 0.05 0.2, then the running minimum from the top
  expect(adjustPValues(c.p, 'bh').map((p) => +p.toFixed(6))).toEqual([0.025, 0.05, 0.05, 0.025, 0.2])
})
