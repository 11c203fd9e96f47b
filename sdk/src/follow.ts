// Following a service, for both clients (sync.ts: the definitions of local mode; remote.ts: OFREP's values of
// remote mode): one fetch at a time (whatever asks for one while a fetch is in flight gets one more after it),
// a change stream whose events ask for a fetch, polling while the stream is off or down, reconnection with
// capped, jittered exponential backoff, and a watchdog that drops a stream gone silent. What each fetches,
// and what its stream says, stays with it.

import { readEvents, type SseEvent } from './sse'
import { HttpError } from './http-error'
import type { FetchLike } from './types'

/** Heartbeats come every 15 s; a stream silent for three of them is dead even if no error says so. */
const STREAM_SILENCE_MS = 45_000

export interface FollowOptions {
  /** one fetch; reports its own failures and never rejects */
  fetchOnce(): Promise<void>
  /** the change stream to follow (`url` answered with text/event-stream), or undefined to poll only */
  stream:
    | {
        url: string
        /** the request as messages name it: `GET /api/v1/stream` */
        name: string
        token: string
        fetch: FetchLike
        /** `connect`: open means caught up (OFREP's stream); `ready`: once the stream says `ready` (ours) */
        caughtUp: 'connect' | 'ready'
        /** whether an event asks for a fetch */
        asksForFetch(event: SseEvent): boolean
        /** fetch once more as soon as the stream drops (before reconnecting) */
        fetchOnDrop: boolean
      }
    | undefined
  pollIntervalMs: number
  retryInitialMs: number
  retryMaxMs: number
  onError(error: unknown): void
}

export class Follower {
  closed = false
  private inFlight: Promise<void> | undefined
  private again = false
  /** a stream is open and caught up: polling pauses */
  private streaming = false
  private attempts = 0
  private abort: AbortController | undefined
  private pollTimer: ReturnType<typeof setInterval> | undefined
  private retryTimer: ReturnType<typeof setTimeout> | undefined
  private silenceTimer: ReturnType<typeof setTimeout> | undefined

  constructor(private readonly o: FollowOptions) {}

  start(): void {
    void this.refresh()
    if (this.o.stream !== undefined) void this.connect(this.o.stream)
    this.pollTimer = setInterval(() => {
      if (!this.streaming) void this.refresh()
    }, this.o.pollIntervalMs)
  }

  close(): void {
    this.closed = true
    clearInterval(this.pollTimer)
    clearTimeout(this.retryTimer)
    clearTimeout(this.silenceTimer)
    this.abort?.abort()
  }

  /** Fetches now, or once more after the fetch in flight; resolves when done (never rejects). */
  refresh(): Promise<void> {
    if (this.inFlight !== undefined) {
      this.again = true
      return this.inFlight
    }
    this.inFlight = (async () => {
      do {
        this.again = false
        await this.o.fetchOnce()
      } while (this.again && !this.closed)
    })().finally(() => (this.inFlight = undefined))
    return this.inFlight
  }

  private async connect(stream: NonNullable<FollowOptions['stream']>): Promise<void> {
    if (this.closed) return
    const abort = (this.abort = new AbortController())
    try {
      const response = await stream.fetch(stream.url, {
        headers: { authorization: `Bearer ${stream.token}`, accept: 'text/event-stream' },
        signal: abort.signal,
      })
      if (!response.ok || response.body === null) {
        await response.body?.cancel()
        throw new HttpError(response.status, `${stream.name} answered ${response.status}`)
      }
      this.hearFrom(abort)
      if (stream.caughtUp === 'connect') this.caughtUp()
      await readEvents(
        response.body,
        (e) => {
          if (stream.caughtUp === 'ready' && e.event === 'ready') {
            this.streaming = true
            this.attempts = 0
          }
          if (stream.asksForFetch(e)) void this.refresh()
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
    // Until the stream is back, polling keeps the values fresh.
    if (stream.fetchOnDrop) void this.refresh()
    const delay = Math.min(this.o.retryMaxMs, this.o.retryInitialMs * 2 ** this.attempts++)
    this.retryTimer = setTimeout(() => void this.connect(stream), delay * (0.5 + Math.random() / 2))
  }

  /** Open and caught up: polling pauses, the backoff starts over, and one fetch covers what was missed. */
  private caughtUp(): void {
    this.streaming = true
    this.attempts = 0
    void this.refresh()
  }

  private hearFrom(abort: AbortController): void {
    clearTimeout(this.silenceTimer)
    this.silenceTimer = setTimeout(
      () => abort.abort(new Error(`the change stream was silent for ${STREAM_SILENCE_MS / 1000} s`)),
      STREAM_SILENCE_MS,
    )
  }
}
