// The words of release plans (docs/experiments.md §7): states, what happens on a regression,
// the shape of a plan's stored definition and of what its monitor last saw, and the webhook event kinds.
// Pure types and constants, shared by the store, the services, the HTTP schemas and the console.

export const RELEASE_PLAN_STATES = ['draft', 'awaiting_approval', 'running', 'paused', 'rolled_back', 'completed'] as const
export type ReleasePlanState = (typeof RELEASE_PLAN_STATES)[number]
export const ON_REGRESSION = ['rollback', 'pause'] as const
export type OnRegression = (typeof ON_REGRESSION)[number]

export interface ReleaseStep {
  percentage: number
  hold_minutes: number
}
export interface ReleaseGuardrail {
  metric: string
  /** a fraction of the control's mean the metric may get worse by (0: none) */
  max_degradation: number
}

/** A plan's settings as stored (flag, environment, state and step are columns of their own). */
export interface ReleasePlanDefinition {
  steps: ReleaseStep[]
  guardrails: ReleaseGuardrail[]
  min_units: number
  on_regression: OnRegression
  /** the context attribute the environment's rollout buckets units by (fixed at creation) */
  attribute: string
  /** a flag with variants: the new variant, whose weight the steps raise, and the one it replaces */
  variant?: string
  control_variant?: string
}

/** One guardrail as the monitor last measured it (the interval of the relative change, oriented so that
 *  positive is good for the metric). */
export interface GuardrailReading {
  metric: string
  ci: [number, number] | null
  lift: number | null
  control_mean: number | null
  treatment_mean: number | null
  regressed: boolean
}

/** What the monitor last saw, and why the plan stands where it does. */
export interface ReleasePlanStatus {
  checked_at: string | null
  units: { treatment: number; control: number }
  srm_p_value: number | null
  guardrails: GuardrailReading[]
  /** why it paused or rolled back: `regression`, `srm`, `manual` */
  reason: string | null
  /** the metric that decided, when one did */
  metric?: string
  /** the approved change request that started it in a protected environment: its later steps apply under it */
  approval?: { id: string; approvers: string[] }
}

/** Webhook event kinds of release plans. */
export const RELEASE_EVENTS = [
  'release.started',
  'release.step',
  'release.paused',
  'release.resumed',
  'release.rolled_back',
  'release.completed',
] as const
export type ReleaseEvent = (typeof RELEASE_EVENTS)[number]
