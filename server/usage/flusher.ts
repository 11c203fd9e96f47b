// Writes the in-memory evaluation counts (counter.ts) into the store's hourly buckets every USAGE_FLUSH_MS
// and at shutdown, so a crash loses at most one interval. Counts are filed under the hour the flush runs
// in. A flush the store cannot be reached for (an outage) keeps its rows for the next one, up to a bound; a
// flush the store refuses for another reason is retried row by row, so one bad row is dropped (and logged)
// and never blocks the counts of later flushes.
import type { Store } from '../store'
import { aggregateUsage, type UsageRow } from '../store/usage'
import { isStoreUnavailable } from '../store/unavailable'
import { errorForLog, type Log } from '../log'
import { drainCounts } from './counter'

/** Rows kept across failed flushes at most (beyond it the oldest are dropped: counts are informational). */
const MAX_HELD_ROWS = 100_000

export const hourOf = (ms: number): string => new Date(Math.floor(ms / 3_600_000) * 3_600_000).toISOString()

export function startUsageFlusher(opts: { store: Store; intervalMs: number; log: Log }) {
  const { store, intervalMs, log } = opts
  let held: UsageRow[] = []
  let running: Promise<void> = Promise.resolve()

  async function flushOnce(): Promise<void> {
    const now = Date.now()
    const at = new Date(now).toISOString()
    const hour = hourOf(now)
    // A flag counted before and after a change has two compiled flags: their counts share buckets.
    const rows = aggregateUsage([
      ...held,
      ...drainCounts().map((c) => ({
        projectId: c.projectId,
        flagKey: c.key,
        environment: c.environment,
        variant: c.variant,
        hour,
        count: c.count,
        lastAt: at,
      })),
    ])
    held = []
    if (!rows.length) return
    try {
      await store.transaction((tx) => store.usage.add(tx, rows))
    } catch (e) {
      if (isStoreUnavailable(e)) {
        held = rows.slice(-MAX_HELD_ROWS)
        log('writing evaluation counts failed; they are kept for the next flush', errorForLog(e), 'warn')
        return
      }
      await rowByRow(rows, e)
    }
  }

  /** Each row in a transaction of its own: the ones the store still refuses are dropped, the others kept. */
  async function rowByRow(rows: UsageRow[], first: unknown): Promise<void> {
    let dropped = 0
    for (const row of rows) {
      try {
        await store.transaction((tx) => store.usage.add(tx, [row]))
      } catch (e) {
        if (isStoreUnavailable(e)) held.push(row)
        else dropped++
      }
    }
    if (dropped) log('evaluation counts the store refused were dropped', { rows: dropped, ...errorForLog(first) }, 'warn')
  }

  const flush = () => (running = running.then(flushOnce))
  const timer = setInterval(() => void flush(), intervalMs)
  return {
    flush,
    async stop() {
      clearInterval(timer)
      await flush()
    },
  }
}
