// Size and depth limits on stored JSON values (docs/behaviour.md §2): at most 256 KiB serialised and 32 levels
// deep. Used for flag, rule, override and condition values here, and by the service layer for configs.
import type { ValidationIssue } from './types'

export const MAX_JSON_BYTES = 256 * 1024
export const MAX_JSON_DEPTH = 32

/**
 * The nesting depth of a value (a scalar is 0, `{}` and `[]` are 1), or -1 when it is not JSON (a
 * non-finite number, undefined inside an array, a function...). Stops descending past `limit`, so a
 * hostile or cyclic value costs at most `limit` stack frames.
 */
function depthOf(value: unknown, limit: number): number {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return 0
    case 'number':
      return Number.isFinite(value) ? 0 : -1
    case 'object': {
      if (value === null) return 0
      if (limit === 0) return 1 // already too deep; the caller reports it
      let max = 0
      const children = Array.isArray(value) ? value : Object.values(value)
      for (const child of children) {
        if (child === undefined && !Array.isArray(value)) continue // JSON.stringify drops it
        const d = depthOf(child, limit - 1)
        if (d < 0) return -1
        if (d > max) max = d
      }
      return max + 1
    }
    default:
      return -1
  }
}

function utf8Length(text: string): number {
  let n = text.length
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    // 2 bytes below U+0800, 3 above; a surrogate pair (2 units) is 4 bytes, so 1 extra per unit.
    if (c >= 0x80) n += c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 1 : 2
  }
  return n
}

/** Checks that `value` is a JSON value within the size and depth limits; issues are reported at `path`. */
export function checkJsonLimits(value: unknown, path: string): ValidationIssue[] {
  if (value === undefined) return [{ path, message: 'is required' }]
  const depth = depthOf(value, MAX_JSON_DEPTH)
  if (depth < 0) return [{ path, message: 'must be a JSON value' }]
  if (depth > MAX_JSON_DEPTH) return [{ path, message: `must be at most ${MAX_JSON_DEPTH} levels deep` }]
  const bytes = utf8Length(JSON.stringify(value))
  if (bytes > MAX_JSON_BYTES) return [{ path, message: `must be at most ${MAX_JSON_BYTES} bytes (256 KiB) serialised; it is ${bytes}` }]
  return []
}
