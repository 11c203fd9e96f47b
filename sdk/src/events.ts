// Experiments in the SDK (docs/experiments.md §1): `track()` events, and the exposures of flags in running
// experiments (the definitions name them), recorded as evaluate() serves them: once per unit, flag and
// variant (a bounded memory of what was sent), only for units the split decided. Events wait in a bounded
// queue and go to POST /api/v1/events in batches, every `intervalMs` (5 s) or as soon as `batchSize` (500)
// are waiting, and at close(); a batch that fails for a reason retrying can fix is sent again later.
// Nothing here ever blocks or throws into an evaluation.
import { attributeKey, compileAccessor, type PropertyAccessor } from '../../server/engine/context'
import type { CompiledFlag, EvaluationContext, EvaluationResult } from '../../server/engine/types'
import type { FetchLike, MeasuredReleasePlan, RunningExperiment } from './types'

/** One item of POST /api/v1/events. */
export type EventItem =
  | { type: 'track'; key: string; context: EvaluationContext; value?: number; timestamp: string }
  | { type: 'exposure'; flag: string; variant: string; context: EvaluationContext; timestamp: string }

/** Events held at most while the service cannot be reached (the oldest go first beyond it). */
export const MAX_QUEUED = 10_000
/** (unit, flag, variant) triples remembered as sent; the oldest are forgotten beyond it (sent again if seen). */
export const MAX_REMEMBERED = 100_000
/** The service's bounds per request: items and bytes (with room for the envelope). */
const MAX_ITEMS = 1_000
const MAX_BYTES = 900_000

interface Watched {
  environment: string
  unitOf: PropertyAccessor
  unit: string
  /** a release plan's flag: the arm is OFREP's branch, `rollout` (inside) or `off` (outside) */
  release?: true
  /** a release plan on a flag with variants: the new variant */
  variant?: string
  /** a release plan: its current step's percentage (the variant's weight); absent from an older server */
  percentage?: number
}

export interface EventOptions {
  url: string
  token: string
  fetch: FetchLike
  intervalMs: number
  batchSize: number
  timeoutMs: number
  onError(error: unknown): void
}

/** A release plan's arm for a result: `rollout` (the new value or variant) or `off`, when the rollout decided it
 *  at the plan's current step: the definitions' flag and plan can disagree for a while (the server reloads the
 *  two one after the other), and a unit served at another percentage would skew the step's phase. */
function releaseArm(x: Watched, compiled: CompiledFlag, result: EvaluationResult): string | undefined {
  if (result.reason !== 'rollout') return undefined
  const served = compiled.forEnvironment(x.environment)
  if (x.percentage !== undefined && served.rolloutShare(x.variant) !== x.percentage) return undefined
  if (x.variant !== undefined) return compiled.decidedBySplit(result) ? (result.variant === x.variant ? 'rollout' : 'off') : undefined
  return served.branchOf(result) === 'rollout' ? 'rollout' : 'off'
}

export class EventRecorder {
  /** flag key -> the running experiments on it (usually one environment) */
  private watched = new Map<string, Watched[]>()
  private readonly seen = new Map<string, true>()
  private queue: EventItem[] = []
  private dropped = 0
  private timer: ReturnType<typeof setInterval> | undefined
  private chain: Promise<void> = Promise.resolve()
  private sending = false

  constructor(private readonly o: EventOptions | undefined) {
    if (!o) return
    this.timer = setInterval(() => void this.flush(), o.intervalMs)
    // Recording must never keep a Node process alive on its own.
    ;(this.timer as { unref?: () => void }).unref?.()
  }

  /** The running experiments of a new definitions document. */
  watch(experiments: readonly RunningExperiment[] | undefined, releasePlans?: readonly MeasuredReleasePlan[]): void {
    const watched = new Map<string, Watched[]>()
    const add = (
      x: { flag?: unknown; environment?: unknown; unit?: unknown; variant?: unknown; percentage?: unknown } | undefined,
      release: boolean,
    ) => {
      if (typeof x?.flag !== 'string' || typeof x.environment !== 'string' || typeof x.unit !== 'string') return
      const variant = release && typeof x.variant === 'string' ? { variant: x.variant } : {}
      const percentage = release && typeof x.percentage === 'number' ? { percentage: x.percentage } : {}
      watched.set(x.flag, [
        ...(watched.get(x.flag) ?? []),
        {
          environment: x.environment,
          unit: x.unit,
          unitOf: compileAccessor(x.unit),
          ...(release && { release: true as const }),
          ...variant,
          ...percentage,
        },
      ])
    }
    for (const x of experiments ?? []) add(x, false)
    for (const x of releasePlans ?? []) add(x, true)
    this.watched = watched
  }

