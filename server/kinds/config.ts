// Configs: the kind's definition (kind.ts): JSON values with per-environment overrides.
import type { ConfigDefinition } from '../engine/documents'
import type { Static } from 'elysia'
import * as S from '../schemas'
import { agree, type SameKeys } from '../schemas/common'
import { Empty, type DocumentBody, type DocumentKind, type StoredDocument } from './kind'

/** A stored config's body (an object type, so that it is also an open record, as the store keeps bodies). */
export type ConfigBody = Pick<ConfigDefinition, keyof ConfigDefinition>

/** A field added to the config schema and not to the stored body (or the other way round) fails here. */
agree<SameKeys<ConfigBody, Omit<Static<typeof S.Config>, 'version' | 'created_at' | 'updated_at'>>>()

/** A config in the as-code document: as POST /configs takes it. */
export type ConfigEntry = { key: string } & ConfigBody

export function configView(row: StoredDocument<ConfigBody>) {
  const b = row.body
  return {
    value: b.value,
    environments: b.environments ?? {},
    ...(b.client_side !== undefined && { client_side: b.client_side }),
    version: row.version,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  }
}

export const configKind = {
  type: 'config',
  plural: 'configs',
  label: 'Config',
  notFoundCode: 'CONFIG_NOT_FOUND',
  read: 'read:configs',
  write: 'write:configs',
  schemas: { view: S.Config, create: S.ConfigCreate, patch: S.ConfigPatch, override: S.ConfigEnvironmentOverride },
  view: configView,
  eventData: (row: StoredDocument<ConfigBody>) => ({ value: row.body.value, version: row.version }),
  entry: {
    fields: ['key', 'value', 'environments', 'client_side'],
    toBody: (entry: ConfigEntry) => ({
      value: entry.value,
      ...(entry.environments ? { environments: entry.environments } : {}),
      ...(entry.client_side !== undefined && { client_side: entry.client_side }),
    }),
    of: (key: string, body: DocumentBody) => ({
      key,
      value: body.value,
      ...(body.environments !== undefined && { environments: body.environments }),
      ...(body.client_side !== undefined && { client_side: body.client_side }),
    }),
  },
  items: {
    create: S.ConfigCreate,
    update: S.ConfigPatch,
    delete: Empty,
    set_override: S.ConfigEnvironmentOverride,
    delete_override: Empty,
  },
} as const satisfies DocumentKind<'config', ConfigBody>
