// The prerequisite graph's one rule that both the server (services/flag-graph.ts, at write time) and the
// console (before saving) apply: no cycle, however long. Pure.

/** The cycle (`[a, b, a]`) that giving flag `key` the prerequisites `required` would close, or null.
 *  `requiredBy` gives the keys any other flag requires. */
export function prerequisiteCycle(key: string, required: readonly string[], requiredBy: (key: string) => readonly string[]): string[] | null {
  const edges = (k: string) => (k === key ? required : requiredBy(k))
  const path: string[] = []
  const done = new Set<string>()
  const walk = (k: string): string[] | null => {
    const at = path.indexOf(k)
    if (at !== -1) return [...path.slice(at), k]
    if (done.has(k)) return null
    path.push(k)
    for (const next of edges(k)) {
      const cycle = walk(next)
      if (cycle) return cycle
    }
    path.pop()
    done.add(k)
    return null
  }
  return walk(key)
}
