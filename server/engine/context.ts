// Reading a condition property (or rollout attribute) out of an evaluation context (docs/behaviour.md §4): a
// top-level field of the context (`user_id`, `plan`, `environment`, or any other attribute the client put
// there) is checked first, then `custom`; the `custom.<name>` form reads only `custom`. Contexts arrive from
// clients, so every read here tolerates garbage (a non-object context or custom, inherited names such as
// `toString` or `__proto__`).
import type { EvaluationContext } from './types'

/** Reads one property from a context; `undefined` when missing. JSON `null` counts as missing. */
export type PropertyAccessor = (context: EvaluationContext) => unknown

const hasOwn = Object.prototype.hasOwnProperty
const CUSTOM_PREFIX = 'custom.'

/** `context.custom[name]` when custom is a plain object holding that own, non-null field. */
export function customValue(context: EvaluationContext, name: string): unknown {
  const custom = (context as { custom?: unknown }).custom
  if (custom === null || typeof custom !== 'object' || Array.isArray(custom)) return undefined
  // Own properties only: `custom.constructor` must not find Object.prototype's function.
  if (!hasOwn.call(custom, name)) return undefined
  const v = (custom as Record<string, unknown>)[name]
  return v === null ? undefined : v
}

/**
 * Builds the accessor for `property` once, at compile time, so evaluation does no string parsing.
 * The accessor expects an object context (the compiled flag guarantees that).
 */
export function compileAccessor(property: string): PropertyAccessor {
  if (property.startsWith(CUSTOM_PREFIX)) {
    const name = property.slice(CUSTOM_PREFIX.length)
    return (context) => customValue(context, name)
  }
  // `custom` itself is the attribute bag, never an attribute.
  if (property === 'custom') return (context) => customValue(context, property)
  return (context) => {
    // Own properties only, as in customValue.
    if (hasOwn.call(context, property)) {
      const v = (context as Record<string, unknown>)[property]
      if (v !== undefined && v !== null) return v
    }
    return customValue(context, property)
  }
}

/** One-off lookup (tests, tooling); the engine itself uses compiled accessors. */
export function getProperty(context: unknown, property: string): unknown {
  if (context === null || typeof context !== 'object') return undefined
  return compileAccessor(property)(context as EvaluationContext)
}

/**
 * The string form of an attribute used as a rollout bucketing key or override key: strings as they are,
 * finite numbers and booleans via String(); anything else (object, array, null, NaN) counts as missing.
 */
export function attributeKey(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return value
    case 'number':
      return Number.isFinite(value) ? String(value) : undefined
    case 'boolean':
      return String(value)
    default:
      return undefined
  }
}
