// Evaluation counts per flag, environment and variant. Counting sits on the evaluate path, so it is one
// counter bump found by the result object's identity (the engine makes one frozen result per branch at
// compile time); the variant names are looked up only when counts are drained, at send time or when the
// flag is recompiled.
// Sending (POST /api/v1/usage) is on by default, in batches of at most MAX_BATCH rows (the server's bound).
import type { CompiledFlag, EvaluationResult } from '../../server/engine/types'
import type { FetchLike, UsageCount } from './types'

/** The most rows POST /api/v1/usage takes in one report. */
const MAX_BATCH = 500

/** A sentinel no context environment can be, so the first record() always looks its environment up. */
const UNSEEN = Symbol('unseen')

/** How many different results of one environment are counted by a linear scan before a map takes over:
 *  a flag gives few (off, default, rollout in/out, one per rule), and comparing a handful of references
 *  is cheaper than hashing one. Flags with many individual targets can give more. */
const SCAN = 8

/** The counts of one environment, by result object. */
class ResultCounts {
  readonly results: EvaluationResult[] = []
  readonly counts: number[] = []
  more: Map<EvaluationResult, number> | undefined

  add(result: EvaluationResult): void {
    const results = this.results
    for (let i = 0; i < results.length; i++) {
      if (results[i] === result) {
        this.counts[i]!++
        return
      }
    }
    if (results.length < SCAN) {
      results.push(result)
      this.counts.push(1)
      return
    }
    const more = (this.more ??= new Map())
    more.set(result, (more.get(result) ?? 0) + 1)
  }

  *entries(): IterableIterator<[EvaluationResult, number]> {
    for (let i = 0; i < this.results.length; i++) if (this.counts[i]! > 0) yield [this.results[i]!, this.counts[i]!]
    if (this.more !== undefined) yield* this.more
  }

  clear(): void {
    // The slots stay (at zero): the same results come back after a drain.
    this.counts.fill(0)
    this.more?.clear()
  }
}

/** The counts of one compiled flag. */
export class FlagCounter {
  private readonly byEnvironment = new Map<string, ResultCounts>()
  private lastEnvironment: unknown = UNSEEN
  private last: ResultCounts | undefined

  constructor(
    readonly key: string,
    private readonly compiled: CompiledFlag,
    private readonly environments: ReadonlySet<string>,
  ) {}

  record(environment: unknown, result: EvaluationResult): void {
    let counts = this.last
    if (environment !== this.lastEnvironment || counts === undefined) {
      // Only the project's environments are kept apart: clients may send anything as `environment`.
      const name = typeof environment === 'string' && this.environments.has(environment) ? environment : ''
      counts = this.byEnvironment.get(name)
      if (counts === undefined) this.byEnvironment.set(name, (counts = new ResultCounts()))
      this.lastEnvironment = environment
      this.last = counts
    }
    counts.add(result)
  }

  /** Moves every count into `tally` under its variant name. */
  drainInto(tally: UsageTally): void {
    for (const [environment, counts] of this.byEnvironment) {
      for (const [result, count] of counts.entries()) tally.add(this.key, environment, this.compiled.branchOf(result), count)
      counts.clear()
    }
  }
}

/** Counts drained from the flags, by key, environment and variant, since `from`. */
export class UsageTally {
  private readonly counts = new Map<string, number>()
  private from = Date.now()

  add(key: string, environment: string, variant: string, count: number): void {
    // NUL cannot occur in keys or environment names (the service refuses it), so the slot is unambiguous.
    const slot = `${key}\u0000${environment}\u0000${variant}`
    this.counts.set(slot, (this.counts.get(slot) ?? 0) + count)
  }

  /** The rows counted since the last take, covering [from, now). */
  peek(now = Date.now()): UsageCount[] {
    const from = new Date(this.from).toISOString()
    const to = new Date(now).toISOString()
    const rows: UsageCount[] = []
    for (const [slot, count] of this.counts) {
      const [key, environment, variant] = slot.split('\u0000') as [string, string, string]
      rows.push({ key, environment, variant, count, from, to })
    }
    return rows
  }

  /** As peek(), and the tally starts again empty. */
  take(now = Date.now()): UsageCount[] {
    const rows = this.peek(now)
    this.counts.clear()
    this.from = now
    return rows
  }

  /** Puts back rows whose sending failed: they go with the next batch, whose window then starts at theirs. */
  restore(rows: UsageCount[]): void {
    for (const r of rows) {
      this.add(r.key, r.environment, r.variant, r.count)
      this.from = Math.min(this.from, Date.parse(r.from))
    }
  }
}

export interface SenderOptions {
  url: string
  token: string
  fetch: FetchLike
  intervalMs: number
  timeoutMs: number
  /** drains every counter and returns the batch */
  collect(): UsageCount[]
  restore(rows: UsageCount[]): void
  onError(error: unknown): void
}

/** Posts a batch every interval; a batch that fails is kept for the next one. */
export class UsageSender {
  private timer: ReturnType<typeof setInterval> | undefined
  /** sends run one after another; `busy` lets a timer tick skip while one is under way */
  private chain: Promise<void> = Promise.resolve()
  private busy = false

  constructor(private readonly options: SenderOptions) {}

  start(): void {
    this.timer = setInterval(() => {
      if (!this.busy) void this.flush()
    }, this.options.intervalMs)
    // Counting must never keep a Node process alive on its own.
    ;(this.timer as { unref?: () => void }).unref?.()
  }

  stop(): void {
    clearInterval(this.timer)
  }

  /** Sends what was counted up to now, after any send under way (nothing counted, nothing sent). */
  flush(): Promise<void> {
    this.busy = true
    this.chain = this.chain.then(() => this.send()).finally(() => (this.busy = false))
    return this.chain
  }

  private async send(): Promise<void> {
    const { url, token, fetch, timeoutMs, collect, restore, onError } = this.options
    const counts = collect()
    for (let i = 0; i < counts.length; i += MAX_BATCH) {
      const batch = counts.slice(i, i + MAX_BATCH)
      try {
        const response = await fetch(`${url}/api/v1/usage`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ counts: batch }),
          signal: AbortSignal.timeout(timeoutMs),
        })
        await response.body?.cancel()
        // A report the server refuses as such (400: a flag changed meanwhile, counts older than it takes) will
        // never be taken: it is dropped, so it cannot block the reports after it. Outages and 429s are retried.
        if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
          onError(new Error(`POST /api/v1/usage answered ${response.status}; these counts are dropped`))
          continue
        }
        if (!response.ok) throw new Error(`POST /api/v1/usage answered ${response.status}`)
      } catch (error) {
        // This batch and the ones not sent yet go with the next send.
        restore(counts.slice(i))
        onError(error)
        return
      }
    }
  }
}
