// buildResults and results.csv: the shape of experiments.md §3's `metrics` and `srm`, the corrections over
// goal metrics × treatments only, three variants with a control that is not first, and the CSV rows.
import { describe, expect, test } from 'bun:test'
import {
  adjustPValues,
  buildResults,
  compareVariants,
  resultsCsv,
  type ExperimentAnalysis,
  type MetricInput,
  type VariantStats,
} from '../../server/stats'
import { DATASETS, analysisOf, loadDataset, metricsOf } from './fixture-datasets'

const mean = (n: number, m: number, sd: number): VariantStats => ({ n, sum_y: n * m, sum_y2: (n - 1) * sd * sd + n * m * m })

const analysis: ExperimentAnalysis = {
  control: 'b',
  variants: ['a', 'b', 'c'],
  weights: [25, 50, 25],
  engine: 'frequentist',
  sequential: false,
  alpha: 0.05,
  cuped: false,
  correction: 'none',
}
const metrics: MetricInput[] = [
  {
    key: 'revenue',
    role: 'goal',
    kind: 'mean',
    higher_is_better: true,
    stats: { a: mean(1000, 10.42, 5), b: mean(2000, 10, 5), c: mean(1000, 10.6, 5) },
  },
  {
    key: 'latency',
    role: 'goal',
    kind: 'mean',
    higher_is_better: false,
    stats: { a: mean(1000, 200, 50), b: mean(2000, 204, 50), c: mean(1000, 198, 50) },
  },
  {
    key: 'errors',
    role: 'guardrail',
    kind: 'proportion',
    higher_is_better: false,
    stats: { a: { n: 1000, sum_y: 30 }, b: { n: 2000, sum_y: 40 }, c: { n: 1000, sum_y: 21 } },
  },
  {
    key: 'pages',
    role: 'secondary',
    kind: 'mean',
    higher_is_better: true,
    stats: { a: mean(1000, 3, 2), b: mean(2000, 3.01, 2), c: mean(1000, 3.2, 2) },
  },
]
const units = { a: 1000, b: 2000, c: 1000 }

describe('buildResults', () => {
  const plain = buildResults(analysis, units, metrics)

  test('one row per variant in split order; the control (here not the first) without a comparison', () => {
    for (const m of plain.metrics) {
      expect(m.variants.map((v) => v.variant)).toEqual(['a', 'b', 'c'])
      expect(m.variants.map((v) => v.control)).toEqual([false, true, false])
      expect(Object.keys(m.variants[1]!).sort()).toEqual(['control', 'mean', 'sum', 'units', 'variant'])
      for (const v of [m.variants[0]!, m.variants[2]!])
        expect(Object.keys(v)).toEqual(expect.arrayContaining(['lift', 'ci', 'p_value', 'significant', 'direction']))
    }
    expect(plain.metrics.map((m) => [m.metric, m.role, m.kind])).toEqual([
      ['revenue', 'goal', 'mean'],
      ['latency', 'goal', 'mean'],
      ['errors', 'guardrail', 'proportion'],
      ['pages', 'secondary', 'mean'],
    ])
    expect(plain.metrics[0]!.variants[1]).toEqual({ variant: 'b', control: true, units: 2000, mean: 10, sum: 20000 })
  })

  test('each treatment is compared with the control', () => {
    const m = metrics[0]!
    const c = compareVariants('mean', m.stats.b!, m.stats.c!, { ...analysis, higher_is_better: true })
    expect(plain.metrics[0]!.variants[2]).toMatchObject({
      lift: c.lift,
      ci: c.ci,
      p_value: c.p_value,
      significant: true,
      direction: 'better',
    })
    // lower latency is better: c's fall is good, a's is too
    expect(plain.metrics[1]!.variants[2]).toMatchObject({ significant: true, direction: 'better' })
    expect(plain.metrics[0]!.variants[0]!.p_value_unadjusted).toBeUndefined()
  })

  test('srm against the weights of the split, in split order', () => {
    expect(plain.srm).toEqual({ p_value: 1, warning: false })
    expect(buildResults(analysis, { a: 1000, b: 1000, c: 1000 }, metrics).srm.warning).toBe(true)
  })

  for (const correction of ['holm', 'bh'] as const) {
    const title =
      `${correction}: goal metrics × treatments adjusted together; ` + `the raw value kept; intervals, guardrails and secondaries untouched`
    test(title, () => {
      const r = buildResults({ ...analysis, correction }, units, metrics)
      const raw = [0, 1].flatMap((i) => [0, 2].map((j) => plain.metrics[i]!.variants[j]!.p_value!))
      const adjusted = adjustPValues(raw, correction)
      let k = 0
      for (const i of [0, 1]) {
        for (const j of [0, 2]) {
          const v = r.metrics[i]!.variants[j]!
          expect(v.p_value_unadjusted).toBe(raw[k]!)
          expect(v.p_value).toBe(adjusted[k]!)
          expect(v.ci).toEqual(plain.metrics[i]!.variants[j]!.ci)
          expect(v.significant).toBe(v.p_value! < 0.05)
          k++
        }
      }
      for (const i of [2, 3]) expect(r.metrics[i]).toEqual(plain.metrics[i]!)
    })
  }

  test('a correction makes a borderline goal result non-significant', () => {
    const r = buildResults({ ...analysis, correction: 'holm' }, units, metrics)
    const a = r.metrics[0]!.variants[0]!
    expect(plain.metrics[0]!.variants[0]).toMatchObject({ significant: true, direction: 'better' })
    expect(a.p_value_unadjusted!).toBeLessThan(0.05)
    expect(a.p_value!).toBeGreaterThanOrEqual(0.05)
    expect(a).toMatchObject({ significant: false, direction: 'none' })
  })

  test('the Bayesian engine has no p-values to correct', () => {
    const bayes = { ...analysis, engine: 'bayesian' as const }
    expect(buildResults({ ...bayes, correction: 'holm' }, units, metrics)).toEqual(buildResults(bayes, units, metrics))
  })
})

