// OpenFeature's view of an evaluation, shared by the OFREP routes (server/http/routes/ofrep.ts) and the SDK's
// OpenFeature provider (sdk/src/openfeature.ts), so both map contexts, reasons and variants the same way.
// Where OpenFeature is silent, flagd's OFREP service is the model.
import { attributeKey, getProperty } from './context'
import type { CompiledFlag, EvaluationContext, EvaluationResult, Json } from './types'

/** Our reasons as OpenFeature's (STATIC is decided per flag: see resolveOpenFeature). */
export const OFREP_REASON: Record<EvaluationResult['reason'], string> = {
  disabled: 'DISABLED',
  override: 'TARGETING_MATCH',
  targeting: 'TARGETING_MATCH',
  rollout: 'SPLIT',
  default: 'DEFAULT',
  environment_override: 'DEFAULT',
  prerequisite_failed: 'PREREQUISITE_FAILED',
}

/** A context attribute of the wrong type for its meaning (OpenFeature's INVALID_CONTEXT). */
export class InvalidContextError extends Error {}

/** An OpenFeature context as ours: `targetingKey` is `user_id`, `environment` and `plan` are themselves,
 *  every other attribute goes to `custom` (where conditions on e.g. `country` find it). Attributes whose
 *  value is undefined are absent (JSON has none; SDK contexts may); a Date is its ISO 8601 text, as it
 *  would be in JSON. Throws InvalidContextError for a non-string targetingKey, environment or plan. */
export function openFeatureContext(context: Record<string, unknown>): EvaluationContext {
  const mapped: Record<string, unknown> = {}
  // Collected as entries: assigning an attribute named `__proto__` would set the object's prototype instead.
  const custom: [string, unknown][] = []
  for (const [name, raw] of Object.entries(context)) {
    if (raw === undefined) continue
    const value = raw instanceof Date ? raw.toISOString() : raw
    if (name === 'targetingKey') {
      if (typeof value !== 'string') throw new InvalidContextError('targetingKey must be a string')
      mapped.user_id = value
    } else if (name === 'environment' || name === 'plan') {
      if (typeof value !== 'string') throw new InvalidContextError(`${name} must be a string`)
      mapped[name] = value
    } else custom.push([name, value])
  }
  return { ...mapped, custom: Object.fromEntries(custom) } as EvaluationContext
}

export interface OpenFeatureResolution {
  value: Json
  /** STATIC, DEFAULT, TARGETING_MATCH, SPLIT or DISABLED */
  reason: string
  /** the branch that decided: off, override, rule-<n>, rollout or default; for a flag with variants, the
   *  variant's name (off for the off value) */
  variant: string
}

export interface OpenFeatureFailure {
  errorCode: 'TARGETING_KEY_MISSING'
  errorDetails: string
}

/** One flag's OpenFeature answer, or TARGETING_KEY_MISSING when its rollout had nothing to bucket on.
 *  `result` is the flag's evaluation for `context` when the caller already has it (the SDK counts it). */
export function resolveOpenFeature(
  key: string,
  flag: CompiledFlag,
  context: EvaluationContext,
  result: EvaluationResult = flag.evaluate(context),
): OpenFeatureResolution | OpenFeatureFailure {
  // The rules that decide in the context's environment (its own, when it has some).
  const compiled = flag.forEnvironment(context.environment)
  if (
    result.reason === 'rollout' &&
    compiled.rolloutAttribute !== null &&
    attributeKey(getProperty(context, compiled.rolloutAttribute)) === undefined
  ) {
    return {
      errorCode: 'TARGETING_KEY_MISSING',
      errorDetails:
        `Flag "${key}" rolls out by "${compiled.rolloutAttribute}", ` + `which the context does not hold (send targetingKey for user_id)`,
    }
  }
  const fixed = (result.reason === 'default' || result.reason === 'environment_override') && compiled.isStatic
  return { value: result.value, reason: fixed ? 'STATIC' : OFREP_REASON[result.reason], variant: compiled.branchOf(result) }
}
