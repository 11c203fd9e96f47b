// The remote mode (docs/sdk.md "Which mode"): for pages and apps holding a client key, which may not download
// definitions. The service evaluates; the client keeps the evaluated values of ONE context fresh: OFREP's
// bulk evaluation (POST /ofrep/v1/evaluate/flags) with If-None-Match (a 304 costs nothing), fetched again on
// every event of OFREP's change stream and, while the stream is down, every poll interval. evaluate() reads
// the last values synchronously: it never throws and never waits for the network.
import type { Json, ValueType } from '../../server/engine/types'
import { typeOf } from '../../server/engine/value-type'
import { Follower } from './follow'
import { HttpError } from './http-error'
import { isFatal, Readiness } from './readiness'
import type { Context, FetchLike } from './types'

const DEFAULT_TIMEOUT_MS = 10_000
const DEFAULT_POLL_MS = 30_000

export interface RemoteClientOptions {
  /** the service's base URL, e.g. https://flags.example.com */
  url: string
  /** a client key (or any token that may evaluate flags) */
  token: string
  /** the one context whose values are kept fresh (change it with setContext) */
  context?: Context
  mode: 'remote'
  /** follow OFREP's change stream (default true); false polls only */
  stream?: boolean
  fetch?: FetchLike
  /** per request, and how long ready() waits for the first values (default 10 s) */
  timeoutMs?: number
  /** polling period when streaming is off or the stream is down (default 30 s) */
  pollIntervalMs?: number
  /** reconnection backoff of the stream (defaults 500 ms and 30 s; jittered) */
  retry?: { initialMs?: number; maxMs?: number }
}

/** One flag's value as the service evaluated it for the client's context (OFREP's reason and variant). */
export interface RemoteEvaluation {
  value: Json
  type: ValueType
  /** OFREP's: STATIC, DEFAULT, TARGETING_MATCH, SPLIT, DISABLED; `missing` for a key not received */
  reason: string
  variant?: string
}

interface OfrepEntry {
  key: string
  value?: Json
  reason?: string
  variant?: string
  errorCode?: string
}

/** Our context as OFREP's: `user_id` is `targetingKey`; `custom`'s attributes go to the top level (the
 *  service puts every other attribute in `custom` again, where conditions find them). */
export function ofrepContextOf(context: Context | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (!context) return out
  for (const [name, value] of Object.entries(context)) {
    if (name === 'user_id') out.targetingKey = value
    else if (name === 'custom' && value && typeof value === 'object') Object.assign(out, value)
    else out[name] = value
  }
  return out
}

export class RemoteClient {
  private values = new Map<string, RemoteEvaluation>()
  private context: Context | undefined
  private etag: string | undefined
  private readonly follower: Follower
  private readonly readiness = new Readiness()
  private readonly listeners = { change: new Set<(keys: string[]) => void>(), error: new Set<(e: unknown) => void>() }
  private readonly base: string
  private readonly fetchImpl: FetchLike
  private readonly timeoutMs: number

  constructor(private readonly o: RemoteClientOptions) {
    if (typeof o.url !== 'string' || typeof o.token !== 'string')
      throw new TypeError('createClient({ mode: "remote" }) needs { url, token }')
    this.base = o.url.replace(/\/+$/, '')
    this.fetchImpl = o.fetch ?? ((input, init) => fetch(input, init))
    this.timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS
    this.context = o.context
    this.follower = new Follower({
      fetchOnce: () => this.fetchOnce(),
      stream:
        (o.stream ?? true)
          ? {
              url: `${this.base}/ofrep/v1/stream`,
              name: 'GET /ofrep/v1/stream',
              token: o.token,
              fetch: this.fetchImpl,
              // Connected: catch up on anything missed while the stream was not open; then every event refetches.
              caughtUp: 'connect',
              asksForFetch: () => true,
              fetchOnDrop: false,
            }
          : undefined,
      pollIntervalMs: o.pollIntervalMs ?? DEFAULT_POLL_MS,
      retryInitialMs: o.retry?.initialMs ?? 500,
      retryMaxMs: o.retry?.maxMs ?? 30_000,
      onError: (e) => this.fail(e),
    })
    this.follower.start()
  }

