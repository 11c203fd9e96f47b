// The experiment pages' pure helpers (web/src/experiment-view.ts): the health banner's issues, days running,
// the interval bars' shared scale and colours, the split a flag has in an environment, and number words.
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import {
  daysRunning,
  formatP,
  formatPercent,
  healthIssues,
  intervalDomain,
  MIN_UNITS,
  position,
  splitOf,
  tone,
  verdict,
} from '../../web/src/experiment-view'
import type { ExperimentResults } from '../../web/src/experiments-api'

const results = (over: Partial<ExperimentResults> = {}): ExperimentResults => ({
  experiment: 'x',
  phase: 1,
  computed_at: '2026-01-01T00:00:00Z',
  units: { a: 500, b: 510 },
  multiple_exposures: 0,
  srm: { p_value: 0.75, warning: false },
  metrics: [],
  ...over,
})

describe('health banner', () => {
  test('nothing to say about a healthy experiment', () => {
    expect(healthIssues(results())).toEqual([])
  })
  test('SRM, multiple exposures and too few units, each named with its numbers', () => {
    const issues = healthIssues(results({ units: { a: 900, b: 40 }, multiple_exposures: 6, srm: { p_value: 1e-9, warning: true } }))
    expect(issues.map((i) => i.kind)).toEqual(['srm', 'multiple_exposures', 'too_few_units'])
    expect(issues[0]!.detail).toContain('p = < 0.0001')
    expect(issues[1]!.detail).toContain('6 units were served more than one variant (0.63 % of all)')
    expect(issues[2]!.detail).toContain('b: 40')
    expect(issues[2]!.detail).not.toContain('a: 900')
    expect(healthIssues(results({ units: { a: MIN_UNITS, b: MIN_UNITS } }))).toEqual([])
  })
})

test('days running: from the first phase to the stop, or to now', () => {
  const phases = [
    { number: 1, started_at: '2026-01-01T00:00:00Z', ended_at: '2026-01-04T12:00:00Z', reason: 'start' },
    { number: 2, started_at: '2026-01-04T12:00:00Z', ended_at: '2026-01-09T06:00:00Z', reason: 'flag changed' },
  ]
  expect(daysRunning({ state: 'draft', phases: [] })).toBeNull()
  expect(daysRunning({ state: 'stopped', phases })).toBe(8)
  expect(daysRunning({ state: 'running', phases: [{ ...phases[0]!, ended_at: null }] }, Date.parse('2026-01-03T01:00:00Z'))).toBe(2)
})

describe('interval bars', () => {
  test('the shared scale holds every interval and zero', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: -5, max: 5, noNaN: true }), fc.double({ min: 0, max: 5, noNaN: true })), { maxLength: 6 }),
        (cis) => {
          const rows = cis.map(([lo, w]) => ({ ci: [lo, lo + w] as [number, number] }))
          const [lo, hi] = intervalDomain(rows)
          expect(lo).toBeLessThan(hi)
          expect(lo).toBeLessThanOrEqual(0)
          expect(hi).toBeGreaterThanOrEqual(0)
          for (const r of rows) {
            expect(lo).toBeLessThanOrEqual(r.ci[0])
            expect(hi).toBeGreaterThanOrEqual(r.ci[1])
            const x0 = position(r.ci[0], [lo, hi], 240)
            const x1 = position(r.ci[1], [lo, hi], 240)
            expect(0 <= x0 && x0 <= x1 && x1 <= 240).toBe(true)
          }
        },
      ),
    )
    expect(intervalDomain([{}])).toEqual([-0.1, 0.1])
  })
  test('green for a good change, red for a bad one, grey otherwise', () => {
    expect(tone({ direction: 'better' })).toBe('good')
    expect(tone({ direction: 'worse' })).toBe('bad')
    expect(tone({ direction: 'none' })).toBe('neutral')
    expect(tone({})).toBe('neutral')
  })
})

test('verdicts and number words', () => {
  const row = { variant: 'b', control: false, units: 10, mean: 1 }
  expect(verdict({ ...row, control: true })).toBe('control')
  expect(verdict({ ...row, direction: 'better' })).toBe('better')
  expect(verdict({ ...row, direction: 'worse' })).toBe('worse')
  expect(verdict({ ...row, direction: 'none' })).toBe('no clear change')
  expect(verdict({ ...row, error: 'zero_variance', direction: 'none' })).toBe('not enough data')
  expect(formatPercent(0.4535)).toBe('+45.4 %')
  expect(formatPercent(-0.0523)).toBe('−5.23 %')
  expect(formatPercent(1.5)).toBe('+150 %')
  expect(formatPercent(0)).toBe('0.00 %')
  expect(formatP(0.04642)).toBe('0.046')
  expect(formatP(0.0046)).toBe('0.0046')
  expect(formatP(4e-8)).toBe('< 0.0001')
})

test("a flag's split in an environment: the environment's own rules first, else the flag's", () => {
  const split = [
    { variant: 'a', weight: 50 },
    { variant: 'b', weight: 50 },
  ]
  const own = [
    { variant: 'a', weight: 90 },
    { variant: 'b', weight: 10 },
  ]
  const flag = {
    targeting: { rollout: { attribute: 'user_id', distribution: split } },
    environments: {
      staging: { enabled: true, targeting: { rollout: { attribute: 'user_id', distribution: own } } },
      production: { enabled: true },
    },
  }
  expect(splitOf(flag, 'staging')).toEqual(own)
  expect(splitOf(flag, 'production')).toEqual(split)
  expect(splitOf({ targeting: { rules: [] } }, 'production')).toEqual([])
})
