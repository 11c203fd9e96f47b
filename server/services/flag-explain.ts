// POST /flags/:key/explain (docs/lifecycle.md §4): the stored flag, or an unsaved draft (validated, never
// stored), evaluated for a context now or as of `at` (its window then, and the schedules due by then applied
// in order), with the engine's step-by-step trace. Segments and prerequisite flags are the live ones.
import { EVALUATION_BUDGET, explainFlag, withEvaluationBudget, type EvaluationContext, type SegmentDefinition } from '../engine'
import type { Actor, ServiceDeps } from './context'
import { notFound } from '../errors'
import type { FlagPatchInput } from '../schemas'
import type { FlagBody } from '../kinds'
import type { FlagChange, FlagService } from './flags'

export interface ExplainInput {
  context: EvaluationContext
  /** a draft, as PUT /flags/:key's body */
  flag?: FlagPatchInput
  /** epoch milliseconds (the route parses and checks the text) */
  at?: number
}

export function flagExplainer({ store, snapshots }: Pick<ServiceDeps, 'store' | 'snapshots'>, flags: FlagService) {
  return async function explain(actor: Actor, key: string, input: ExplainInput) {
    const snap = snapshots.project(actor.projectId)
    let body: FlagBody
    if (input.flag !== undefined) body = await flags.draft(actor.projectId, key, input.flag)
    else {
      const row = snap?.flags.get(key)?.row
      if (!row) throw notFound('FLAG_NOT_FOUND', `Flag "${key}"`)
      body = row.body
    }
    const now = input.at ?? Date.now()
    if (input.at !== undefined) {
      const { rows } = await store.schedules.page(store.db, actor.projectId, { flagKey: key, status: 'pending' }, 1000, 0)
      for (const s of rows.filter((r) => Date.parse(r.at) <= now).sort((a, b) => Date.parse(a.at) - Date.parse(b.at))) {
        body = await flags.preview(actor, body, s.change as FlagChange)
      }
    }
    const segments = new Map<string, SegmentDefinition>(
      [...(snap?.segments ?? [])].map(([k, r]) => [k, { key: k, conditions: r.body.conditions ?? [] }]),
    )
    // The answer and the trace (which tests each condition again) share one budget of two evaluations.
    const explanation = withEvaluationBudget(2 * EVALUATION_BUDGET, () =>
      explainFlag({ ...body, key }, segments, (k) => snap?.flags.get(k)?.compiled, input.context, now),
    )
    return { ...explanation, at: new Date(now).toISOString(), draft: input.flag !== undefined }
  }
}
