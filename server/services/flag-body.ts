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