  /** After an evaluation: records the exposure when the flag is in a running experiment in the context's
   *  environment and the split decided the unit, or under a release plan there and the rollout decided it.
   *  One map lookup otherwise. */
  exposure(key: string, compiled: CompiledFlag, result: EvaluationResult, context: EvaluationContext): void {
    if (this.watched.size === 0) return
    const list = this.watched.get(key)
    if (list === undefined) return
    try {
      for (const x of list) {
        if (x.environment !== context.environment) continue
        // an experiment counts the split's units by variant; a release plan the rollout's, inside or not
        const variant = x.release
          ? releaseArm(x, compiled, result)
          : compiled.decidedBySplit(result) && typeof result.variant === 'string'
            ? result.variant
            : undefined
        if (variant === undefined) continue
        const unit = attributeKey(x.unitOf(context))
        if (unit === undefined) continue
        const id = `${key}\u0000${variant}\u0000${unit}`
        if (this.seen.has(id)) continue
        this.seen.set(id, true)
        if (this.seen.size > MAX_REMEMBERED) this.seen.delete(this.seen.keys().next().value!)
        this.push({
          type: 'exposure',
          flag: key,
          variant,
          context: { [x.unit]: unit, environment: x.environment } as EvaluationContext,
          timestamp: new Date().toISOString(),
        })
      }
    } catch {
      // a hostile context (a throwing getter): no exposure
    }
  }

  /** Something a unit did: `value` a finite number (default 1). */
  track(key: string, context: EvaluationContext, value?: number): void {
    if (typeof key !== 'string' || key.length === 0) throw new TypeError('track(key, context, value?) needs an event key')
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value)))
      throw new TypeError('track(): value must be a finite number')
    this.push({ type: 'track', key, context, ...(value !== undefined && { value }), timestamp: new Date().toISOString() })
  }

  /** Events not sent yet (tests, and a client without a service). */
  pending(): readonly EventItem[] {
    return this.queue
  }

  /** Sends what is queued, after any send under way. */
  flush(): Promise<void> {
    if (!this.o) return Promise.resolve()
    this.chain = this.chain.then(() => this.send())
    return this.chain
  }

  async close(): Promise<void> {
    clearInterval(this.timer)
    await this.flush()
  }

  private push(item: EventItem): void {
    this.queue.push(item)
    if (this.queue.length > MAX_QUEUED) {
      this.queue.splice(0, this.queue.length - MAX_QUEUED)
      if (this.dropped++ === 0) this.o?.onError(new Error(`more than ${MAX_QUEUED} events waiting to be sent; the oldest are dropped`))
    }
    // A full batch goes now, off the evaluation's path.
    if (this.o && !this.sending && this.queue.length >= this.o.batchSize) {
      this.sending = true
      setTimeout(() => void this.flush().finally(() => (this.sending = false)), 0)
    }
  }

  private async send(): Promise<void> {
    const o = this.o!
    while (this.queue.length) {
      const batch: EventItem[] = []
      let bytes = 0
      for (const item of this.queue) {
        const size = JSON.stringify(item).length + 1
        if (batch.length && (batch.length >= MAX_ITEMS || bytes + size > MAX_BYTES)) break
        batch.push(item)
        bytes += size
      }
      this.queue = this.queue.slice(batch.length)
      try {
        const response = await o.fetch(`${o.url}/api/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${o.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ events: batch }),
          signal: AbortSignal.timeout(o.timeoutMs),
        })
        // Refused as such (400: an event too old, a flag changed): never taken, so dropped (the answer says
        // why). Outages and 429s wait.
        if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
          const why = (await response.text().catch(() => '')).slice(0, 500)
          o.onError(new Error(`POST /api/v1/events answered ${response.status}; ${batch.length} events are dropped: ${why}`))
          continue
        }
        await response.body?.cancel()
        if (!response.ok) throw new Error(`POST /api/v1/events answered ${response.status}`)
      } catch (error) {
        // This batch goes first next time (the queue's bound still applies).
        this.queue = [...batch, ...this.queue].slice(-MAX_QUEUED)
        o.onError(error)
        return
      }
    }
  }
}
