// The `type` field of an evaluation result (docs/behaviour.md §4).
import type { ValueType } from './types'

/** The JSON type name of a value; anything that is not JSON (undefined, a function) reads as `null`. */
export function typeOf(value: unknown): ValueType {
  switch (typeof value) {
    case 'boolean':
      return 'boolean'
    case 'string':
      return 'string'
    case 'number':
      return 'number'
    case 'object':
      return value === null ? 'null' : Array.isArray(value) ? 'array' : 'object'
    default:
      return 'null'
  }
}
