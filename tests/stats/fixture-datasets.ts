// The experiment datasets of tests/fixtures/experiments (gbstats 0.8.0's answers), read into the inputs of
// server/stats with experiments.md §2's defaults, and a comparison with the tolerance the spec sets.
import { expect } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ExperimentAnalysis, MetricInput } from '../../server/stats'

export const DATASETS = ['checkout-proportion-bayesian', 'revenue-mean-sequential-cuped', 'session-ratio-fixed-horizon'] as const

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Dataset = any

export function loadDataset(name: string): Dataset {
  return JSON.parse(readFileSync(join(import.meta.dir, '..', 'fixtures', 'experiments', `${name}.json`), 'utf8'))
}

/** The experiment's settings as the API would default them (experiments.md §2). */
export function analysisOf(d: Dataset): ExperimentAnalysis {
  const x = d.experiment
  const split = d.flag.targeting.rollout.distribution as { variant: string; weight: number }[]
  return {
    control: x.control ?? split[0]!.variant,
    variants: split.map((s) => s.variant),
    weights: split.map((s) => s.weight),
    engine: x.engine ?? 'bayesian',
    sequential: x.sequential ?? true,
    alpha: x.alpha ?? 0.05,
    cuped: x.cuped ?? true,
    correction: x.correction ?? 'none',
  }
}

/** Each expected metric with its definition's role, kind, direction and the variants' `stats`. */
export function metricsOf(d: Dataset): MetricInput[] {
  return d.expected.metrics.map((m: Dataset) => {
    const definition = d.metrics.find((x: Dataset) => x.key === m.metric)
    return {
      key: m.metric,
      role: m.role,
      kind: definition.kind,
      higher_is_better: definition.higher_is_better ?? true,
      stats: Object.fromEntries(m.variants.map((v: Dataset) => [v.variant, v.stats])),
    }
  })
}

/** 1e-6 relative, or 1e-9 absolute near zero (the fixtures' README). */
export function close(actual: number, expected: number): boolean {
  return Math.abs(actual - expected) <= Math.max(1e-9, 1e-6 * Math.abs(expected))
}

/** Deep comparison: the same keys (less `ignore`), numbers `close`, everything else equal. */
export function expectAgrees(actual: unknown, expected: unknown, path: string, ignore: string[] = []): void {
  if (typeof expected === 'number') {
    expect(typeof actual, path).toBe('number')
    if (!close(actual as number, expected)) expect(`${path} = ${actual}`).toBe(`${path} = ${expected}`)
    return
  }
  if (expected === null || typeof expected !== 'object') {
    expect(actual, path).toEqual(expected)
    return
  }
  expect(actual !== null && typeof actual === 'object', path).toBe(true)
  const keys = Object.keys(expected).filter((k) => !ignore.includes(k))
  expect(Object.keys(actual as object).sort(), path).toEqual(keys.sort())
  for (const k of keys)
    expectAgrees((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k], `${path}.${k}`, ignore)
}
