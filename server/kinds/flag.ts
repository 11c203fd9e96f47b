// Flags: the kind's definition (kind.ts). Its fields are declared once, in schemas/flag.ts (`flagFields`);
// the stored body is the engine's definition plus the metadata fields and the archive mark, held to the
// schema's fields by the compiler below.
import { t, type Static } from 'elysia'
import type { FlagDefinition, Json, ValidationIssue } from '../engine/types'
import * as S from '../schemas'
import { agree, type SameKeys } from '../schemas/common'
import { FLAG_CLEARABLE_FIELDS, FLAG_FIELDS } from '../schemas/flag'
import { Empty, type DocumentBody, type DocumentKind, type StoredDocument } from './kind'

/** A stored flag's body. */
export type FlagBody = Omit<FlagDefinition, 'key'> & S.FlagMetadata & S.ArchiveMark
/** A flag in the as-code document (docs/as-code.md): as POST /flags takes it, a null meaning "absent", and
 *  the archive mark written only when true. */
export type FlagEntry = { key: string; enabled?: boolean; value?: Json; archived?: boolean } & {
  [F in Exclude<keyof FlagBody, 'enabled' | 'value' | 'archived' | 'archived_at'>]?: FlagBody[F] | null
}
/** A field added to the flag schema and not to the stored body (or the other way round) fails here. */
agree<SameKeys<FlagBody, Omit<Static<typeof S.Flag>, 'key' | 'version' | 'created_at' | 'updated_at'>>>()

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** The stored body a flag entry creates, as POST /flags makes it: `enabled` false and `value` true unless
 *  given, null fields left out, a flag with variants serving its default variant (without the archive
 *  time, which the write adds). */
function bodyOfEntry(entry: FlagEntry, issues: ValidationIssue[]): DocumentBody {
  const input: DocumentBody = entry
  const body: DocumentBody = { enabled: entry.enabled ?? false, value: entry.value === undefined ? true : entry.value }
  for (const f of FLAG_CLEARABLE_FIELDS) if (input[f] !== undefined && input[f] !== null) body[f] = input[f]
  // As the flag service does on create: with variants, `value` mirrors the default variant.
  const variants = body.variants as DocumentBody | undefined
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

/** A stored flag in document form: the archive mark only when archived, the archive time left out. */
function entryOfBody(key: string, body: DocumentBody): DocumentBody {
  const { archived, archived_at: _at, ...rest } = body
  return { key, ...rest, ...(archived === true && { archived: true }) }
}

/** The wire form of a stored flag. */
export function flagView(row: StoredDocument<FlagBody>) {
  return { key: row.key, ...row.body, version: row.version, created_at: row.createdAt, updated_at: row.updatedAt }
}
/** The `data` of a flag's webhook events. */
export function flagEventData(row: StoredDocument<FlagBody>) {
  const b = row.body
  return {
    enabled: b.enabled,
    value: b.value,
    version: row.version,
    ...(b.variants && { default_variant: b.default_variant }),
    ...(b.archived && { archived: true }),
  }
}

export const flagKind = {
  type: 'flag',
  plural: 'flags',
  label: 'Flag',
  notFoundCode: 'FLAG_NOT_FOUND',
  read: 'read:flags',
  write: 'write:flags',
  schemas: { view: S.Flag, create: S.FlagCreate, patch: S.FlagPatch, override: S.FlagEnvironmentOverride },
  view: flagView,
  eventData: flagEventData,
  entry: {
    /** the schema's fields (FLAG_FIELDS), then the archive mark */
    fields: ['key', ...FLAG_FIELDS, 'archived'],
    toBody: bodyOfEntry,
    of: entryOfBody,
  },
  items: {
    create: S.FlagCreate,
    update: S.FlagPatch,
    delete: Empty,
    set_override: S.FlagEnvironmentOverride,
    delete_override: Empty,
    archive: Empty,
    restore: Empty,
    rollback: t.Object({ version: t.Integer({ minimum: 1 }) }),
  },
} as const satisfies DocumentKind<'flag', FlagBody>
