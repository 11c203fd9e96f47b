// Weighted splits in the console (docs/api.md, "Variants, prerequisites and a flag's life"): weights are kept
// in hundredths of a percent so they always add up to exactly 100, and the share of users a change moves is
// measured on the same bucket ranges the server uses (cumulative weights in list order).

/** One slice of a split: a variant and its weight in hundredths of a percent (0..10000). */
export interface Slice {
  variant: string
  hundredths: number
}

export const TOTAL = 10000

/** Sets slice `i` to `hundredths` and keeps the total at 100 %: the difference is taken from (or given to)
 *  the slices after it, then before it, each down to 0; what cannot be absorbed is refused by clamping. */
export function setWeight(slices: readonly Slice[], i: number, hundredths: number): Slice[] {
  const out = slices.map((s) => ({ ...s }))
  const target = Math.max(0, Math.min(TOTAL, Math.round(hundredths)))
  let excess = target - out[i]!.hundredths
  out[i]!.hundredths = target
  const others = [...out.keys()].filter((n) => n > i).concat([...out.keys()].filter((n) => n < i).reverse())
  for (const n of others) {
    if (excess === 0) break
    const s = out[n]!
    const take = excess > 0 ? Math.min(excess, s.hundredths) : excess
    s.hundredths -= take
    excess -= take
  }
  out[i]!.hundredths -= excess // only when nothing else could absorb it (a single slice: stays 100 %)
  return out
}

/** Equal weights (the remainder goes to the first slices), e.g. after adding or removing a slice. */
export function evenly(variants: readonly string[]): Slice[] {
  const base = Math.floor(TOTAL / Math.max(1, variants.length))
  let rest = TOTAL - base * variants.length
  return variants.map((variant) => ({ variant, hundredths: base + (rest-- > 0 ? 1 : 0) }))
}

/** The variant serving each bucket range [from, to) of a split, in hundredths. */
function ranges(slices: readonly Slice[]): { from: number; to: number; variant: string }[] {
  let from = 0
  return slices.map((s) => {
    const r = { from, to: from + s.hundredths, variant: s.variant }
    from = r.to
    return r
  })
}

/** The share (0..1) of buckets whose variant differs between two splits: the users who would move. */
export function movedShare(before: readonly Slice[], after: readonly Slice[]): number {
  const a = ranges(before)
  const b = ranges(after)
  const cuts = [...new Set([0, TOTAL, ...a.flatMap((r) => [r.from, r.to]), ...b.flatMap((r) => [r.from, r.to])])].sort((x, y) => x - y)
  const at = (rs: typeof a, bucket: number) => rs.find((r) => bucket >= r.from && bucket < r.to)?.variant
  let moved = 0
  for (let k = 0; k + 1 < cuts.length; k++) {
    const from = cuts[k]!
    const to = cuts[k + 1]!
    if (to > from && at(a, from) !== at(b, from)) moved += to - from
  }
  return moved / TOTAL
}
