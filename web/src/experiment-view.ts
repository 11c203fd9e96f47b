// How the experiment pages read results (docs/experiments.md): what the health banner warns about, how
// long an experiment has run, where a lift's interval sits on a bar drawn against zero, and the words for
// numbers. Pure, so tests/unit can check them without a browser.
import type { Experiment, ExperimentResults, VariantResult } from './experiments-api'

/** Below this many units in any variant the banner says the results cannot say much yet (the release
 *  plans' default `min_units`, experiments.md §4). */
export const MIN_UNITS = 100

export interface HealthIssue {
  kind: 'srm' | 'multiple_exposures' | 'too_few_units'
  title: string
  detail: string
}

const share = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(part / whole < 0.01 ? 2 : 1)} %` : '0 %')

export function healthIssues(r: ExperimentResults, minUnits = MIN_UNITS): HealthIssue[] {
  const issues: HealthIssue[] = []
  const counted = Object.values(r.units).reduce((s, n) => s + n, 0)
  if (r.srm.warning) {
    issues.push({
      kind: 'srm',
      title: 'Sample-ratio mismatch',
      detail:
        `The units per variant do not match the split (p = ${formatP(r.srm.p_value)}). ` +
        `Assignment or exposure logging is broken; do not trust these results until the cause is fixed.`,
    })
  }
  if (r.multiple_exposures > 0) {
    issues.push({
      kind: 'multiple_exposures',
      title: 'Multiple exposures',
      detail:
        `${r.multiple_exposures} ${r.multiple_exposures === 1 ? 'unit was' : 'units were'} served more than one variant ` +
        `(${share(r.multiple_exposures, counted + r.multiple_exposures)} of all) and left out.`,
    })
  }
  const few = Object.entries(r.units).filter(([, n]) => n < minUnits)
  if (few.length) {
    issues.push({
      kind: 'too_few_units',
      title: 'Too few units',
      detail:
        `${few.map(([v, n]) => `${v}: ${n}`).join(', ')}. ` +
        `With fewer than ${minUnits} units per variant the intervals are too wide to decide.`,
    })
  }
  return issues
}

const DAY = 86_400_000

/** Whole days from the first phase's start to its stop (or now, while running); null before the start. */
export function daysRunning(e: Pick<Experiment, 'state' | 'phases'>, now = Date.now()): number | null {
  const first = e.phases[0]
  if (!first) return null
  const last = e.phases[e.phases.length - 1]!
  const end = e.state === 'stopped' && last.ended_at ? Date.parse(last.ended_at) : now
  return Math.max(0, Math.floor((end - Date.parse(first.started_at)) / DAY))
}

/** The scale a metric's interval bars share: every interval and 0, with a margin, never empty. */
export function intervalDomain(rows: Pick<VariantResult, 'ci'>[]): [number, number] {
  let lo = 0
  let hi = 0
  for (const r of rows) {
    if (!r.ci) continue
    lo = Math.min(lo, r.ci[0])
    hi = Math.max(hi, r.ci[1])
  }
  if (lo === hi) return [-0.1, 0.1]
  const pad = (hi - lo) * 0.08
  return [lo - pad, hi + pad]
}

/** Where a value falls on a bar of `width` over `domain` (clamped to the bar). */
export function position(value: number, [lo, hi]: [number, number], width: number): number {
  return Math.max(0, Math.min(width, ((value - lo) / (hi - lo)) * width))
}

/** `good` green, `bad` red, `neutral` grey: a significant change's colour by the metric's good direction. */
export function tone(row: Pick<VariantResult, 'direction'>): 'good' | 'bad' | 'neutral' {
  return row.direction === 'better' ? 'good' : row.direction === 'worse' ? 'bad' : 'neutral'
}

/** A relative change as a signed percentage: +4.5 %, −12 %. */
export function formatPercent(x: number): string {
  const p = x * 100
  const digits = Math.abs(p) >= 100 ? 0 : Math.abs(p) >= 10 ? 1 : 2
  const text = Math.abs(p).toFixed(digits)
  return `${p > 0 ? '+' : p < 0 ? '−' : ''}${text} %`
}

export function formatP(p: number): string {
  if (p < 0.0001) return '< 0.0001'
  return p < 0.01 ? p.toPrecision(2) : p.toFixed(3)
}

export function formatNumber(x: number): string {
  if (Number.isInteger(x)) return x.toLocaleString('en')
  return Math.abs(x) >= 100 ? x.toFixed(1) : Math.abs(x) >= 1 ? x.toFixed(3) : x.toPrecision(3)
}

/** The verdict of one treatment row, in words. */
export function verdict(row: VariantResult): string {
  if (row.control) return 'control'
  if (row.error === 'zero_variance') return 'not enough data'
  if (row.error === 'baseline_zero') return 'control is 0'
  if (row.direction === 'better') return 'better'
  if (row.direction === 'worse') return 'worse'
  return 'no clear change'
}

/** The split (variant weights) a flag has in an environment: the environment's own rules, else the flag's. */
export function splitOf(flag: { targeting?: unknown; environments?: unknown }, environment: string): { variant: string; weight: number }[] {
  type WithRollout = { rollout?: { distribution?: { variant: string; weight: number }[] } | null } | null | undefined
  const own = (flag.environments as Record<string, { targeting?: WithRollout } | undefined> | undefined)?.[environment]?.targeting
  const targeting = (own ?? flag.targeting) as WithRollout
  return targeting?.rollout?.distribution ?? []
}
