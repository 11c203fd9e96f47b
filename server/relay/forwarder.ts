// What a relay's clients POST for the upstream (usage counts, experiment events) goes up in
// batches: items are gathered per upstream path, cut into a batch every second (or when a batch is full),
// and sent in order, each with its id in `Flagship-Batch-Id`, which the upstream takes once. A batch leaves
// the spool only when the upstream answered it, so a lost answer means a resend the upstream ignores: nothing
// lost, nothing counted twice. The spool is bounded and kept in RELAY_CACHE_FILE while the upstream is away.
import { hourOf } from '../usage/flusher'
import { MAX_REPORTED } from '../services/usage'
import { MAX_EVENTS_PER_REQUEST } from '../services/experiment-events'
import type { Log } from '../log'

/** What a relay forwards, by upstream path: the body's list field, how many items one request carries, and
 *  how items of one batch merge (events never do: each is a unit's own). */
export const FORWARDED: Record<string, { field: string; maxItems: number; merge?: (items: unknown[]) => unknown[] }> = {
  '/api/v1/usage': { field: 'counts', maxItems: MAX_REPORTED, merge: mergeCounts },
  '/api/v1/events': { field: 'events', maxItems: MAX_EVENTS_PER_REQUEST },
}

export interface Batch {
  id: string
  path: string
  items: unknown[]
}

/** Items the spool holds at most; past it the oldest batches go (logged): the relay's memory stays bounded. */
export const MAX_SPOOLED_ITEMS = 200_000
/** Following relays' batch ids remembered (a relay resends only the batch whose answer it lost). */
const MAX_TAKEN_IDS = 10_000
const CUT_MS = 1000
const RETRY_MIN_MS = 100
const RETRY_MAX_MS = 5000

interface Count {
  key: string
  environment: string
  variant: string
  count: number
  from: string
  to: string
}

/** Usage counts of the same flag, environment, variant and hour add up (the origin files them by `to`'s hour). */
function mergeCounts(items: unknown[]): unknown[] {
  const merged = new Map<string, Count>()
  for (const c of items as Count[]) {
    const slot = `${c.key}\u0000${c.environment}\u0000${c.variant}\u0000${hourOf(Date.parse(c.to))}`
    const held = merged.get(slot)
    if (!held) merged.set(slot, { ...c })
    else {
      held.count += c.count
      if (c.from < held.from) held.from = c.from
      if (c.to > held.to) held.to = c.to
    }
  }
  return [...merged.values()]
}

export interface ForwarderOptions {
  upstreamUrl: string
  token: string
  log: Log
  /** called whenever the spool changed (the cache file is rewritten) */
  changed: () => void
  /** items the spool holds at most (default MAX_SPOOLED_ITEMS) */
  maxItems?: number
}

export class Forwarder {
  private gathering = new Map<string, unknown[]>()
  private spool: Batch[] = []
  private sentCount = 0
  private droppedCount = 0
  /** ids of the batches following relays forwarded here, newest last (bounded) */
  private taken: Set<string>
  private stopped = false
  private retryMs = RETRY_MIN_MS
  private timer: ReturnType<typeof setInterval>
  private wake: (() => void) | undefined

  constructor(
    private readonly o: ForwarderOptions,
    restored: readonly Batch[] = [],
    taken: readonly string[] = [],
  ) {
    this.spool = [...restored]
    this.taken = new Set(taken)
    this.timer = setInterval(() => this.cut(), CUT_MS)
    void this.run()
  }

  /** Gathers items for `path`; `batchId` (a following relay's batch): false when it was taken before. */
  add(path: string, items: readonly unknown[], batchId?: string): boolean {
    if (batchId !== undefined) {
      if (this.taken.has(batchId)) return false
      this.taken.add(batchId)
      if (this.taken.size > MAX_TAKEN_IDS) this.taken.delete(this.taken.values().next().value!)
      // Taken only once it is on the spool (and so in the cache file): cut now.
      this.gathering.set(path, [...(this.gathering.get(path) ?? []), ...items])
      this.cut()
      return true
    }
    if (!items.length) return true
    const into = this.gathering.get(path) ?? []
    into.push(...items)
    this.gathering.set(path, into)
    return true
  }

  /** The following relays' batch ids taken (for the cache file). */
  takenIds(): string[] {
    return [...this.taken]
  }

  stats(): { sent: number; pending: number; dropped: number } {
    return { sent: this.sentCount, pending: this.spool.length + (this.gathering.size ? 1 : 0), dropped: this.droppedCount }
  }

  /** The batches not yet answered (what the cache file keeps). */
  spooled(): Batch[] {
    return this.spool
  }

  /** Moves what was gathered into batches on the spool. */
  cut(): void {
    if (!this.gathering.size) return
    for (const [path, gathered] of this.gathering) {
      const rule = FORWARDED[path]!
      const items = rule.merge ? rule.merge(gathered) : gathered
      for (let i = 0; i < items.length; i += rule.maxItems)
        this.spool.push({ id: crypto.randomUUID(), path, items: items.slice(i, i + rule.maxItems) })
    }
    this.gathering.clear()
    let held = this.spool.reduce((n, b) => n + b.items.length, 0)
    const limit = this.o.maxItems ?? MAX_SPOOLED_ITEMS
    while (held > limit && this.spool.length > 1) {
      // Never the batch being sent (the first): its answer may still come.
      const dropped = this.spool.splice(1, 1)[0]!
      held -= dropped.items.length
      this.droppedCount++
      this.o.log(
        'relay spool full: the oldest waiting batch was dropped',
        { path: dropped.path, items: dropped.items.length, limit },
        'warn',
      )
    }
    this.o.changed()
    this.wake?.()
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const batch = this.spool[0]
      if (!batch) {
        await new Promise<void>((resolve) => (this.wake = resolve))
        this.wake = undefined
        continue
      }
      const outcome = await this.send(batch)
      if (outcome === 'retry') {
        await Bun.sleep(this.retryMs)
        this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2)
        continue
      }
      this.retryMs = RETRY_MIN_MS
      if (this.spool[0] === batch) this.spool.shift()
      if (outcome === 'sent') this.sentCount++
      this.o.changed()
    }
  }

  private async send(batch: Batch): Promise<'sent' | 'refused' | 'retry'> {
    try {
      const rule = FORWARDED[batch.path]!
      const res = await fetch(`${this.o.upstreamUrl}${batch.path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.o.token}`, 'content-type': 'application/json', 'flagship-batch-id': batch.id },
        body: JSON.stringify({ [rule.field]: batch.items }),
        signal: AbortSignal.timeout(10_000),
      })
      await res.arrayBuffer()
      if (res.ok) return 'sent'
      // The upstream refused the batch itself (a flag's variant gone meanwhile): resending cannot help.
      if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429 && res.status !== 401) {
        this.o.log(
          'the upstream refused a forwarded batch; it is dropped',
          { path: batch.path, status: res.status, items: batch.items.length },
          'warn',
        )
        return 'refused'
      }
      return 'retry'
    } catch {
      return 'retry'
    }
  }

  /** Cuts what was gathered and stops sending (the spool goes to the cache file). */
  stop(): void {
    clearInterval(this.timer)
    this.cut()
    this.stopped = true
    this.wake?.()
  }
}
