// The evaluation engine's domain types. Pure data: shared by the server and by any client SDK.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

export const OPERATORS = [
  'equals', 'not_equals', 'in', 'not_in', 'contains', 'not_contains', 'starts_with', 'ends_with', 'matches',
  'greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal', 'before', 'after',
  'semver_equals', 'semver_greater_than', 'semver_less_than', 'exists', 'not_exists', 'in_segment', 'not_in_segment',
] as const
export type Operator = (typeof OPERATORS)[number]

export interface Condition {
  /** the context attribute tested; absent for in_segment / not_in_segment (the segment is the test) */
  property?: string
  operator: Operator
  value?: Json
}

export interface Rule {
  conditions: Condition[]
  value: Json
}

export interface Rollout {
  percentage: number
  attribute: string
}

export interface Targeting {
  rules?: Rule[]
  rollout?: Rollout | null
  /** individual targeting: user_id -> value */
  overrides?: Record<string, Json>
}

export interface EnvironmentOverride {
  enabled: boolean
  value?: Json
}

/** A flag as stored (the evaluation-relevant fields). */
export interface FlagDefinition {
  key: string
  enabled: boolean
  value: Json
  targeting?: Targeting | null
  environments?: Record<string, EnvironmentOverride>
  active_from?: string | null
  active_until?: string | null
}

export interface SegmentDefinition {
  key: string
  conditions: Condition[]
}

export interface EvaluationContext {
  user_id?: string
  plan?: string
  environment?: string
  custom?: Record<string, Json>
}

export const REASONS = ['disabled', 'override', 'targeting', 'rollout', 'default', 'environment_override'] as const
export type Reason = (typeof REASONS)[number]

export type ValueType = 'boolean' | 'string' | 'number' | 'object' | 'array' | 'null'

export interface EvaluationResult {
  value: Json
  type: ValueType
  reason: Reason
}

/** A flag compiled once per change: regexes built, segments resolved, rules turned into closures. */
export interface CompiledFlag {
  readonly key: string
  evaluate(context: EvaluationContext, now?: number): EvaluationResult
  /** Which branch gave `result` (one returned by `evaluate` of this flag): `off` (disabled, or outside the
   *  rollout), `override`, `rule-<n>` (1-based position in the stored rules), `rollout` (inside) or
   *  `default`. Read off a map built at compile time, so evaluation itself does no extra work. */
  branchOf(result: EvaluationResult): Branch
  /** No rules, rollout or individual overrides: the value is the same for every context. */
  readonly isStatic: boolean
  /** The context attribute the rollout buckets on, when the flag has a rollout. */
  readonly rolloutAttribute: string | null
}

export type Branch = 'off' | 'override' | `rule-${number}` | 'rollout' | 'default'

/** One validation problem, with a JSON-pointer-like path such as `targeting.rules[0].conditions[1].value`. */
export interface ValidationIssue {
  path: string
  message: string
}
