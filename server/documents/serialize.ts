// Byte-stable output (docs/as-code.md §1): the same state always writes the same bytes. Lists of
// resources are sorted by key; objects the schema describes keep the schema's field order; maps (variants,
// environments, overrides) and free JSON values have their keys sorted. The order is read off the
// document's JSON Schema, so a field added to a server schema is ordered without a change here. Pure.
import { stringify } from 'yaml'
import { documentJsonSchema, type JsonSchema } from './json-schema'
import { KINDS, type FlagshipDocument } from './model'
import type { DocumentFormat } from './parse'
import { isObject } from '../engine/is-object'

const schema = documentJsonSchema()
const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** out[k] = v, where a `__proto__` key (a stored value may hold one: the API keeps it as data) stays an
 *  own property instead of becoming the prototype, so export shows what the store serves. */
function put(out: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true })
  else out[k] = v
}

function sortedDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedDeep)
  if (!isObject(v)) return v
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(v).sort(byCodeUnits)) if (v[k] !== undefined) put(out, k, sortedDeep(v[k]))
  return out
}

function ordered(s: JsonSchema | undefined, v: unknown): unknown {
  if (!s) return sortedDeep(v)
  if (Array.isArray(s.anyOf)) {
    if (v === null) return null
    const rest = (s.anyOf as JsonSchema[]).filter((o) => o.type !== 'null')
    return ordered(rest.length === 1 ? rest[0] : undefined, v)
  }
  if (Array.isArray(v)) return v.map((item) => ordered(s.items as JsonSchema | undefined, item))
  if (!isObject(v)) return v
  if (!s.properties) {
    const inner = typeof s.additionalProperties === 'object' ? (s.additionalProperties as JsonSchema) : undefined
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(v).sort(byCodeUnits)) if (v[k] !== undefined) put(out, k, ordered(inner, v[k]))
    return out
  }
  const props = s.properties as Record<string, JsonSchema>
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(props)) if (v[k] !== undefined) out[k] = ordered(props[k], v[k])
  // Fields the schema does not know (never in a checked document) keep a stable place at the end.
  for (const k of Object.keys(v).sort(byCodeUnits)) if (!Object.hasOwn(props, k) && v[k] !== undefined) put(out, k, sortedDeep(v[k]))
  return out
}

const entrySchema = (kind: (typeof KINDS)[number]) => (schema.properties as Record<string, JsonSchema>)[kind]!.items as JsonSchema

/** One entry (a flag, config or segment in document form) in the canonical order. */
export const canonicalEntry = (kind: (typeof KINDS)[number], entry: unknown) => ordered(entrySchema(kind), entry) as Record<string, unknown>

/** The document in canonical order: resources sorted by key, fields in schema order. */
export function canonicalDocument(doc: FlagshipDocument): FlagshipDocument {
  const sorted: Record<string, unknown> = { ...doc }
  for (const kind of KINDS) {
    const list = doc[kind] as { key: string }[] | undefined
    if (list) sorted[kind] = [...list].sort((a, b) => byCodeUnits(a.key, b.key))
  }
  return ordered(schema, sorted) as FlagshipDocument
}

/** The canonical text of a document. YAML: block style, no line folding, no anchors. */
export function serializeDocument(doc: FlagshipDocument, format: DocumentFormat): string {
  const value = canonicalDocument(doc)
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`
  return stringify(value, { version: '1.2', lineWidth: 0, minContentWidth: 0, aliasDuplicateObjects: false, indent: 2 })
}

/** Canonical JSON of any entry, for comparing a stored resource with a document's. */
export const entryText = (kind: (typeof KINDS)[number], entry: unknown): string => JSON.stringify(canonicalEntry(kind, entry))
