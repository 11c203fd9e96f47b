// Writes the in-memory evaluation counts (counter.ts) into the store's hourly buckets every USAGE_FLUSH_MS
// and at shutdown, so a crash loses at most one interval. Counts are filed under the hour the flush runs
// in. A flush the store refuses (an outage) keeps its rows for the next one, up to a bound.
import type { Store } from '../store'
import type { UsageRow } from '../store/usage'
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
    const rows = [...held, ...drainCounts().map((c) => ({ projectId: c.projectId, flagKey: c.key, environment: c.environment, variant: c.variant, hour, count: c.count, lastAt: at }))]
    held = []
    if (!rows.length) return
    try {
      await store.transaction((tx) => store.usage.add(tx, rows))
    } catch (e) {
      held = rows.slice(-MAX_HELD_ROWS)
      log('writing evaluation counts failed; they are kept for the next flush', errorForLog(e), 'warn')
    }
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
