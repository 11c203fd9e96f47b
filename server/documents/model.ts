// The flags-as-code document (docs/as-code.md): one model for YAML and JSON files, the export and import
// routes, the CLI, promotion, offline mode (FLAGS_FILE) and the SDK's bootstrap. Each entry is a resource
// as the API takes it on create, without ids, versions or timestamps. Pure types and orders only.
import type { ConfigEntry, FlagEntry, SegmentEntry } from '../kinds'
import { KINDS as DOCUMENT_KINDS, perKind, type KindPlural, type KindType } from '../kinds'

export const FORMAT_VERSION = 1
/** The document's sections: each kind's plural (kinds/), in the kinds' order. */
export const KINDS: readonly KindPlural[] = DOCUMENT_KINDS.map((k) => k.plural)
export type Kind = KindPlural
export type ResourceKind = KindType
/** `f` of every section, by section. */
export const perSection = <T>(f: (kind: Kind) => T): Record<Kind, T> => perKind((k) => f(k.plural))
/** The resource type of each section's entries. */
export const RESOURCE_OF: Record<Kind, ResourceKind> = perKind((k) => k.type)

// An entry is a resource as POST takes it: each kind's (kinds/).
export type { ConfigEntry, FlagEntry, SegmentEntry } from '../kinds'

export interface FlagshipDocument {
  /** the format version; always 1 */
  flagship: 1
  /** informative: the project it was exported from */
  project?: string
  /** the environments it names */
  environments?: string[]
  segments?: SegmentEntry[]
  flags?: FlagEntry[]
  configs?: ConfigEntry[]
}

/** A problem found in a document: where (`flags[3].targeting.rules[0]`), the line for YAML and JSON
 *  text, and what. */
export interface DocumentIssue {
  path: string
  line?: number
  file?: string
  message: string
}

/** The top-level fields in their written order. */
export const TOP_FIELDS = ['flagship', 'project', 'environments', ...KINDS] as const
/** Each section's entry fields in their written order (each kind's `entry.fields`). */
export const ENTRY_FIELDS: Record<Kind, readonly string[]> = perKind((k) => k.entry.fields)
