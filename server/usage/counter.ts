// server/usage: evaluation counts. Every evaluation surface counts in the cell of its flag, branch and
// environment (`usageCell`: a few map steps, no allocation once seen; a remembered answer keeps its cell and
// counts with one increment); the flusher (flusher.ts) drains the counts into hourly buckets in the store at
// least every USAGE_FLUSH_MS. Counts live per compiled flag: a change compiles the flag again and starts a
// fresh set, while the old one is still drained.
import type { CompiledFlag, EvaluationResult } from '../engine'

/** One compiled flag's counts since the last drain: variant -> environment -> its cell. */
interface FlagCounts {
  projectId: string
  key: string
  cells: Map<string, Map<string, UsageCell>>
  /** on the list of flags with counts to drain */
  listed: boolean
}

/** The count of one compiled flag, branch and environment since the last drain. Cells stay for the compiled
 *  flag's life (a drain sets them to 0), so an evaluation remembered on the hot path (http/flag-answers.ts)
 *  keeps its cell and counts with one increment; their number is bounded by the flag's branches times the
 *  project's environments (evaluation refuses an unknown environment). */
export interface UsageCell {
  readonly flag: FlagCounts
  readonly variant: string
  readonly environment: string
  count: number
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

/** The cell that counts evaluations of `flag` giving `result` for a context whose environment is
 *  `environment`. */
export function usageCell(projectId: string, flag: CompiledFlag, result: EvaluationResult, environment: string | undefined): UsageCell {
  let c = counts.get(flag)
  if (c === undefined) counts.set(flag, (c = { projectId, key: flag.key, cells: new Map(), listed: false }))
  const variant = flag.branchOf(result)
  let byEnvironment = c.cells.get(variant)
  if (byEnvironment === undefined) c.cells.set(variant, (byEnvironment = new Map()))
  const env = environment ?? ''
  let cell = byEnvironment.get(env)
  if (cell === undefined) byEnvironment.set(env, (cell = { flag: c, variant, environment: env, count: 0 }))
  return cell
}

/** Counts one evaluation in `cell`. */
export function countIn(cell: UsageCell): void {
  cell.count++
  const c = cell.flag
  if (!c.listed) {
    c.listed = true
    pending.push(c)
  }
}

/** Takes every count since the last drain (and forgets them). */
export function drainCounts(): DrainedCount[] {
  const out: DrainedCount[] = []
  const flags = pending
  pending = []
  for (const c of flags) {
    for (const byEnvironment of c.cells.values()) {
      for (const cell of byEnvironment.values()) {
        if (cell.count === 0) continue
        out.push({ projectId: c.projectId, key: c.key, environment: cell.environment, variant: cell.variant, count: cell.count })
        cell.count = 0
      }
    }
    c.listed = false
  }
  return out
}
