// Shared pieces of the wire schemas: JSON values, maps, timestamps, the error body, paging and the
// parameters many routes take.
import { type Static, t, type TSchema } from 'elysia'

export const Json = t.Any({ description: 'any JSON value' })
/** A string-keyed map whose values are `value`s, spelled with additionalProperties (not t.Record's
 *  patternProperties) for OpenAPI 3.0. Unsafe only in name: the schema (and what validates it) is the plain
 *  object with `additionalProperties`; Unsafe gives it the static type a record has, which TypeBox's `{}` with
 *  additionalProperties lacks. */
export const Dict = <T extends TSchema>(value: T, description?: string) =>
  t.Unsafe<Record<string, Static<T>>>(t.Object({}, { additionalProperties: value, ...(description && { description }) }))
export const Timestamp = t.String({ description: 'ISO 8601 timestamp' })
export const OptionalTimestamp = t.Optional(t.Nullable(Timestamp))

/** `success: true` on every write (a boolean: OpenAPI 3.0 has no `const`). */
export const Success = t.Boolean({ description: 'always true' })

export const ErrorBody = t.Object(
  {
    error: t.String(),
    code: t.String(),
    details: t.Optional(Dict(t.Any())),
  },
  { title: 'Error', example: { error: 'Flag "new-chekout" not found', code: 'FLAG_NOT_FOUND' } },
)

/** Read-only fields a client may echo back in an update (e.g. PUT of what it read): accepted, ignored. */
export const readOnlyEcho = {
  key: t.Optional(t.Any({ description: 'ignored on update' })),
  version: t.Optional(t.Any({ description: 'ignored on update; use If-Match' })),
  created_at: t.Optional(t.Any({ description: 'ignored' })),
  updated_at: t.Optional(t.Any({ description: 'ignored' })),
  archived: t.Optional(t.Any({ description: 'ignored; use POST /flags/:key/archive or /restore' })),
  archived_at: t.Optional(t.Any({ description: 'ignored' })),
}

export const Page = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  offset: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 })),
})
export const KeyParam = t.Object({ key: t.String() })
export const KeyEnvParams = t.Object({ key: t.String(), env: t.String() })
export const IfMatch = t.Object({
  'if-match': t.Optional(t.String({ description: 'apply only at this version: the version in double quotes, e.g. "3"' })),
})
export const Force = t.Object({ force: t.Optional(t.BooleanString()) })

export const Deleted = t.Object({ success: Success, key: t.String() })
export const DeletedOverride = t.Object({ success: Success, key: t.String(), environment: t.String() })

/** The error statuses a route may answer, for its OpenAPI responses. */
export const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, ErrorBody]))

// Where a schema and a type declared elsewhere (the engine's, a kind's stored body) must have the same fields,
// the compiler holds them to it: a field added to one and not the other fails the typecheck
// (tests/unit/typecheck.test.ts) at the `agree` naming them.
export type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never]
  ? true
  : { onlyIn: [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] }
export const agree = <T extends true>(..._checks: T[]) => undefined
