// flagship-sdk: evaluate Flagship flags in process with the server's own engine, kept fresh by the change
// stream (or polling), able to start from a bootstrap document with no server at all.
import { FlagshipClient } from './client'
import { RemoteClient, type RemoteClientOptions } from './remote'
import type { ClientOptions } from './types'

export { FlagshipClient } from './client'
export { RemoteClient, type RemoteClientOptions, type RemoteEvaluation } from './remote'
export type {
  ChangeEvent,
  ClientOptions,
  Context,
  Definitions,
  Evaluation,
  EvaluationContext,
  FetchLike,
  EvaluationResult,
  Json,
  StoredConfig,
  StoredFlag,
  StoredSegment,
  UsageCount,
  UsageOptions,
  ValueType,
  EventOptions,
  RunningExperiment,
} from './types'
export type { EventItem } from './events'

/** A client; call `ready()` before relying on its answers (with `bootstrap` they are there at once).
 *  `mode: "remote"` (for a client key, in pages and apps): the service evaluates one context's values and
 *  the client keeps them fresh; otherwise (local mode) the client evaluates in process from definitions. */
export function createClient(options: RemoteClientOptions): RemoteClient
export function createClient(options: ClientOptions): FlagshipClient
export function createClient(options: ClientOptions | RemoteClientOptions): FlagshipClient | RemoteClient {
  return options.mode === 'remote' ? new RemoteClient(options) : new FlagshipClient(options)
}
