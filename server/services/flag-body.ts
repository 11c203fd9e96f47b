// The stored body of a flag, shared by the flag service and its lifecycle operations: the engine's definition
// (what evaluation reads) plus the metadata fields of the flag schema, and the archive mark while archived.
import type { FlagDefinition } from '../engine'
import type { ArchiveMark, FlagMetadata } from '../schemas'
import type { DocumentRow } from '../store/documents'

export type FlagBody = Omit<FlagDefinition, 'key'> & FlagMetadata & ArchiveMark

export const isArchived = (body: { archived?: unknown }): boolean => body.archived === true

/** A stored flag's body, typed. The one place the store's JSON is taken as a flag: only the flag service
 *  writes flag rows, and it validates every body as a flag before it does (versioned-documents.ts). */
export const flagBodyOf = (row: Pick<DocumentRow, 'body'>): FlagBody => row.body as FlagBody

/** Environment overrides as stored: an override's `targeting: null` (own rules removed) is left out, so
 *  an override without own rules is stored exactly as before they existed. */
export function storedOverrides(environments: unknown): FlagBody['environments'] {
  if (environments === null || typeof environments !== 'object' || Array.isArray(environments))
    return environments as FlagBody['environments']
  return Object.fromEntries(
    Object.entries(environments).map(([name, o]) => {
      if (o === null || typeof o !== 'object' || !('targeting' in o) || (o as { targeting?: unknown }).targeting !== null) return [name, o]
      const { targeting: _removed, ...rest } = o as Record<string, unknown>
      return [name, rest]
    }),
  ) as FlagBody['environments']
}
