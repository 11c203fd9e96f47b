// results.csv: the rows of a results body's metrics, one line per metric and variant, with a header. Text
// cells are quoted as RFC 4180 asks, and one a spreadsheet would run as a formula is prefixed with '.
import type { MetricResult } from './types'

const COLUMNS = [
  'metric',
  'role',
  'kind',
  'variant',
  'control',
  'units',
  'mean',
  'sum',
  'denominator_sum',
  'lift_relative',
  'lift_absolute',
  'ci_low',
  'ci_high',
  'p_value',
  'p_value_unadjusted',
  'chance_to_win',
  'significant',
  'direction',
] as const

function cell(value: string | number | boolean | undefined): string {
  if (value === undefined) return ''
  if (typeof value !== 'string') return String(value)
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n']/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

export function resultsCsv(metrics: MetricResult[]): string {
  const lines = [COLUMNS.join(',')]
  for (const m of metrics) {
    for (const v of m.variants) {
      lines.push(
        [
          m.metric,
          m.role,
          m.kind,
          v.variant,
          v.control,
          v.units,
          v.mean,
          v.sum,
          v.denominator_sum,
          v.lift?.relative,
          v.lift?.absolute,
          v.ci?.[0],
          v.ci?.[1],
          v.p_value,
          v.p_value_unadjusted,
          v.chance_to_win,
          v.significant,
          v.direction,
        ]
          .map(cell)
          .join(','),
      )
    }
  }
  return `${lines.join('\r\n')}\r\n`
}
