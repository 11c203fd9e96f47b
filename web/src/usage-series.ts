// Turns a flag's hourly usage buckets (per environment and variant, only hours with counts) into what the
// charts draw: one point per hour of the range, zeros included, one series per variant.
import type { UsageBucket } from './api'

const HOUR = 3_600_000

export const USAGE_RANGES = {
  '24h': { hours: 24, label: 'last 24 hours' },
  '7d': { hours: 7 * 24, label: 'last 7 days' },
  '30d': { hours: 30 * 24, label: 'last 30 days' },
} as const
export type UsageRange = keyof typeof USAGE_RANGES

/** The hours a range covers, ending with the current (partial) hour: `since` is the first hour's start. */
export function rangeWindow(range: UsageRange, now = Date.now()): { since: Date; until: Date; hours: number } {
  const { hours } = USAGE_RANGES[range]
  const end = Math.floor(now / HOUR) * HOUR + HOUR
  return { since: new Date(end - hours * HOUR), until: new Date(now), hours }
}

export interface VariantSeries {
  variant: string
  /** one count per hour of the range */
  counts: number[]
  total: number
}

export interface UsageSeries {
  /** each hour's start, in seconds (the charts' x axis) */
  hours: number[]
  /** busiest first */
  variants: VariantSeries[]
  /** per hour, all variants together */
  totals: number[]
  total: number
}

/** The buckets summed over environments, per variant and hour of [since, since + hours). */
export function toSeries(buckets: readonly UsageBucket[], since: Date, hours: number): UsageSeries {
  const start = since.getTime()
  const byVariant = new Map<string, number[]>()
  const totals = new Array<number>(hours).fill(0)
  for (const b of buckets) {
    const i = Math.floor((Date.parse(b.hour) - start) / HOUR)
    if (!(i >= 0 && i < hours)) continue
    let counts = byVariant.get(b.variant)
    if (!counts) byVariant.set(b.variant, (counts = new Array<number>(hours).fill(0)))
    counts[i] += b.count
    totals[i] += b.count
  }
  const variants = [...byVariant].map(([variant, counts]) => ({ variant, counts, total: counts.reduce((n, c) => n + c, 0) }))
  variants.sort((a, b) => b.total - a.total || a.variant.localeCompare(b.variant))
  return {
    hours: Array.from({ length: hours }, (_, i) => (start + i * HOUR) / 1000),
    variants,
    totals,
    total: totals.reduce((n, c) => n + c, 0),
  }
}

/** What a variant name means, for legends: the branch of the flag that decided. */
export function variantLabel(variant: string): string {
  if (variant === 'off') return 'off (disabled)'
  if (variant === 'override') return 'individual override'
  const rule = /^rule-(\d+)$/.exec(variant)
  if (rule) return `rule ${rule[1]}`
  return variant
}
