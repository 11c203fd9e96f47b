// Writes the exposures recorded in memory (exposures.ts) into the store at least every EXPOSURE_FLUSH_MS,
// early when many are waiting, and at shutdown; prunes track events older than EVENTS_RETENTION_DAYS once
// an hour. A flush the store cannot take (an outage) keeps its rows for the next one, up to a bound.
import type { Store } from '../store'
import { isStoreUnavailable } from '../store/unavailable'
import type { ExposureRow } from '../store/experiments'
import { errorForLog, type Log } from '../log'
import { drainExposures, onExposurePressure } from './exposures'

const MAX_HELD_ROWS = 2_000_000
/** Rows per transaction: the flush yields between them, so evaluations keep being answered while a large
 *  flush is written (SQLite runs each statement on this thread). */
const ROWS_PER_TRANSACTION = 2_000
const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve))
const PRUNE_EVERY_MS = 3_600_000

export function startExperimentWorkers(opts: { store: Store; flushMs: number; retentionDays: number; log: Log }) {
  const { store, flushMs, retentionDays, log } = opts
  let held: ExposureRow[] = []
  let running: Promise<void> = Promise.resolve()

  async function flushOnce(): Promise<void> {
    const drained = drainExposures()
    if (drained.dropped) log('exposures dropped: too many units waiting between flushes', { dropped: drained.dropped }, 'warn')
    const rows = held.length ? [...held, ...drained.rows] : drained.rows
    held = []
    if (!rows.length) return
    // Each chunk is an idempotent upsert (earliest time, any second variant), so a flush may stop half-way.
    for (let i = 0; i < rows.length; i += ROWS_PER_TRANSACTION) {
      const chunk = rows.slice(i, i + ROWS_PER_TRANSACTION)
      try {
        await store.transaction((tx) => store.experiments.exposures.add(tx, chunk))
      } catch (e) {
        if (isStoreUnavailable(e)) held = rows.slice(i).slice(-MAX_HELD_ROWS)
        log(
          isStoreUnavailable(e)
            ? 'writing exposures failed; they are kept for the next flush'
            : 'writing exposures failed; they are dropped',
          errorForLog(e),
          'warn',
        )
        if (isStoreUnavailable(e)) return
      }
      if (i + ROWS_PER_TRANSACTION < rows.length) await yieldToRequests()
    }
  }

  async function prune(): Promise<void> {
    try {
      await store.transaction((tx) => store.experiments.events.prune(tx, Date.now() - retentionDays * 86_400_000))
    } catch (e) {
      log('pruning track events failed', errorForLog(e), 'warn')
    }
  }

  const flush = () => (running = running.then(flushOnce))
  onExposurePressure(() => void flush())
  const timer = setInterval(() => void flush(), flushMs)
  const pruner = setInterval(() => void prune(), PRUNE_EVERY_MS)
  void prune()
  return {
    flush,
    prune,
    async stop() {
      clearInterval(timer)
      clearInterval(pruner)
      onExposurePressure(undefined)
      await flush()
    },
  }
}
