// Multiple-testing corrections of p-values, as GrowthBook applies them to goal metrics × variants
// (packages/shared experiments.ts): Holm–Bonferroni (family-wise error rate) and Benjamini–Hochberg (false
// discovery rate), each made monotone in the order of the raw p-values and capped at 1.

/** The adjusted p-values, in the order given. */
export function adjustPValues(pValues: number[], method: 'holm' | 'bh'): number[] {
  const m = pValues.length
  const order = pValues.map((p, i) => ({ p, i }))
  const out = new Array<number>(m)
  if (method === 'holm') {
    // ascending: p(k) · (m − k), then a running maximum
    order.sort((a, b) => a.p - b.p)
    let running = 0
    order.forEach(({ p, i }, k) => {
      running = Math.max(running, Math.min(p * (m - k), 1))
      out[i] = running
    })
  } else {
    // descending: p · m / rank, then a running minimum
    order.sort((a, b) => b.p - a.p)
    let running = 1
    order.forEach(({ p, i }, k) => {
      running = Math.min(running, Math.min((p * m) / (m - k), 1))
      out[i] = running
    })
  }
  return out
}
