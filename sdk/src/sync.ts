// Keeps a client's definitions fresh: GET /api/v1/definitions with If-None-Match (a 304 costs nothing), on
// every event of the change stream and, while the stream is off or down, every poll interval. Requests never
// overlap: what arrives while one is in flight is coalesced into one more afterwards. A dropped stream
// reconnects with capped, jittered exponential backoff; its `ready` event triggers a refetch, which is the
// catch-up (so Last-Event-ID replay is not needed: one refetch covers any number of missed changes).

import { Follower } from './follow'
import { HttpError } from './http-error'
import type { FetchLike } from './types'

export interface SyncOptions {
  url: string
  token: string
  environment: string | undefined
  stream: boolean
  fetch: FetchLike
  timeoutMs: number
  pollIntervalMs: number
  retryInitialMs: number
  retryMaxMs: number
  /** compiles and installs a fetched document; rejects when it is not a definitions document */
  apply(doc: unknown): Promise<void>
  onError(error: unknown): void
}

/** The change stream's events after which the definitions may differ from ours: `ready` (after a reconnect:
 *  the catch-up), `change` and `reset`. */
const REFETCH_ON = new Set(['ready', 'change', 'reset'])

export class Sync {
  private etag: string | undefined
  private readonly follower: Follower

  constructor(private readonly o: SyncOptions) {
    this.follower = new Follower({
      fetchOnce: () => this.fetchOnce(),
      stream: o.stream
        ? {
            url: `${o.url}/api/v1/stream`,
            name: 'GET /api/v1/stream',
            token: o.token,
            fetch: o.fetch,
            caughtUp: 'ready',
            asksForFetch: (e) => REFETCH_ON.has(e.event),
            // Until the stream is back, polling keeps the definitions fresh; refetch now in case a change was missed.
            fetchOnDrop: true,
          }
        : undefined,
      pollIntervalMs: o.pollIntervalMs,
      retryInitialMs: o.retryInitialMs,
      retryMaxMs: o.retryMaxMs,
      onError: o.onError,
    })
  }

  start(): void {
    this.follower.start()
  }

  close(): void {
    this.follower.close()
  }

  /** Fetches the definitions now, or once more after the fetch in flight; resolves when done (never rejects). */
  refresh(): Promise<void> {
    return this.follower.refresh()
  }

  private async fetchOnce(): Promise<void> {
    const { url, token, environment, timeoutMs } = this.o
    const query = environment === undefined ? '' : `?environment=${encodeURIComponent(environment)}`
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' }
    if (this.etag !== undefined) headers['if-none-match'] = this.etag
    try {
      const response = await this.o.fetch(`${url}/api/v1/definitions${query}`, { headers, signal: AbortSignal.timeout(timeoutMs) })
      if (response.status === 304) return void (await response.body?.cancel())
      if (!response.ok) {
        const text = (await response.text()).slice(0, 300)
        // A client key may not download definitions (rules, segments): local evaluation cannot work with it.
        if (response.status === 403 && text.includes('"client_key":true')) {
          throw new HttpError(
            403,
            'This token is a client key: it cannot download definitions for local evaluation. ' +
              'Create the client with mode: "remote" (createClient({ url, token, context, mode: "remote" })), ' +
              'or use a server token with read:flags in local mode.',
          )
        }
        throw new HttpError(response.status, `GET /api/v1/definitions answered ${response.status}: ${text}`)
      }
      const etag = response.headers.get('etag') ?? undefined
      await this.o.apply(await response.json())
      this.etag = etag
    } catch (error) {
      if (!this.follower.closed) this.o.onError(error)
    }
  }
}
