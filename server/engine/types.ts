// The evaluation engine's domain types. Pure data: shared by the server and by any client SDK.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

export const OPERATORS = [
  'equals',
  'not_equals',
  'in',
  'not_in',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'matches',
  'greater_than',
  'greater_than_or_equal',
  'less_than',
  'less_than_or_equal',
  'before',
  'after',
  'semver_equals',
  'semver_greater_than',
  'semver_less_than',
  'exists',
  'not_exists',
  'in_segment',
  'not_in_segment',
] as const
export type Operator = (typeof OPERATORS)[number]

export interface Condition {
  /** the context attribute tested; absent for in_segment / not_in_segment (the segment is the test) */
  property?: string
  operator: Operator
  value?: Json
}

/** A rule serves `value`, or (in a flag with variants) the variant it names. */
export interface Rule {
  conditions: Condition[]
  value?: Json
  variant?: string
}

/** One slice of a weighted split: `weight` percent of the buckets, in list order. */
export interface DistributionSlice {
  variant: string
  weight: number
}

/** A percentage rollout, or (in a flag with variants) a weighted split over variants. */
export interface Rollout {
  percentage?: number
  distribution?: DistributionSlice[]
  attribute: string
}

export interface Targeting {
  rules?: Rule[]
  rollout?: Rollout | null
  /** individual targeting: user_id -> value (in a flag with variants: user_id -> variant name) */
  overrides?: Record<string, Json>
}

export interface EnvironmentOverride {
  enabled: boolean
  value?: Json
  /** in a flag with variants, instead of `value` */
  variant?: string
  /** the environment's own rules: replace the flag's `targeting` in this environment, whole */
  targeting?: Targeting | null
}

/** The flag `key`, evaluated for the same context, must serve this variant (or this value). */
export interface Prerequisite {
  key: string
  variant?: string
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
  /** named values: variant name -> value (all of the flag's type) */
  variants?: Record<string, Json> | null
  /** with variants: what the flag serves by default (its `value` mirrors it) */
  default_variant?: string | null
  /** with variants: what a disabled flag serves (else the off value) */
  off_variant?: string | null
  prerequisites?: Prerequisite[] | null
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

export const REASONS = ['disabled', 'override', 'targeting', 'rollout', 'default', 'environment_override', 'prerequisite_failed'] as const
export type Reason = (typeof REASONS)[number]

export type ValueType = 'boolean' | 'string' | 'number' | 'object' | 'array' | 'null'

export interface EvaluationResult {
  value: Json
  type: ValueType
  reason: Reason
  /** Only in the results of flags with variants: the variant served, null for the off value. */
  variant?: string | null
}

/** A flag compiled once per change: regexes built, segments resolved, rules turned into closures. */
export interface CompiledFlag {
  readonly key: string
  evaluate(context: EvaluationContext, now?: number): EvaluationResult
  /** Which branch gave `result` (one returned by `evaluate` of this flag): `off` (disabled, outside the
   *  rollout, or a failed prerequisite), `override`, `rule-<n>` (1-based position in the stored rules),
   *  `rollout` (inside) or `default`; for a flag with variants, the variant's name (`off` for the off value).
   *  Read off a map built at compile time, so evaluation itself does no extra work. */
  branchOf(result: EvaluationResult): Branch
  /** `result` (one returned by `evaluate` of this flag) was decided by the weighted split: the unit reached
   *  it, rather than being decided before by an override or a rule (experiments count only those). */
  decidedBySplit(result: EvaluationResult): boolean
  /** No rules, rollout, individual overrides or prerequisites: the value is the same for every context (of
   *  the environments that use the flag's rules: forEnvironment gives another's). */
  readonly isStatic: boolean
  /** Its result depends on the context alone: no activity window (whose result changes with the clock) and
   *  no prerequisites (whose flags may have one), here or in any environment's own rules. Answers for a
   *  repeated context may then be remembered until the flag changes (http/flag-answers.ts). */
  readonly contextOnly: boolean
  /** The flag names its values (variants): its results carry `variant`. */
  readonly hasVariants: boolean
  /** The context attribute the rollout buckets on, when the flag has a rollout. */
  readonly rolloutAttribute: string | null
  /** The share of units the rollout serves, in percent, read off this compiled form (forEnvironment gives an
   *  environment's own): without `variant`, a percentage rollout's percentage; with it, the weight of that
   *  variant in the weighted split (0 when no slice serves it). null when there is no such rollout (no rollout,
   *  or a split asked without a variant, or a percentage rollout with one). Fixed at compile time. */
  rolloutShare(variant?: string): number | null
  /** The flag as it evaluates in `environment`: the one compiled from that environment's own rules when it
   *  has some (its isStatic, rolloutAttribute and branchOf are that environment's), else this flag. */
  forEnvironment(environment: unknown): CompiledFlag
  /** Whose rules decide in `environment`: the environment's own, or the flag's. */
  rulesIn(environment: unknown): 'own' | 'flag'
}

export type Branch = 'off' | 'override' | `rule-${number}` | 'rollout' | 'default' | (string & {})

/** Finds another flag of the same project, compiled, at evaluation time (prerequisites); undefined when
 *  there is none. Looked up per evaluation, so a prerequisite's change needs no recompile of its dependents. */
export type FlagResolver = (key: string) => CompiledFlag | undefined

/** One validation problem, with a JSON-pointer-like path such as `targeting.rules[0].conditions[1].value`. */
export interface ValidationIssue {
  path: string
  message: string
}
