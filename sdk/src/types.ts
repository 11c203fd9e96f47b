// The SDK's public types. The evaluation types are the engine's own (server/engine/types.ts), so the SDK and
// the server can never describe an answer differently.
import type { EvaluationContext, EvaluationResult, FlagDefinition, Json, SegmentDefinition, ValueType } from '../../server/engine/types'

export type { EvaluationContext, EvaluationResult, Json, ValueType }

/** An evaluation context: `user_id`, `plan`, `environment`, `custom`, and any other attribute at the top
 *  level (conditions find `country` in `{ country }` or in `{ custom: { country } }`). */
export type Context = EvaluationContext & { [attribute: string]: unknown }

/** A flag as GET /api/v1/definitions lists it (the stored flag with its key and version stamps). */
export interface StoredFlag extends FlagDefinition {
  version?: number
  created_at?: string
  updated_at?: string
}

export interface StoredConfig {
  key: string
  value: Json
  environments?: Record<string, { value: Json }>
  version?: number
  created_at?: string
  updated_at?: string
}

export interface StoredSegment extends SegmentDefinition {
  version?: number
  created_at?: string
  updated_at?: string
}

/** A flags-as-code document (docs/as-code.md), already parsed from its YAML or JSON. */
export interface FlagshipDocumentInput {
  flagship: 1
  project?: string
  environments?: string[]
  flags?: (Partial<FlagDefinition> & {
    key: string
    archived?: boolean
    description?: string | null
    tags?: string[] | null
    owner?: string | null
  })[]
  configs?: StoredConfig[]
  segments?: StoredSegment[]
}

/** The document of GET /api/v1/definitions; also what `bootstrap` takes. */
export interface Definitions {
  /** the project's change number this document reflects */
  version: number
  environments: string[]
  /** present for an environment key: the environment every evaluation runs in (it holds only that
   *  environment's overrides) */
  environment?: string
  flags: StoredFlag[]
  configs: StoredConfig[]
  segments: StoredSegment[]
  /** the running experiments: their flags' exposures are recorded (docs/experiments.md) */
  experiments?: RunningExperiment[]
  /** the flags under a running or paused release plan: which arm each unit got is recorded (docs/experiments.md §7) */
  release_plans?: MeasuredReleasePlan[]
}

/** A running or paused release plan as the definitions name it. */
export interface MeasuredReleasePlan {
  id: string
  flag: string
  environment: string
  /** the context attribute the rollout buckets units by */
  unit: string
  /** the current step's percentage (with a variant, its weight): a unit evaluated while the flag serves another
   *  is not recorded (absent from an older server: every unit is) */
  percentage?: number
  /** a flag with variants: the new variant (its units are `rollout`, the others `off`) */
  variant?: string
}

export interface RunningExperiment {
  key: string
  flag: string
  environment: string
  /** the context attribute that names a unit */
  unit: string
}

export interface EventOptions {
  /** how often queued events are sent (default 5 s) */
  intervalMs?: number
  /** send as soon as this many are queued (default 500) */
  batchSize?: number
}

/** `evaluate`'s answer: exactly GET /api/v1/flags/:key's, or reason `missing` for a key it does not know,
 *  or `error` (with the fallback) when the context is too costly to evaluate (the server's 400
 *  EVALUATION_TOO_COSTLY: long attribute values tested by many patterns). */
export interface Evaluation {
  value: Json
  type: ValueType
  reason: EvaluationResult['reason'] | 'missing' | 'error'
  /** only for flags with variants: the variant served (null: the off value) */
  variant?: string | null
}

/** What a definitions update changed (keys added, changed or removed). */
export interface ChangeEvent {
  version: number
  flags: string[]
  configs: string[]
}

/** The part of fetch the SDK uses (so any fetch-compatible function fits). */
export type FetchLike = (url: string, init?: RequestInit) => Promise<Response>

export interface UsageOptions {
  /** how often counts are sent (default 60 s) */
  intervalMs?: number
}

export interface ClientOptions {
  /** `local` (the default): evaluate in process from the definitions, which needs a token with read:flags
   *  and/or read:configs. A client key needs `mode: "remote"` (RemoteClientOptions). */
  mode?: 'local'
  /** the service's base URL, e.g. https://flags.example.com */
  url?: string
  /** a token with read:flags and/or read:configs */
  token?: string
  /** the default `context.environment`; also narrows the definitions fetched to this environment */
  environment?: string
  /** follow the change stream (default true); false polls only */
  stream?: boolean
  /** a fetch implementation (default: the global fetch) */
  fetch?: FetchLike
  /** a definitions document to start from: ready at once, no server needed (serverless, tests, offline);
   *  a flags-as-code document (`flagship: 1`, as `flagship export` writes it, parsed) is accepted too */
  bootstrap?: Definitions | FlagshipDocumentInput
  /** per request, and how long ready() waits for the first definitions (default 10 s) */
  timeoutMs?: number
  /** polling period when streaming is off or the stream is down (default 30 s) */
  pollIntervalMs?: number
  /** reconnection backoff of the stream: first delay and cap (defaults 500 ms and 30 s; jittered) */
  retry?: { initialMs?: number; maxMs?: number }
  /** send evaluation counts to POST /api/v1/usage (default true, every minute; false: counts are only kept
   *  in memory, see usageCounts()) */
  usage?: boolean | UsageOptions
  /** send track() events and the exposures of flags in running experiments to POST /api/v1/events
   *  (default true: every 5 s or 500 events, and at close(); false: they are only kept, see pendingEvents()) */
  events?: boolean | EventOptions
}

/** One row of a usage batch (POST /api/v1/usage `{ counts: [...] }`). */
export interface UsageCount {
  key: string
  /** the context's environment when it is one of the project's, else '' */
  environment: string
  /** off, override, rule-<n>, rollout or default; for a flag with variants, the variant's name */
  variant: string
  count: number
  /** ISO 8601: the window the counts cover */
  from: string
  to: string
}