  /** Resolves once the first values are in; rejects on an answer retrying cannot fix (401, 403, 404, a
   *  context the service refuses) or after `timeoutMs`. */
  ready(): Promise<void> {
    return this.readiness.wait(this.timeoutMs, 'values')
  }

  /** The flag's value for the client's context, as last received; `fallback` (reason `missing`) for a key
   *  not received (unknown, not available to client keys, or no values yet). Never throws. */
  evaluate(key: string, fallback: Json = null): RemoteEvaluation {
    return this.values.get(key) ?? { value: fallback, type: typeOf(fallback), reason: 'missing' }
  }

  /** Every value received, by flag key. */
  all(): Record<string, Json> {
    return Object.fromEntries([...this.values].map(([key, e]) => [key, e.value]))
  }

  /** Evaluates for another context from now on (a user signed in); resolves once its values are in. */
  async setContext(context: Context | undefined): Promise<void> {
    this.context = context
    this.etag = undefined
    await this.refresh()
    if (isFatal(this.readiness.failure)) throw this.readiness.failure
  }

  /** `change`: the keys whose value changed; `error`: a failure to reach the service. Returns the
   *  unsubscribe function. */
  on(event: 'change', listener: (keys: string[]) => void): () => void
  on(event: 'error', listener: (e: unknown) => void): () => void
  on(event: 'change' | 'error', listener: (e: never) => void): () => void {
    const set = this.listeners[event] as Set<unknown>
    set.add(listener)
    return () => void set.delete(listener)
  }

  /** Stops the stream and polling. */
  async close(): Promise<void> {
    this.follower.close()
  }

  /** Fetches the values now, or once more after the fetch in flight (requests never overlap). */
  refresh(): Promise<void> {
    return this.follower.refresh()
  }

  private async fetchOnce(): Promise<void> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.o.token}`,
      'content-type': 'application/json',
      accept: 'application/json',
    }
    if (this.etag !== undefined) headers['if-none-match'] = this.etag
    try {
      const response = await this.fetchImpl(`${this.base}/ofrep/v1/evaluate/flags`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ context: ofrepContextOf(this.context) }),
        signal: AbortSignal.timeout(this.timeoutMs),
      })
      if (response.status === 304) return void (await response.body?.cancel())
      if (!response.ok)
        throw new HttpError(
          response.status,
          `POST /ofrep/v1/evaluate/flags answered ${response.status}: ${(await response.text()).slice(0, 300)}`,
        )
      const etag = response.headers.get('etag') ?? undefined
      this.install(((await response.json()) as { flags?: OfrepEntry[] }).flags ?? [])
      this.etag = etag
      this.readiness.failure = undefined
    } catch (error) {
      if (!this.follower.closed) this.fail(error)
    }
  }

  private install(entries: OfrepEntry[]): void {
    const next = new Map<string, RemoteEvaluation>()
    for (const e of entries) {
      // A flag the service could not evaluate for this context (an error entry) reads as missing.
      if (e.errorCode !== undefined || e.value === undefined) continue
      next.set(e.key, {
        value: e.value,
        type: typeOf(e.value),
        reason: e.reason ?? 'UNKNOWN',
        ...(e.variant !== undefined && { variant: e.variant }),
      })
    }
    const changed = [...new Set([...next.keys(), ...this.values.keys()])].filter(
      (k) => JSON.stringify(next.get(k)) !== JSON.stringify(this.values.get(k)),
    )
    const first = !this.readiness.loaded
    this.values = next
    this.readiness.markLoaded()
    if (!first && changed.length) this.emit('change', changed)
  }

  private fail(error: unknown): void {
    this.readiness.fail(error)
    this.emit('error', error)
  }

  private emit(event: 'change' | 'error', payload: unknown): void {
    for (const listener of this.listeners[event]) {
      try {
        ;(listener as (p: unknown) => void)(payload)
      } catch (e) {
        if (event === 'change') this.emit('error', e)
      }
    }
  }
}
