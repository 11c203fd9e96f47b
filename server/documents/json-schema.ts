// The document's JSON Schema (GET /schemas/flagship-v1.json, committed as schemas/flagship-v1.json),
// generated from the server's own wire schemas (server/schemas): the create shapes of flags, configs and
// segments, closed (unknown fields refused) and wrapped in the document's top level. The same schema is
// what parse.ts checks documents against, so editors and the server agree. Pure.
//   bun server/documents/json-schema.ts --write   rewrites the committed file after a schema change.
import { MAX_JSON_DEPTH } from '../engine'
import { perKind, type AnyKind } from '../kinds'

export type JsonSchema = Record<string, unknown>

/** OpenAPI 3.0's `nullable: true` (what the wire schemas carry for OpenAPI) as JSON Schema says it: an
 *  `anyOf` with `{ "type": "null" }`, annotations kept outside. Strict validators (ajv) refuse `nullable`. */
function jsonSchemaNullable(o: JsonSchema): void {
  if (o.nullable !== true) return
  delete o.nullable
  if (Array.isArray(o.anyOf)) {
    if (!o.anyOf.some((x) => (x as JsonSchema).type === 'null')) o.anyOf.push({ type: 'null' })
    return
  }
  const shape: JsonSchema = {}
  for (const [k, v] of Object.entries(o)) {
    if (k === 'description' || k === 'title' || k === 'default') continue
    shape[k] = v
    delete o[k]
  }
  o.anyOf = [shape, { type: 'null' }]
}

/** A plain-JSON copy of a TypeBox schema in which every object with declared properties is closed. */
function closed(schema: unknown): JsonSchema {
  const copy = JSON.parse(JSON.stringify(schema)) as JsonSchema
  const walk = (s: unknown): void => {
    if (!s || typeof s !== 'object') return
    if (Array.isArray(s)) return s.forEach(walk)
    const o = s as JsonSchema
    delete o.example
    jsonSchemaNullable(o)
    if (o.type === 'object' && o.properties && o.additionalProperties === undefined) o.additionalProperties = false
    for (const v of Object.values(o)) walk(v)
  }
  walk(copy)
  return copy
}

/** A kind's entry: its create schema, closed; a flag's with its archive mark (kinds/flag.ts `entry.fields`). */
function entry(kind: AnyKind): JsonSchema {
  const s = closed(kind.schemas.create)
  if (kind.type === 'flag') {
    const props = s.properties as Record<string, JsonSchema>
    props.archived = { type: 'boolean', description: 'true: the flag is archived (kept, not evaluated, not editable until restored)' }
  }
  return { ...s, title: `${kind.label}Entry` }
}

export const SCHEMA_ID = 'urn:flagship:schema:flagship-v1'

/** The JSON Schema of a flagship document, format version 1. */
export function documentJsonSchema(): JsonSchema {
  const keyed = (s: JsonSchema) => ({ type: 'array', items: s })
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: SCHEMA_ID,
    title: 'Flagship document',
    description:
      `Flags, configs and segments as code (docs/as-code.md). Values nest at most ${MAX_JSON_DEPTH} levels; ` +
      'keys are unique within each list.',
    type: 'object',
    required: ['flagship'],
    additionalProperties: false,
    properties: {
      flagship: { type: 'integer', enum: [1], description: 'the format version' },
      project: { type: 'string', description: 'informative: the project the document was exported from' },
      environments: {
        type: 'array',
        items: { type: 'string' },
        description: "the environments it names (each must be one of the project's)",
      },
      ...perKind((kind) => keyed(entry(kind))),
    },
  }
}

/** The schema as served and committed: two-space JSON with a final newline. */
export const documentJsonSchemaText = (): string => `${JSON.stringify(documentJsonSchema(), null, 2)}\n`

if (import.meta.main && process.argv.includes('--write')) {
  await Bun.write(new URL('../../schemas/flagship-v1.json', import.meta.url), documentJsonSchemaText())
}
