// The in-process client: evaluates with the server's own engine (server/engine, bundled) from a local copy of
// the definitions, kept fresh by sync.ts. evaluate() is the hot path: one map lookup, the compiled flag, one
// usage count; it never throws and never waits for the network.
import { EvaluationBudgetExceeded } from '../../server/engine/budget'
import { configValue } from '../../server/engine/documents'
import type { EvaluationContext, EvaluationResult, Json } from '../../server/engine/types'
import { typeOf } from '../../server/engine/value-type'
import { hasRegexEngine } from '../../server/engine/regex'
import { loadRegexEngine } from '../../server/engine/regex-loader'
import { buildState, checkDefinitions, usesRegex, type FlagEntry, type State } from './state'
import { Readiness } from './readiness'
import { Sync } from './sync'
import type { ChangeEvent, ClientOptions, Context, Definitions, Evaluation, FetchLike, UsageCount } from './types'
import { UsageSender, UsageTally, type FlagCounter } from './usage'
import { EventRecorder, type EventItem } from './events'

const hasOwn = Object.prototype.hasOwnProperty
const DEFAULT_TIMEOUT_MS = 10_000
const DEFAULT_POLL_MS = 30_000
const DEFAULT_USAGE_MS = 60_000
const DEFAULT_EVENTS_MS = 5_000
const DEFAULT_EVENT_BATCH = 500

type Listeners = { change: Set<(e: ChangeEvent) => void>; error: Set<(e: unknown) => void> }

const EMPTY_STATE: State = { version: 0, environments: new Set(), flags: new Map(), configs: new Map() }

/** Answers that retrying cannot fix: a bad token, a missing permission or project, an unknown environment. */

export class FlagshipClient {
  private state: State = EMPTY_STATE
  /** Prerequisites are looked up in the current state whenever they are evaluated. */
  private readonly resolveFlag = (key: string) => this.state.flags.get(key)?.compiled
  private readonly readiness = new Readiness()
  private readonly listeners: Listeners = { change: new Set(), error: new Set() }
  private readonly tally = new UsageTally()
  private readonly sync: Sync | undefined
  private readonly sender: UsageSender | undefined
  private readonly events: EventRecorder
  private environment: string | undefined
  /** an environment key's environment (from its definitions): a context naming another gets the fallback */
  private bound: string | undefined
  private emptyContext: EvaluationContext
  /** the context environment evaluate() last let through for the current definitions (install() forgets it) */
  private accepted: string | undefined
  private readonly timeoutMs: number
  private applying: Promise<void> = Promise.resolve()
  /** documents waiting for the regex engine */
  private waiting = 0

  constructor(options: ClientOptions) {
    const { url, token, bootstrap } = options
    if (bootstrap === undefined && (typeof url !== 'string' || typeof token !== 'string'))
      throw new TypeError('createClient needs { url, token }, or a bootstrap document')
    this.environment = options.environment
    this.emptyContext = Object.freeze(this.environment === undefined ? {} : { environment: this.environment })
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    const base = typeof url === 'string' ? url.replace(/\/+$/, '') : ''
    const fetchImpl: FetchLike = options.fetch ?? ((input, init) => fetch(input, init))
    // Events (track, exposures) are kept either way; sent unless switched off or there is no service.
    const eventOptions = typeof options.events === 'object' ? options.events : {}
    this.events = new EventRecorder(
      typeof url === 'string' && typeof token === 'string' && options.events !== false
        ? {
            url: base,
            token,
            fetch: fetchImpl,
            timeoutMs: this.timeoutMs,
            onError: (e) => this.emit('error', e),
            intervalMs: eventOptions.intervalMs ?? DEFAULT_EVENTS_MS,
            batchSize: eventOptions.batchSize ?? DEFAULT_EVENT_BATCH,
          }
        : undefined,
    )
    // A bad bootstrap document is a programming error: say so now rather than serve nothing.
    if (bootstrap !== undefined) this.apply(bootstrap).catch((e) => this.fail(e))
    if (typeof url !== 'string' || typeof token !== 'string') return
    this.sync = new Sync({
      url: base,
      token,
      environment: this.environment,
      stream: options.stream ?? true,
      fetch: fetchImpl,
      timeoutMs: this.timeoutMs,
      pollIntervalMs: options.pollIntervalMs ?? DEFAULT_POLL_MS,
      retryInitialMs: options.retry?.initialMs ?? 500,
      retryMaxMs: options.retry?.maxMs ?? 30_000,
      apply: (doc) => this.apply(doc),
      onError: (e) => this.fail(e),
    })
    this.sync.start()
    // Usage reporting is on unless switched off (`usage: false`); counts are kept either way.
    if (options.usage !== false) {
      this.sender = new UsageSender({
        url: base,
        token,
        fetch: fetchImpl,
        timeoutMs: this.timeoutMs,
        intervalMs: (typeof options.usage === 'object' ? options.usage.intervalMs : undefined) ?? DEFAULT_USAGE_MS,
        collect: () => this.collectUsage(true),
        restore: (rows) => this.tally.restore(rows),
        onError: (e) => this.emit('error', e),
      })
      this.sender.start()
    }
  }

