// flagship-sdk: evaluate Flagship flags in process with the server's own engine, kept fresh by the change
// stream (or polling), able to start from a bootstrap document with no server at all.
import { FlagshipClient } from './client'
import type { ClientOptions } from './types'

export { FlagshipClient } from './client'
export type { ChangeEvent, ClientOptions, Context, Definitions, Evaluation, EvaluationContext, FetchLike, EvaluationResult, Json, StoredConfig, StoredFlag, StoredSegment, UsageCount, UsageOptions, ValueType, EventOptions, RunningExperiment } from './types'
export type { EventItem } from './events'

/** A client; call `ready()` before relying on its answers (with `bootstrap` they are there at once). */
export function createClient(options: ClientOptions): FlagshipClient {
  return new FlagshipClient(options)
}
