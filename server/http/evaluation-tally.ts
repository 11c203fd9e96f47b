// What every evaluation surface records once a request is admitted: its usage (usage/counter.ts) and, for a
// flag in a running experiment, the unit's exposure (experiments/exposures.ts). Both in memory; one call
// so that no surface counts one and forgets the other.
import type { CompiledFlag, EvaluationContext, EvaluationResult } from '../engine'
import { recordExposure } from '../experiments/exposures'
import { countIn, usageCell, type UsageCell } from '../usage/counter'

export function tallyEvaluation(projectId: string, compiled: CompiledFlag, result: EvaluationResult, context: EvaluationContext): void {
  tallyIn(usageCell(projectId, compiled, result, context.environment), projectId, compiled, result, context)
}

/** tallyEvaluation with the usage cell already found (usage/counter.ts): an evaluation served again and
 *  again (evaluation-responses.ts's FlagEvaluation) finds its cell once. */
export function tallyIn(
  cell: UsageCell,
  projectId: string,
  compiled: CompiledFlag,
  result: EvaluationResult,
  context: EvaluationContext,
): void {
  countIn(cell)
  recordExposure(projectId, compiled, result, context)
}