  /** Resolves once definitions are loaded (at once with `bootstrap`); rejects on an answer retrying cannot
   *  fix (401, 403, 404, unknown environment) or after `timeoutMs`. The client keeps trying either way. */
  ready(): Promise<void> {
    return this.readiness.wait(this.timeoutMs, 'definitions')
  }

  /** The flag's evaluation for `context`, as GET /api/v1/flags/:key answers it; an unknown key (or no
   *  definitions yet) answers `fallback` with reason `missing`. Never throws. */
  evaluate(key: string, context?: Context | null, fallback: Json = null): Evaluation {
    const entry = this.state.flags.get(key)
    if (entry === undefined) return { value: fallback, type: typeOf(fallback), reason: 'missing' }
    try {
      let ctx = context === undefined || context === null ? this.emptyContext : context
      const environment = ctx.environment
      if (environment === undefined) {
        if (this.environment !== undefined) ctx = this.withEnvironment(ctx)
      } else if (environment !== this.accepted) {
        // An environment key's definitions hold its environment only: another one cannot be answered here
        // (the service refuses it: 403 ENVIRONMENT_MISMATCH).
        if (this.bound !== undefined && environment !== this.bound) return { value: fallback, type: typeOf(fallback), reason: 'error' }
        // An environment the project does not list is refused by the service (400 UNKNOWN_ENVIRONMENT), never
        // answered with the main switch: here, the fallback (an empty name names none).
        const environments = this.state.environments
        if (environment !== '' && environments.size > 0 && !environments.has(environment as string))
          return { value: fallback, type: typeOf(fallback), reason: 'error' }
        // Contexts of one application name the same environment call after call: checked once per definitions.
        if (typeof environment === 'string') this.accepted = environment
      }
      const result = entry.compiled.evaluate(ctx)
      entry.counter.record(ctx.environment, result)
      this.events.exposure(key, entry.compiled, result, ctx)
      return result
    } catch (e) {
      // The engine's work budget (server/engine/budget.ts): the caller's fallback, as for a missing flag.
      if (e instanceof EvaluationBudgetExceeded) return { value: fallback, type: typeOf(fallback), reason: 'error' }
      // Only a hostile context (a throwing getter) gets here; the engine answers it as it always does.
      return entry.compiled.evaluate(context as EvaluationContext)
    }
  }

  /** The compiled flag, the context as evaluated (the client's environment applied) and the result,
   *  counted as an evaluation; undefined for an unknown key. For the OpenFeature providers. @internal */
  resolve(key: string, context: EvaluationContext): { entry: FlagEntry; context: EvaluationContext; result: EvaluationResult } | undefined {
    const entry = this.state.flags.get(key)
    if (entry === undefined) return undefined
    const ctx = this.environment !== undefined && context.environment === undefined ? this.withEnvironment(context) : context
    const result = entry.compiled.evaluate(ctx)
    entry.counter.record(ctx.environment, result)
    this.events.exposure(key, entry.compiled, result, ctx)
    return { entry, context: ctx, result }
  }

  /** A config's value in `environment` (default: the client's), or undefined for an unknown key. */
  config(key: string, environment: string | undefined = this.environment): Json | undefined {
    const config = this.state.configs.get(key)
    return config === undefined ? undefined : configValue(config, environment)
  }

  /** Every flag and config for one context, as POST /api/v1/evaluate answers with no lists. */
  evaluateAll(context?: Context | null): { flags: Record<string, Json>; configs: Record<string, Json> } {
    const flags: Record<string, Json> = {}
    const configs: Record<string, Json> = {}
    for (const key of this.state.flags.keys()) flags[key] = this.evaluate(key, context).value
    let environment: unknown
    try {
      environment = context?.environment ?? this.environment
    } catch {}
    for (const [key, config] of this.state.configs)
      configs[key] = configValue(config, typeof environment === 'string' ? environment : undefined)
    return { flags, configs }
  }

