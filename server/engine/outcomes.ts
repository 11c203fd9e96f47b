// The results a flag can give, built once at compile time and frozen (compile.ts hands them out as they
// are): the outcomes that depend on the effective enabled/served pair (the flag's, or an environment's),
// and, for flags with variants, the table that turns variant names into values.
import { isObject } from './is-object'
import type { EvaluationResult, Json, Reason } from './types'
import { typeOf } from './value-type'

const hasOwn = Object.prototype.hasOwnProperty

/** A deep, frozen copy of a JSON value, so results shared between calls can never be mutated by a caller. */
export function frozenJson(value: unknown): Json {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') return null
  if (value === null || typeof value !== 'object') return value as Json
  if (Array.isArray(value)) return Object.freeze(value.map(frozenJson)) as Json
  const out: Record<string, Json> = {}
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k]
    if (v === undefined) continue
    // A JSON `__proto__` key is an own property; plain assignment would change the prototype instead.
    if (k === '__proto__') Object.defineProperty(out, k, { value: frozenJson(v), enumerable: true, writable: true, configurable: true })
    else out[k] = frozenJson(v)
  }
  return Object.freeze(out)
}

/** Results are frozen and have one shape per kind of flag: `{ value, type, reason }`, and for a flag with
 *  variants `{ value, type, reason, variant }` (the variant served, null for the off value). */
export function result(value: Json, reason: Reason, variant?: string | null): EvaluationResult {
  return Object.freeze(variant === undefined ? { value, type: typeOf(value), reason } : { value, type: typeOf(value), reason, variant })
}

/** The outcomes that depend on the effective enabled/served pair. */
export interface Outcomes {
  readonly enabled: boolean
  readonly disabled: EvaluationResult
  readonly prerequisiteFailed: EvaluationResult
  readonly rolloutIn: EvaluationResult
  readonly rolloutOut: EvaluationResult
  /** the last step: reason `default`, or `environment_override` for an environment's outcomes */
  readonly fallthrough: EvaluationResult
}

/** Variant name -> value (empty for a flag without variants). */
export type VariantTable = ReadonlyMap<string, Json>

/** What one branch serves: a value, or in a flag with variants the variant `name` (null: the off value). */
interface Served {
  value: Json
  name: string | null | undefined
}

function outcomes(enabled: unknown, served: Served, off: Served, fallthroughReason: Reason): Outcomes {
  return {
    enabled: enabled === true,
    disabled: result(off.value, 'disabled', off.name),
    prerequisiteFailed: result(off.value, 'prerequisite_failed', off.name),
    rolloutIn: result(served.value, 'rollout', served.name),
    rolloutOut: result(off.value, 'rollout', off.name),
    fallthrough: result(served.value, fallthroughReason, served.name),
  }
}

/** The base outcomes, each environment's, the variant table, and `served`, which builds the result of a
 *  rule or an individual override (undefined when it names an unknown variant: the caller fails closed). */
export function flagOutcomes(def: Record<string, unknown>) {
  const table = new Map<string, Json>()
  if (isObject(def.variants)) for (const [name, v] of Object.entries(def.variants)) if (v !== undefined) table.set(name, frozenJson(v))
  const withVariants = table.size > 0
  const named = (name: unknown): Served | undefined =>
    typeof name === 'string' && table.has(name) ? { value: table.get(name)!, name } : undefined

  const base: Served = (withVariants && named(def.default_variant)) || {
    value: frozenJson(def.value),
    name: withVariants ? null : undefined,
  }
  // The off value (docs/behaviour.md §4): false for a boolean flag, null otherwise; or the off variant.
  const offOf = (served: Served): Served =>
    (withVariants && named(def.off_variant)) || {
      value: typeof served.value === 'boolean' ? false : null,
      name: withVariants ? null : undefined,
    }

  let environments: Map<string, Outcomes> | null = null
  if (isObject(def.environments)) {
    for (const [name, o] of Object.entries(def.environments)) {
      if (!isObject(o)) continue
      const envServed = withVariants
        ? (named(o.variant) ?? base)
        : hasOwn.call(o, 'value') && o.value !== undefined
          ? { value: frozenJson(o.value), name: undefined }
          : base
      ;(environments ??= new Map()).set(name, outcomes(o.enabled, envServed, offOf(envServed), 'environment_override'))
    }
  }

  const served = (value: Json | undefined, variant: unknown, reason: Reason): EvaluationResult | undefined => {
    if (!withVariants) return result(frozenJson(value), reason)
    const n = named(variant)
    return n && result(n.value, reason, n.name)
  }
  return { base: outcomes(def.enabled, base, offOf(base), 'default'), environments, table: table as VariantTable, served }
}
