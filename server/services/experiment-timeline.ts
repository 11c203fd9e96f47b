// The units-over-time series of GET …/units?timeline=true (the results page's chart): the store counts each
// day's new units per variant (first exposures, units in several variants left out), and this turns the
// counts into cumulative totals at the end of each day, starting from zero.

const DAY_MS = 86_400_000

export interface UnitsTimeline {
  /** ISO timestamps: the start of the first day, then the end of each day with units (capped at `now`) */
  at: string[]
  /** per variant, the units counted up to each instant of `at` */
  units: Record<string, number[]>
}

export function unitsTimeline(byDay: { day: number; variant: string; n: number }[], variants: string[], now: number): UnitsTimeline {
  const days = [...new Set(byDay.map((r) => r.day))].sort((a, b) => a - b)
  const units: Record<string, number[]> = Object.fromEntries(variants.map((v) => [v, days.length ? [0] : []]))
  if (!days.length) return { at: [], units }
  const at = [new Date(days[0]!).toISOString()]
  const running = new Map<string, number>(variants.map((v) => [v, 0]))
  for (const day of days) {
    for (const r of byDay) if (r.day === day && running.has(r.variant)) running.set(r.variant, running.get(r.variant)! + r.n)
    at.push(new Date(Math.min(day + DAY_MS, Math.max(now, day))).toISOString())
    for (const v of variants) units[v]!.push(running.get(v)!)
  }
  return { at, units }
}