describe('results.csv', () => {
  test('a header and one row per metric and variant, with the numbers of the body', () => {
    const d = loadDataset(DATASETS[2])
    const r = buildResults(analysisOf(d), d.expected.units, metricsOf(d))
    const lines = resultsCsv(r.metrics).split('\r\n')
    expect(lines.at(-1)).toBe('')
    expect(lines[0]).toBe(
      'metric,role,kind,variant,control,units,mean,sum,denominator_sum,lift_relative,' +
        'lift_absolute,ci_low,ci_high,p_value,p_value_unadjusted,chance_to_win,significant,direction',
    )
    expect(lines.length - 2).toBe(r.metrics.reduce((s, m) => s + m.variants.length, 0))
    const learned = lines[2]!.split(',')
    const v = r.metrics[0]!.variants[1]!
    expect(learned.slice(0, 6)).toEqual(['srf-basket-per-session', 'goal', 'ratio', 'learned', 'false', '1074'])
    expect(learned.slice(6).map((x) => (x === '' ? undefined : x))).toEqual(
      [
        v.mean,
        v.sum,
        v.denominator_sum,
        v.lift!.relative,
        v.lift!.absolute,
        v.ci![0],
        v.ci![1],
        v.p_value,
        undefined,
        undefined,
        true,
        'better',
      ].map((x) => (x === undefined ? undefined : String(x))),
    )
    // the control row leaves the comparison empty
    expect(lines[1]!.split(',').slice(9)).toEqual(['', '', '', '', '', '', '', '', ''])
  })

  test('quotes text with commas or quotes, and defuses what a spreadsheet would run as a formula', () => {
    const csv = resultsCsv([
      {
        metric: 'm',
        role: 'goal',
        kind: 'mean',
        cuped_applied: false,
        variants: [
          { variant: '=HYPERLINK("x")', control: true, units: 1, mean: 2, sum: 2 },
          { variant: 'a,b', control: false, units: 1, mean: -2, sum: -2 },
        ],
      },
    ])
    const [, first, second] = csv.split('\r\n')
    expect(first).toBe(`m,goal,mean,"'=HYPERLINK(""x"")",true,1,2,2,,,,,,,,,,`)
    // numbers stay numbers, even negative ones
    expect(second).toBe('m,goal,mean,"a,b",false,1,-2,-2,,,,,,,,,,')
  })
})
