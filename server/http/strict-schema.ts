// One strict reading of request bodies (docs/behaviour.md §8): Elysia's `t.Integer` also accepts a string of
// digits and turns it into a number (`{"version":"1"}`, a usage count `"0x10"`), and nested objects accept
// fields the schema does not name, which are then silently ignored. The body schemas of the routes go
// through `strict` (routes/common.ts `jsonBody`): integers are numbers only, and every object refuses
// unknown fields unless its schema says otherwise (a context's attributes, a map). The OpenAPI document
// shows the same strict shapes.
import { getSchemaValidator, type Static, type TSchema } from 'elysia'
import { validationError } from '../errors'

type Schema = Record<string | symbol, unknown>
const isSchema = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v)

/** Elysia's integer: `anyOf: [{ type: 'string', format: 'integer' }, { type: 'integer' }]`. */
function integerMember(schema: Schema): Schema | undefined {
  const anyOf = schema.anyOf
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return undefined
  const [text, number] = anyOf as Schema[]
  return text?.type === 'string' &&
    (text.format === 'integer' || text.format === 'numeric') &&
    (number?.type === 'integer' || number?.type === 'number')
    ? number
    : undefined
}

/** A copy of `schema` read strictly (the original, which responses may share, is left as it is). */
export function strict<T extends TSchema>(schema: T): T {
  return strictCopy(schema as unknown as Schema) as unknown as T
}

function strictCopy(schema: Schema): Schema {
  const number = integerMember(schema)
  if (number) {
    // The outer schema's own words (description, bounds, optional marker) over the number member; not its
    // transform, which is what turned strings into numbers.
    const out: Schema = { ...number }
    for (const k of Reflect.ownKeys(schema)) {
      if (k === 'anyOf' || (typeof k === 'symbol' && (String(k) === 'Symbol(TypeBox.Transform)' || String(k) === 'Symbol(TypeBox.Kind)')))
        continue
      out[k] = schema[k]
    }
    return out
  }
  const out: Schema = { ...schema }
  if (out.type === 'object' && isSchema(out.properties)) {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, isSchema(v) ? strictCopy(v) : v]))
    if (out.additionalProperties === undefined) out.additionalProperties = false
  }
  if (isSchema(out.additionalProperties)) out.additionalProperties = strictCopy(out.additionalProperties)
  if (isSchema(out.items)) out.items = strictCopy(out.items)
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const)
    if (Array.isArray(out[k])) out[k] = (out[k] as unknown[]).map((m) => (isSchema(m) ? strictCopy(m) : m))
  return out
}

/** A checker for a value inside a body (an explain draft) that the route's own schema leaves open: 400
 *  VALIDATION_ERROR with each problem's path under `at`, as a write of the same value would answer; else
 *  the value, as the schema's type. */
export function strictChecker<T extends TSchema>(schema: T, at: string): (value: unknown) => Static<T> {
  const validator = getSchemaValidator(strict(schema)) as unknown as {
    Check(v: unknown): v is Static<T>
    Errors(v: unknown): Iterable<{ path: string; message: string }>
  }
  return (value) => {
    if (validator.Check(value)) return value
    const issues: { path: string; message: string }[] = []
    for (const e of validator.Errors(value)) {
      const tail = e.path
        .split('/')
        .filter(Boolean)
        .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : `${acc}.${seg}`), '')
      issues.push({ path: `${at}${tail}`, message: e.message })
      if (issues.length >= 20) break
    }
    throw validationError(issues.length ? issues : [{ path: at, message: 'invalid' }])
  }
}
