// server/usage: evaluation counts. Every evaluation surface calls `countEvaluation` (a few map steps, no
// allocation once a flag's variant and environment have been seen); the flusher (flusher.ts) drains the counts
// into hourly buckets in the store at least every USAGE_FLUSH_MS. Counts live per compiled flag: a change
// compiles the flag again and starts a fresh set, while the old one is still drained.
import type { CompiledFlag, EvaluationResult } from '../engine'

/** One compiled flag's counts since the last drain: variant -> environment -> count. */
interface FlagCounts {
  projectId: string
  key: string
  byVariant: Map<string, Map<string, number>>
  /** on the list of flags with counts to drain */
  listed: boolean
}

export interface DrainedCount {
  projectId: string
  key: string
  environment: string
  variant: string
  count: number
}

const counts = new WeakMap<CompiledFlag, FlagCounts>()
let pending: FlagCounts[] = []

/** Counts one evaluation of `flag` (its `result` for a context whose environment is `environment`). */
export function countEvaluation(projectId: string, flag: CompiledFlag, result: EvaluationResult, environment: string | undefined): void {
  let c = counts.get(flag)
  if (c === undefined) counts.set(flag, (c = { projectId, key: flag.key, byVariant: new Map(), listed: false }))
  if (!c.listed) {
    c.listed = true
    pending.push(c)
  }
  const variant = flag.branchOf(result)
  let byEnvironment = c.byVariant.get(variant)
  if (byEnvironment === undefined) c.byVariant.set(variant, (byEnvironment = new Map()))
  const env = environment ?? ''
  byEnvironment.set(env, (byEnvironment.get(env) ?? 0) + 1)
}

/** Takes every count since the last drain (and forgets them). */
export function drainCounts(): DrainedCount[] {
  const out: DrainedCount[] = []
  const flags = pending
  pending = []
  for (const c of flags) {
    for (const [variant, byEnvironment] of c.byVariant) {
      for (const [environment, count] of byEnvironment) out.push({ projectId: c.projectId, key: c.key, environment, variant, count })
    }
    c.byVariant = new Map()
    c.listed = false
  }
  return out
}
