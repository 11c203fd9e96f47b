// Keeps a client's definitions fresh: GET /api/v1/definitions with If-None-Match (a 304 costs nothing), on
// every event of the change stream and, while the stream is off or down, every poll interval. Requests never
// overlap: what arrives while one is in flight is coalesced into one more afterwards. A dropped stream
// reconnects with capped, jittered exponential backoff; its `ready` event triggers a refetch, which is the
// catch-up (so Last-Event-ID replay is not needed: one refetch covers any number of missed changes).

import { readEvents } from './sse'
import type { FetchLike } from './types'

/** Heartbeats come every 15 s; a stream silent for three of them is dead even if no error says so. */
const STREAM_SILENCE_MS = 45_000

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

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

export class Sync {
  private etag: string | undefined
  private inFlight: Promise<void> | undefined
  private again = false
  private closed = false
  /** a stream is open and has said `ready`: polling pauses */
  private streaming = false
  private attempts = 0
  private stream: AbortController | undefined
  private pollTimer: ReturnType<typeof setInterval> | undefined
  private retryTimer: ReturnType<typeof setTimeout> | undefined
  private silenceTimer: ReturnType<typeof setTimeout> | undefined

  constructor(private readonly o: SyncOptions) {}

  start(): void {
    void this.refresh()
    if (this.o.stream) void this.connect()
    this.pollTimer = setInterval(() => {
      if (!this.streaming) void this.refresh()
    }, this.o.pollIntervalMs)
  }

  close(): void {
    this.closed = true
    clearInterval(this.pollTimer)
    clearTimeout(this.retryTimer)
    clearTimeout(this.silenceTimer)
    this.stream?.abort()
  }

  /** Fetches the definitions now, or once more after the fetch in flight; resolves when done (never rejects). */
  refresh(): Promise<void> {
    if (this.inFlight !== undefined) {
      this.again = true
      return this.inFlight
    }
    this.inFlight = (async () => {
      do {
        this.again = false
        await this.fetchOnce()
      } while (this.again && !this.closed)
    })().finally(() => (this.inFlight = undefined))
    return this.inFlight
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
      if (!this.closed) this.o.onError(error)
    }
  }

  private async connect(): Promise<void> {
    if (this.closed) return
    const abort = (this.stream = new AbortController())
    try {
      const response = await this.o.fetch(`${this.o.url}/api/v1/stream`, {
        headers: { authorization: `Bearer ${this.o.token}`, accept: 'text/event-stream' },
        signal: abort.signal,
      })
      if (!response.ok || response.body === null) {
        await response.body?.cancel()
        throw new HttpError(response.status, `GET /api/v1/stream answered ${response.status}`)
      }
      this.hearFrom(abort)
      await readEvents(
        response.body,
        (e) => {
          if (e.event === 'ready') {
            this.streaming = true
            this.attempts = 0
          }
          // ready (after a reconnect: catch up), change, reset: the definitions may differ from ours.
          if (e.event === 'ready' || e.event === 'change' || e.event === 'reset') void this.refresh()
        },
        () => this.hearFrom(abort),
      )
    } catch (error) {
      if (!this.closed) this.o.onError(error)
    } finally {
      this.streaming = false
      clearTimeout(this.silenceTimer)
    }
    if (this.closed) return
    // Until the stream is back, polling keeps the definitions fresh; refetch now in case a change was missed.
    void this.refresh()
    const delay = Math.min(this.o.retryMaxMs, this.o.retryInitialMs * 2 ** this.attempts++)
    this.retryTimer = setTimeout(() => void this.connect(), delay * (0.5 + Math.random() / 2))
  }

  private hearFrom(abort: AbortController): void {
    clearTimeout(this.silenceTimer)
    this.silenceTimer = setTimeout(
      () => abort.abort(new Error(`the change stream was silent for ${STREAM_SILENCE_MS / 1000} s`)),
      STREAM_SILENCE_MS,
    )
  }
}
