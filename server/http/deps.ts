// What the HTTP layer is built from; the composition root (server/index.ts) makes each part and
// createApp (app.ts) hands every route module only the parts it uses (`Pick<AppDeps, …>`).
import type { Snapshots } from '../cache/snapshots'
import type { Settings } from '../settings'
import type { Log } from '../log'
import type { Store } from '../store'
import type { Services } from '../services'
import type { ChangeHub } from '../streams/hub'
import type { TicketSigner } from '../streams/tickets'
import type { MetricsExposition } from '../metrics/exposition'
import type { OperationCounts } from '../metrics/counts'
import type { Authenticator } from './auth'
import type { RequestMetrics } from '../metrics/requests'
import type { RateLimiter } from './rate-limit'
import type { Identity } from '../identity/service'
import type { Access } from '../access/authorize'

/** What the service counts for GET /metrics, and the registry that exposes it. */
export interface ServiceMetrics {
  requests: RequestMetrics
  counts: OperationCounts
  exposition: MetricsExposition
}

export interface AppDeps {
  settings: Settings
  store: Store
  snapshots: Snapshots
  services: Services
  authenticator: Authenticator
  limiter: RateLimiter
  log: Log
  hub: ChangeHub
  tickets: TicketSigner
  metrics: ServiceMetrics
  /** people: sign-in, sessions, users (teams) */
  identity: Identity
  /** the one authorization function every route runs */
  access: Access
}

/** A relay's state as its routes read it (server/relay/ implements it). */
export interface RelayState {
  /** UPSTREAM_URL: named in the answer to every management route */
  upstreamUrl: string
  /** holds a project's definitions (from the upstream or its cache file) */
  ready(): boolean
  /** `connected` (following the stream), `polling` (stream lost, upstream answering), `unreachable`, or
   *  `starting` (nothing tried yet) */
  upstream(): 'connected' | 'polling' | 'unreachable' | 'starting'
  /** seconds since the definitions were last confirmed by the upstream (null: never) */
  dataAgeSeconds(): number | null
  /** the upstream's change number the relay is at */
  changeSequence(): number
  /** queues what a client sent to `path` (POST /usage, /events) for the upstream, in batches; `batchId`:
   *  a following relay's batch, taken once (false: already taken, nothing queued) */
  forward(path: string, items: readonly unknown[], batchId?: string): boolean
  /** forwarded batches: sent, waiting, and dropped from a full spool */
  batches(): { sent: number; pending: number; dropped: number }
}

/** What a relay's app is built from: the evaluation surface's parts, no store, services or people. */
export type RelayAppDeps = Omit<AppDeps, 'store' | 'services' | 'identity'> & { relay: RelayState }
