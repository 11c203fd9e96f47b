// The stored body of a flag, shared by the flag service and its lifecycle operations: the engine's definition
// (what evaluation reads) plus the metadata fields of the flag schema, and the archive mark while archived.
import type { FlagDefinition } from '../engine'
import type { ArchiveMark, FlagMetadata } from '../schemas'

export type FlagBody = Omit<FlagDefinition, 'key'> & FlagMetadata & ArchiveMark

export const isArchived = (body: Record<string, unknown>): boolean => body.archived === true
