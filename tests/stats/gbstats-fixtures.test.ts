// Every number of every dataset's `expected` (gbstats 0.8.0, run unmodified) from its per-variant `stats`:
// the srm, each variant's units, mean, sums, lift, interval, p-value or chance to win, significance and
// direction, to 1e-6 relative (1e-9 absolute near zero); CUPED's θ as gbstats pooled it.
import { describe, expect, test } from 'bun:test'
import { buildResults, compareVariants, type VariantStats } from '../../server/stats'
import { DATASETS, analysisOf, close, expectAgrees, loadDataset, metricsOf } from './fixture-datasets'

describe.each(DATASETS)('%s', (name) => {
  const d = loadDataset(name)
  const analysis = analysisOf(d)
  const results = buildResults(analysis, d.expected.units, metricsOf(d))

  test('srm and units agree with gbstats', () => {
    expectAgrees(results.srm, d.expected.srm, 'srm')
    expect(results.units).toEqual(d.expected.units)
  })

  test('every metric and variant agrees with gbstats', () => {
    expect(results.metrics.length).toBe(d.expected.metrics.length)
    results.metrics.forEach((m, i) => expectAgrees(m, d.expected.metrics[i], `metrics[${i}]`, ['stats', 'theta']))
  })

  test('CUPED pools the θ gbstats pooled, and only where it was applied', () => {
    const metrics = metricsOf(d)
    for (const [i, expected] of (
      d.expected.metrics as { cuped_applied: boolean; variants: { variant: string; control: boolean; theta?: number }[] }[]
    ).entries()) {
      const m = metrics[i]!
      const control = m.stats[analysis.control] as VariantStats
      for (const v of expected.variants.filter((x) => !x.control)) {
        const c = compareVariants(m.kind, control, m.stats[v.variant]!, { ...analysis, higher_is_better: m.higher_is_better })
        expect(c.cuped_applied).toBe(expected.cuped_applied)
        if (v.theta === undefined) expect(c.theta).toBeUndefined()
        else expect(close(c.theta!, v.theta)).toBe(true)
      }
    }
  })
})

test('the datasets cover both engines, the sequential and fixed-horizon tests, CUPED and every kind', () => {
  const all = DATASETS.map(loadDataset)
  const analyses = all.map(analysisOf)
  expect(new Set(analyses.map((a) => a.engine))).toEqual(new Set(['bayesian', 'frequentist']))
  expect(
    analyses
      .filter((a) => a.engine === 'frequentist')
      .map((a) => a.sequential)
      .sort(),
  ).toEqual([false, true])
  expect(
    all
      .flatMap(metricsOf)
      .map((m) => m.kind)
      .sort(),
  ).toContain('ratio')
  expect(new Set(all.flatMap(metricsOf).map((m) => m.kind))).toEqual(new Set(['proportion', 'mean', 'ratio']))
  expect(all.flatMap((d) => d.expected.metrics).some((m: { cuped_applied: boolean }) => m.cuped_applied)).toBe(true)
})
