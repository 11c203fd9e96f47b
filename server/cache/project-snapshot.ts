// One project's in-memory read model (cache/snapshots.ts keeps one per project): its compiled live flags,
// archived flags, configs and segments, and how a stored flag row takes its place among them.
import { compileFlag, type CompiledFlag, type FlagResolver, type SegmentDefinition } from '../engine'
import type { ConfigBody, FlagBody, SegmentBody } from '../kinds'
import type { DocumentRow } from '../store/documents'
import type { ProjectRow } from '../store/projects'

export type FlagRow = DocumentRow<FlagBody>
export type ConfigRow = DocumentRow<ConfigBody>
export type SegmentRow = DocumentRow<SegmentBody>

export interface CachedFlag {
  row: FlagRow
  compiled: CompiledFlag
}

export interface ProjectSnapshot {
  /** grows whenever anything in this snapshot changes (lets readers keep documents derived from it) */
  revision: number
  project: ProjectRow
  /** the live flags: every evaluation surface reads only these */
  flags: Map<string, CachedFlag>
  /** archived flags (docs/lifecycle.md §3): kept apart, so no surface evaluates them */
  archivedFlags: Map<string, FlagRow>
  configs: Map<string, ConfigRow>
  segments: Map<string, SegmentRow>
}

export const segmentDefs = (segments: Map<string, SegmentRow>): Map<string, SegmentDefinition> =>
  new Map([...segments].map(([key, row]) => [key, { key, conditions: row.body.conditions ?? [] }]))

/** After a segment change: every flag of the project compiled again against its current segments. */
export function recompileFlags(snap: ProjectSnapshot): void {
  const defs = segmentDefs(snap.segments)
  for (const [key, cached] of snap.flags) snap.flags.set(key, compile(cached.row, defs, snap.flags))
}

/** Prerequisites are looked up in the project's live flags when evaluated, so a prerequisite's change needs
 *  no recompile of the flags that require it. */
const resolverOf =
  (flags: Map<string, CachedFlag>): FlagResolver =>
  (key) =>
    flags.get(key)?.compiled

const compile = (row: FlagRow, segments: ReadonlyMap<string, SegmentDefinition>, flags: Map<string, CachedFlag>): CachedFlag => ({
  row,
  compiled: compileFlag({ ...row.body, key: row.key }, segments, resolverOf(flags)),
})

const isArchived = (row: FlagRow): boolean => row.body.archived === true

/** Puts a stored flag row where it belongs: compiled among the live flags, or with the archived ones.
 *  `defs`: the project's segments as the engine takes them (passed in when placing many flags at once). */
export function placeFlag(
  snap: Pick<ProjectSnapshot, 'flags' | 'archivedFlags' | 'segments'>,
  row: FlagRow,
  defs?: ReadonlyMap<string, SegmentDefinition>,
): void {
  if (isArchived(row)) {
    snap.flags.delete(row.key)
    snap.archivedFlags.set(row.key, row)
  } else {
    snap.archivedFlags.delete(row.key)
    snap.flags.set(row.key, compile(row, defs ?? segmentDefs(snap.segments), snap.flags))
  }
}

/** The live and archived flags of a snapshot as one table of rows (what refreshDocuments walks). Identities
 *  are stable: a row object stands for its entry until the entry is replaced. */
export function flagRows(snap: ProjectSnapshot): DocumentTable<FlagRow> {
  return {
    get: (key) => snap.flags.get(key)?.row ?? snap.archivedFlags.get(key),
    set: (_key, row) => placeFlag(snap, row),
    delete: (key) => snap.flags.delete(key) || snap.archivedFlags.delete(key),
    *[Symbol.iterator]() {
      for (const [key, cached] of snap.flags) yield [key, cached.row] as [string, FlagRow]
      yield* snap.archivedFlags
    },
  }
}

/** What refreshDocuments needs of the map it refreshes. */
export interface DocumentTable<T> extends Iterable<[string, T]> {
  get(key: string): T | undefined
  set(key: string, value: T): unknown
  delete(key: string): boolean
}
