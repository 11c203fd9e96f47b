// Between stored bodies and document entries. An entry is a resource as the API takes it on create;
// its stored body is what create makes of it (the same defaults: `enabled` false, `value` true, null
// fields left out, a flag with variants serving its default variant). A stored body's entry is the body
// with its key, without what is not the resource's content (the archive time). Pure.
import type { ValidationIssue } from '../engine'
import { FLAG_CLEARABLE_FIELDS } from '../schemas/flag'
import type { ConfigEntry, FlagEntry, Kind, SegmentEntry } from './model'

type Body = Record<string, unknown>
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** The stored body a flag entry creates (without the archive time, which the write adds). */
export function flagBodyOf(entry: FlagEntry, issues: ValidationIssue[] = []): Body {
  const input: Body = entry
  const body: Body = { enabled: entry.enabled ?? false, value: entry.value === undefined ? true : entry.value }
  for (const f of FLAG_CLEARABLE_FIELDS) if (input[f] !== undefined && input[f] !== null) body[f] = input[f]
  // As the flag service does on create: with variants, `value` mirrors the default variant.
  const variants = body.variants as Body | undefined
  if (variants && typeof body.default_variant === 'string' && Object.hasOwn(variants, body.default_variant)) {
    const value = variants[body.default_variant]
    if (entry.value !== undefined && !sameJson(entry.value, value)) {
      issues.push({
        path: 'value',
        message: `a flag with variants serves default_variant ("${body.default_variant}"); set that instead of value`,
      })
    }
    body.value = value
  }
  if (entry.archived === true) body.archived = true
  return body
}
export const configBodyOf = (entry: ConfigEntry): Body => ({
  value: entry.value,
  ...(entry.environments ? { environments: entry.environments } : {}),
  ...(entry.client_side !== undefined && { client_side: entry.client_side }),
})
export const segmentBodyOf = (entry: SegmentEntry): Body => ({ conditions: entry.conditions })

/** The body an entry of `kind` stores. */
export function bodyOf(kind: Kind, entry: { key: string }, issues?: ValidationIssue[]): Body {
  if (kind === 'flags') return flagBodyOf(entry as FlagEntry, issues)
  if (kind === 'configs') return configBodyOf(entry as ConfigEntry)
  return segmentBodyOf(entry as SegmentEntry)
}

/** A stored body in document form (with its key). */
export function entryOf(kind: Kind, key: string, body: Body): Record<string, unknown> {
  if (kind === 'flags') {
    const { archived, archived_at: _at, ...rest } = body
    return { key, ...rest, ...(archived === true && { archived: true }) }
  }
  if (kind === 'configs')
    return {
      key,
      value: body.value,
      ...(body.environments !== undefined && { environments: body.environments }),
      ...(body.client_side !== undefined && { client_side: body.client_side }),
    }
  return { key, conditions: body.conditions ?? [] }
}