  /** Listens for definition changes (`change`) or failures to reach the service (`error`); returns the
   *  unsubscribe function. */
  on(event: 'change', listener: (e: ChangeEvent) => void): () => void
  on(event: 'error', listener: (e: unknown) => void): () => void
  on(event: 'change' | 'error', listener: (e: never) => void): () => void {
    const set = this.listeners[event] as Set<unknown>
    set.add(listener)
    return () => void set.delete(listener)
  }

  /** The project's change number of the definitions in use (0 before any). */
  get version(): number {
    return this.state.version
  }

  /** The evaluation counts not yet sent, by flag, environment and variant. */
  usageCounts(): UsageCount[] {
    return this.collectUsage(false)
  }

  /** Records that the unit of `context` did `key` (an event key), with `value` (a finite number, default 1),
   *  for experiments' metrics; sent with the next batch of events. Never waits. */
  track(key: string, context?: Context | null, value?: number): void {
    let ctx = context === undefined || context === null ? this.emptyContext : context
    if (this.environment !== undefined && ctx.environment === undefined) ctx = this.withEnvironment(ctx)
    this.events.track(key, ctx, value)
  }

  /** The events (track and exposures) not yet sent. */
  pendingEvents(): readonly EventItem[] {
    return this.events.pending()
  }

  /** Sends the events recorded so far now (they go every 5 s or 500 events anyway). */
  flushEvents(): Promise<void> {
    return this.events.flush()
  }

  /** Stops the stream, polling and the usage and event timers; sends the last usage batch and the events
   *  not yet sent when sending is on. */
  async close(): Promise<void> {
    this.sync?.close()
    this.sender?.stop()
    await Promise.all([this.sender?.flush(), this.events.close()])
  }

  /** The context with the client's environment added. A copied loop, not `{ ...ctx, environment }`: V8
   *  runs that spread (the added key makes it the generic path) an order of magnitude slower, and this is
   *  on every evaluation of a client with a default environment. Own enumerable string keys, as the spread
   *  copies; an own `__proto__` key stays a plain property. */
  private withEnvironment(ctx: EvaluationContext): EvaluationContext {
    if (typeof ctx !== 'object') return this.emptyContext
    const out: Record<string, unknown> = {}
    const from = ctx as Record<string, unknown>
    for (const k in from) {
      if (!hasOwn.call(from, k)) continue
      if (k === '__proto__') Object.defineProperty(out, k, { value: from[k], enumerable: true, writable: true, configurable: true })
      else out[k] = from[k]
    }
    out.environment = this.environment
    return out as EvaluationContext
  }

  private collectUsage(take: boolean): UsageCount[] {
    for (const entry of this.state.flags.values()) entry.counter.drainInto(this.tally)
    return take ? this.tally.take() : this.tally.peek()
  }

  /** Installs a document: at once when it can be (so a bootstrapped client answers right after
   *  createClient), else after the regex engine has loaded; in order either way, so a document that
   *  waits is never overtaken by a later one. Throws (or rejects) for a document of the wrong shape. */
  private apply(raw: unknown): Promise<void> {
    const doc = checkDefinitions(raw)
    if (this.waiting === 0 && (!usesRegex(doc) || hasRegexEngine())) {
      this.install(doc)
      return Promise.resolve()
    }
    this.waiting++
    const next = this.applying.then(async () => {
      try {
        if (usesRegex(doc)) await loadRegexEngine()
        this.install(doc)
      } finally {
        this.waiting--
      }
    })
    // The chain goes on after a failure; the caller (sync.ts, or the bootstrap) sees it.
    this.applying = next.catch(() => {})
    return next
  }

  private install(doc: Definitions): void {
    // An environment key's environment is the client's default (a different one configured was refused by
    // the service already).
    if (doc.environment !== undefined && this.bound !== doc.environment) {
      this.bound = doc.environment
      this.environment = doc.environment
      this.emptyContext = Object.freeze({ environment: doc.environment })
    }
    this.accepted = undefined
    const { state, change, retired } = buildState(doc, this.readiness.loaded ? this.state : undefined, this.resolveFlag)
    retired.forEach((c: FlagCounter) => c.drainInto(this.tally))
    const first = !this.readiness.loaded
    this.state = state
    this.events.watch(doc.experiments, doc.release_plans)
    this.readiness.markLoaded()
    if (!first && (change.flags.length > 0 || change.configs.length > 0)) this.emit('change', change)
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
        // A listener's bug must not stop the SDK; it is reported, once, to the error listeners.
        if (event === 'change') this.emit('error', e)
      }
    }
  }
}
