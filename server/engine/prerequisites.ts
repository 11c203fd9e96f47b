// The prerequisite graph's one rule that both the server (services/flag-graph.ts, at write time) and the
// console (before saving) apply: no cycle, however long. Pure.

/** The cycle (`[a, b, a]`) that giving flag `key` the prerequisites `required` would close, or null.
 *  `requiredBy` gives the keys any other flag requires. */
export function prerequisiteCycle(
  key: string,
  required: readonly string[],
  requiredBy: (key: string) => readonly string[],
): string[] | null {
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

/** How long a chain of prerequisites may be (flag → its prerequisite → …), counted in flags after the first.
 *  Well below the evaluation's own bound (compile.ts MAX_PREREQUISITE_DEPTH), so every chain that can be
 *  stored is evaluated in full. */
export const MAX_PREREQUISITE_CHAIN = 32
/** How many distinct flags one flag's prerequisites may reach, directly or through others: each is
 *  evaluated at most once per evaluation (memoised), so this bounds an evaluation's prerequisite work. */
export const MAX_PREREQUISITE_REACH = 100

/**
 * The longest chain below `start` (0 for a flag without prerequisites) and the number of distinct flags it
 * reaches, for the acyclic graph `edges` gives. Each flag's figures are computed once (`cache`, shared by
 * callers that ask about several flags of one graph); the reach stops counting past `limit`, so a hostile
 * graph costs at most about `limit` steps per flag.
 */
export function prerequisiteReach(
  start: string,
  edges: (key: string) => readonly string[],
  limit: number,
  cache: Map<string, { depth: number; reach: Set<string> }> = new Map(),
): { depth: number; reach: number } {
  const visit = (k: string, stack: Set<string>): { depth: number; reach: Set<string> } => {
    const known = cache.get(k)
    if (known) return known
    const reach = new Set<string>()
    let depth = 0
    if (!stack.has(k)) {
      stack.add(k)
      for (const next of edges(k)) {
        const below = visit(next, stack)
        depth = Math.max(depth, below.depth + 1)
        if (reach.size <= limit) {
          reach.add(next)
          for (const r of below.reach) {
            if (reach.size > limit) break
            reach.add(r)
          }
        }
      }
      stack.delete(k)
    }
    const out = { depth, reach }
    cache.set(k, out)
    return out
  }
  const r = visit(start, new Set())
  return { depth: r.depth, reach: r.reach.size }
}
