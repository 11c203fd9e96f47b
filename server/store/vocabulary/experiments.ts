// The words of experiments (docs/experiments.md): states, engines, corrections, metric kinds, the shape of
// an experiment's and a metric's stored definition, and the webhook event kinds they send. Pure types and
// constants, shared by the store, the services, the HTTP schemas and the console.

export const EXPERIMENT_STATES = ['draft', 'running', 'stopped'] as const
export type ExperimentState = (typeof EXPERIMENT_STATES)[number]
export const EXPERIMENT_ENGINES = ['bayesian', 'frequentist'] as const
export type ExperimentEngine = (typeof EXPERIMENT_ENGINES)[number]
export const CORRECTIONS = ['none', 'holm', 'bh'] as const
export type Correction = (typeof CORRECTIONS)[number]
export const DECISIONS = ['ship', 'rollback', 'inconclusive'] as const
export type DecisionKind = (typeof DECISIONS)[number]
export const METRIC_KINDS = ['proportion', 'mean', 'ratio'] as const
export type MetricKind = (typeof METRIC_KINDS)[number]
export const AGGREGATIONS = ['count', 'sum'] as const
export type Aggregation = (typeof AGGREGATIONS)[number]
export const METRIC_ROLES = ['goal', 'guardrail', 'secondary'] as const
export type MetricRole = (typeof METRIC_ROLES)[number]

/** A metric as stored (its key is the row's). */
export interface MetricDefinition {
  name: string
  description?: string
  kind: MetricKind
  event: string
  aggregation: Aggregation
  denominator_event?: string
  denominator_aggregation?: Aggregation
  window_hours?: number
  cap?: number
  higher_is_better: boolean
}

/** An experiment's settings as stored (key, flag, environment and state are columns of their own). */
export interface ExperimentDefinition {
  name: string
  hypothesis?: string
  control: string
  unit: string
  goal_metrics: string[]
  guardrail_metrics: string[]
  secondary_metrics: string[]
  engine: ExperimentEngine
  sequential: boolean
  alpha: number
  correction: Correction
  cuped: boolean
}

/** One phase: opened by the start or by a change to the flag in the experiment's environment. */
export interface ExperimentPhase {
  number: number
  started_at: string
  ended_at: string | null
  /** `start`, or what opened it: `flag <key> v<version> changed` */
  reason: string
  /** what of the flag decides the experiment's environment, when the phase opened (a change to it opens
   *  the next phase) */
  fingerprint?: string
}

export interface ExperimentDecision {
  decision: DecisionKind
  variant?: string
  at: string
  by: string
}

/** Webhook event kinds of experiments and metrics (each also an audit action on its resource). */
export const EXPERIMENT_EVENTS = [
  'experiment.created',
  'experiment.updated',
  'experiment.deleted',
  'experiment.started',
  'experiment.phase_opened',
  'experiment.stopped',
  'metric.created',
  'metric.updated',
  'metric.deleted',
] as const
export type ExperimentEvent = (typeof EXPERIMENT_EVENTS)[number]
