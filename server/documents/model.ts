// The flags-as-code document (docs/as-code.md): one model for YAML and JSON files, the export and import
// routes, the CLI, promotion, offline mode (FLAGS_FILE) and the SDK's bootstrap. Each entry is a resource
// as the API takes it on create, without ids, versions or timestamps. Pure types and orders only.
import type { Condition, EnvironmentOverride, Json, Prerequisite, Targeting } from '../engine'
import { FLAG_FIELDS } from '../schemas/flag'

export const FORMAT_VERSION = 1
export const KINDS = ['segments', 'flags', 'configs'] as const
export type Kind = (typeof KINDS)[number]
export type ResourceKind = 'segment' | 'flag' | 'config'
export const RESOURCE_OF: Record<Kind, ResourceKind> = { segments: 'segment', flags: 'flag', configs: 'config' }

export interface SegmentEntry {
  key: string
  conditions: Condition[]
}
export interface FlagEntry {
  key: string
  enabled?: boolean
  value?: Json
  targeting?: Targeting | null
  environments?: Record<string, EnvironmentOverride> | null
  active_from?: string | null
  active_until?: string | null
  variants?: Record<string, Json> | null
  default_variant?: string | null
  off_variant?: string | null
  prerequisites?: Prerequisite[] | null
  description?: string | null
  tags?: string[] | null
  owner?: string | null
  client_side?: boolean | null
  /** written only when true: the flag is archived (not evaluated, kept) */
  archived?: boolean
}
export interface ConfigEntry {
  key: string
  value: Json
  environments?: Record<string, { value: Json }>
  client_side?: boolean
}

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
export const TOP_FIELDS = ['flagship', 'project', 'environments', 'segments', 'flags', 'configs'] as const
/** A flag entry's fields in their written order: the schema's (FLAG_FIELDS), then the archive mark. */
export const FLAG_ENTRY_FIELDS = ['key', ...FLAG_FIELDS, 'archived'] as const
export const CONFIG_ENTRY_FIELDS = ['key', 'value', 'environments', 'client_side'] as const
export const SEGMENT_ENTRY_FIELDS = ['key', 'conditions'] as const
