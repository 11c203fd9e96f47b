// Checks a parsed value against the document's JSON Schema (json-schema.ts), for the subset of JSON
// Schema that schema uses (type, enum, properties, required, additionalProperties, items, anyOf, string
// and number bounds). Reports each problem at its path, so an unknown field is refused by name. Pure.
import type { JsonSchema } from './json-schema'
import type { PathSegment } from './json-keys'

export interface SchemaIssue {
  path: PathSegment[]
  message: string
}

const typeOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' && Number.isInteger(v) ? 'integer' : typeof v
const typeMatches = (want: string, v: unknown): boolean => {
  const t = typeOf(v)
  return want === t || (want === 'number' && t === 'integer')
}

/** Problems of `value` against `schema`, at most `limit` of them. */
export function checkSchema(schema: JsonSchema, value: unknown, limit = 100): SchemaIssue[] {
  const issues: SchemaIssue[] = []
  const visit = (s: JsonSchema, v: unknown, path: PathSegment[]): void => {
    if (issues.length >= limit) return
    if (Array.isArray(s.anyOf)) {
      const options = s.anyOf as JsonSchema[]
      // Nullable shapes: null matches its branch; anything else is checked against the other branch.
      if (v === null && options.some((o) => o.type === 'null')) return
      const rest = options.filter((o) => o.type !== 'null')
      if (rest.length === 1) return visit(rest[0]!, v, path)
      if (!rest.some((o) => checkSchema(o, v, 1).length === 0)) issues.push({ path, message: 'matches none of the allowed shapes' })
      return
    }
    if (typeof s.type === 'string' && !typeMatches(s.type, v))
      return void issues.push({
        path,
        message: `must be ${s.type === 'integer' || s.type === 'object' || s.type === 'array' ? 'an' : 'a'} ${s.type}`,
      })
    if (Array.isArray(s.enum) && !s.enum.includes(v))
      return void issues.push({ path, message: `must be one of: ${s.enum.map((e) => JSON.stringify(e)).join(', ')}` })
    if (typeof v === 'string') {
      if (typeof s.minLength === 'number' && v.length < s.minLength)
        issues.push({ path, message: `must be at least ${s.minLength} characters` })
      if (typeof s.maxLength === 'number' && v.length > s.maxLength)
        issues.push({ path, message: `must be at most ${s.maxLength} characters` })
    }
    if (typeof v === 'number') {
      if (typeof s.minimum === 'number' && v < s.minimum) issues.push({ path, message: `must be at least ${s.minimum}` })
      if (typeof s.maximum === 'number' && v > s.maximum) issues.push({ path, message: `must be at most ${s.maximum}` })
    }
    if (Array.isArray(v) && s.items) v.forEach((item, i) => visit(s.items as JsonSchema, item, [...path, i]))
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && s.type === 'object') {
      const o = v as Record<string, unknown>
      const props = (s.properties ?? {}) as Record<string, JsonSchema>
      for (const r of (s.required ?? []) as string[]) if (o[r] === undefined) issues.push({ path: [...path, r], message: 'is required' })
      for (const [k, child] of Object.entries(o)) {
        if (issues.length >= limit) return
        if (Object.hasOwn(props, k)) visit(props[k]!, child, [...path, k])
        else if (s.additionalProperties === false) issues.push({ path: [...path, k], message: 'is not a known field' })
        else if (s.additionalProperties && typeof s.additionalProperties === 'object')
          visit(s.additionalProperties as JsonSchema, child, [...path, k])
      }
    }
  }
  visit(schema, value, [])
  return issues
}

/** `flags[3].targeting.rules[0]`, as every error of this service names a place. */
export function pathText(path: readonly PathSegment[]): string {
  let out = ''
  for (const p of path)
    out += typeof p === 'number' ? `[${p}]` : /^[A-Za-z_][\w-]*$/.test(p) ? `${out ? '.' : ''}${p}` : `[${JSON.stringify(p)}]`
  return out
}
