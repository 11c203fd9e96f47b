// The endpoints behind a flag's release plans (docs/experiments.md §7): list, create, and start, pause,
// resume, roll back. Same client and errors as api.ts.
import { request } from './api'

export type ReleasePlanState = 'draft' | 'awaiting_approval' | 'running' | 'paused' | 'rolled_back' | 'completed'

export interface ReleasePlanInput {
  environment: string
  /** a flag with variants: the new variant */
  variant?: string
  control_variant?: string
  steps: { percentage: number; hold_minutes: number }[]
  guardrails?: { metric: string; max_degradation?: number }[]
  min_units?: number
  on_regression?: 'rollback' | 'pause'
}

export interface GuardrailReading {
  metric: string
  /** [low, high] of the relative change, positive is good for the metric */
  ci: number[] | null
  lift: number | null
  control_mean: number | null
  treatment_mean: number | null
  regressed: boolean
}

export interface ReleasePlan {
  id: string
  flag: string
  environment: string
  state: ReleasePlanState
  steps: { percentage: number; hold_minutes: number }[]
  guardrails: { metric: string; max_degradation: number }[]
  min_units: number
  on_regression: 'rollback' | 'pause'
  attribute: string
  variant?: string
  control_variant?: string
  current_step: number
  percentage: number
  step_started_at: string | null
  checked_at: string | null
  units: { treatment: number; control: number }
  srm_p_value: number | null
  guardrail_results: GuardrailReading[]
  reason: string | null
  metric?: string
  approval: { id: string; approvers: string[] } | null
  pending_change_request: string | null
  created_at: string
  updated_at: string
}

export type PlanAction = 'start' | 'pause' | 'resume' | 'rollback'
type Answer = { success: true; release_plan: ReleasePlan; change_request?: { id: string; state: string; title: string } }
const enc = encodeURIComponent

export const releasePlanKeys = { flag: (flag: string) => ['release-plans', flag] as const }

export const releasePlansApi = {
  list: async (flag: string): Promise<ReleasePlan[]> =>
    (await request<{ release_plans: ReleasePlan[] }>('GET', `/flags/${enc(flag)}/release-plans`)).release_plans,
  create: ({ flag, body }: { flag: string; body: ReleasePlanInput }) =>
    request<Answer>('POST', `/flags/${enc(flag)}/release-plans`, { body }),
  act: ({ flag, id, action }: { flag: string; id: string; action: PlanAction }) =>
    request<Answer>('POST', `/flags/${enc(flag)}/release-plans/${enc(id)}/${action}`),
}
