// server/webhooks: change notices out to other services (HTTP), from the outbox. The webhook delivery worker.
// Changes write outbox rows (`deliveries`) in their own transaction (services/change-runner.ts); this worker
// is the only thing that sends them, so a crash or restart at any moment loses nothing: whatever is still
// pending is sent by the next worker that runs.
//
// Per row: claim (lease of CLAIM_TTL_MS, attempts + 1) -> one attempt (send.ts: URL and addresses checked,
// POST pinned to a checked address) -> record the outcome. Attempts: immediately, +1 s, +4 s; 5 s timeout
// each; any 2xx is success; redirects are not followed (3xx is a failure).
//
// Fairness (docs/behaviour.md §8): each webhook is its own queue, sent in order with one attempt in flight
// (store/deliveries.ts `ready`), and up to CONCURRENCY webhooks are served at once, so a receiver that
// never answers holds one slot, not the queue. A failing webhook backs off exponentially (1 s, 2 s, 4 s …
// up to WEBHOOK_BACKOFF_MAX_MS between attempts, across its deliveries); after WEBHOOK_PAUSE_AFTER_MS (24 h)
// of failures without a success it is paused until an admin resumes it. Its deliveries wait meanwhile.
//
// A row left in `delivering` by a crashed process is claimed again once its lease has expired; the
// interrupted attempt counts (its outcome is unknown, and counting it keeps a row that crashes the process
// from looping forever). Receivers de-duplicate by X-Webhook-Delivery, which is the same on every attempt.
import type { Store } from '../store'
import type { DeliveryRow } from '../store/deliveries'
import type { WebhookRow } from '../store/webhooks'
import type { Settings } from '../settings'
import type { Log } from '../log'
import type { Resolver } from './url-guard'
import type { DeliveryOutcome } from '../metrics/counts'
import { errorText, sendAttempt, type AttemptResult } from './send'

/** Gaps after failed attempt 1 and 2; the number of attempts is one more than this. */
export const RETRY_DELAYS_MS = [1000, 4000]
export const ATTEMPT_TIMEOUT_MS = 5000
export const CLAIM_TTL_MS = 15_000
export const POLL_INTERVAL_MS = 200
export const CONCURRENCY = 32
/** First backoff of a failing webhook; it doubles with each failure in a row. */
export const BACKOFF_BASE_MS = 1000
export const BACKOFF_MAX_MS = 300_000
export const PAUSE_AFTER_MS = 86_400_000
/** Delivered and failed rows are kept this long for the delivery log, then deleted. */
export const RETENTION_MS = 14 * 24 * 3600_000
const PRUNE_EVERY_MS = 3600_000

export interface DeliveryWorkerOptions {
  store: Store
  settings: Pick<Settings, 'webhookAllowPrivateTargets'>
  /** claim owner; unique per process */
  instanceId: string
  log: Log
  // Tuning and test seams; the defaults are the contract.
  pollIntervalMs?: number
  concurrency?: number
  claimTtlMs?: number
  attemptTimeoutMs?: number
  retryDelaysMs?: number[]
  resolve?: Resolver
  retentionMs?: number
  /** a webhook failing this long without a success is paused (WEBHOOK_PAUSE_AFTER_MS) */
  pauseAfterMs?: number
  /** the longest backoff between a failing webhook's attempts (WEBHOOK_BACKOFF_MAX_MS) */
  backoffMaxMs?: number
  /** the first backoff of a failing webhook; it doubles with each failure in a row */
  backoffBaseMs?: number
  /** extra TLS trust (tests with a self-signed receiver) */
  tls?: { ca?: string | string[] }
  /** where attempt outcomes and the worker's store errors are counted (GET /metrics) */
  counts?: { delivery(outcome: DeliveryOutcome): void; storeError(source: 'webhooks'): void }
}

export interface DeliveryWorker {
  /** look for due rows now (called after every committed change) */
  kick(): void
  /** stop claiming; resolves when in-flight attempts have finished and been recorded */
  stop(): Promise<void>
}

export function startDeliveryWorker(opts: DeliveryWorkerOptions): DeliveryWorker {
  const { store, instanceId, log } = opts
  const allowPrivate = opts.settings.webhookAllowPrivateTargets
  const pollIntervalMs = opts.pollIntervalMs ?? POLL_INTERVAL_MS
  const concurrency = opts.concurrency ?? CONCURRENCY
  const claimTtlMs = opts.claimTtlMs ?? CLAIM_TTL_MS
  const timeoutMs = opts.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS
  const delays = opts.retryDelaysMs ?? RETRY_DELAYS_MS
  const maxAttempts = delays.length + 1
  const retentionMs = opts.retentionMs ?? RETENTION_MS
  const pauseAfterMs = opts.pauseAfterMs ?? PAUSE_AFTER_MS
  const backoffMaxMs = opts.backoffMaxMs ?? BACKOFF_MAX_MS
  const backoffBaseMs = opts.backoffBaseMs ?? BACKOFF_BASE_MS
  const counts = opts.counts ?? { delivery: () => {}, storeError: () => {} }
  let lastPrune = 0

  let stopped = false
  let ticking = false
  let again = false
  const inFlight = new Set<Promise<void>>()
  const retryTimers = new Set<ReturnType<typeof setTimeout>>()

  const pollTimer = setInterval(() => kick(), pollIntervalMs)
  // Interrupted final attempts are only found once their lease expires; look for them now and then.
  const sweepTimer = setInterval(() => void sweepInterrupted(), Math.max(1000, Math.floor(claimTtlMs / 3)))
  void sweepInterrupted().then(() => kick())

  function kick(): void {
    if (stopped) return
    void tick()
  }

  async function tick(): Promise<void> {
    if (ticking) {
      again = true
      return
    }
    ticking = true
    try {
      for (;;) {
        again = false
        const free = concurrency - inFlight.size
        let claimed = 0
        if (free > 0 && !stopped) {
          const now = Date.now()
          const nowIso = new Date(now).toISOString()
          if (await store.deliveries.anyDue(store.db, nowIso, maxAttempts)) {
            const rows = await store.transaction((tx) =>
              store.deliveries.claimDue(tx, {
                owner: instanceId,
                now: nowIso,
                claimUntil: new Date(now + claimTtlMs).toISOString(),
                limit: free,
                maxAttempts,
              }),
            )
            for (const row of rows) launch(row)
            claimed = rows.length
          }
        }
        if (stopped) break
        if (claimed > 0 && claimed === free) continue // there may be more due rows than free slots
        if (!again) break
      }
    } catch (e) {
      counts.storeError('webhooks')
      log('webhook worker: polling the outbox failed', { error: errorText(e) }, 'warn')
    } finally {
      ticking = false
    }
  }

  function launch(row: DeliveryRow): void {
    const p: Promise<void> = deliver(row)
      .catch((e) => {
        // What throws in deliver() is the store (reading the webhook, recording the outcome); a failed send
        // is a result, not an exception.
        counts.storeError('webhooks')
        log('webhook worker: delivery crashed', { delivery_id: row.id, webhook_id: row.webhookId, error: errorText(e) }, 'error')
      })
      .finally(() => {
        inFlight.delete(p)
        kick()
      })
    inFlight.add(p)
  }

  async function sweepInterrupted(): Promise<void> {
    if (stopped) return
    try {
      const rows = await store.transaction((tx) => store.deliveries.abandonInterrupted(tx, new Date().toISOString(), maxAttempts))
      for (const r of rows) {
        counts.delivery('failed')
        giveUpWarning(r, r.lastError ?? 'interrupted')
      }
      if (Date.now() - lastPrune >= PRUNE_EVERY_MS) {
        lastPrune = Date.now()
        const before = new Date(Date.now() - retentionMs).toISOString()
        await store.transaction((tx) => store.deliveries.prune(tx, before))
      }
    } catch (e) {
      counts.storeError('webhooks')
      log('webhook worker: sweeping interrupted deliveries failed', { error: errorText(e) }, 'warn')
    }
  }

  function giveUpWarning(row: DeliveryRow, reason: string): void {
    // Never the URL (it may carry a token in its path) and never the secret.
    log(
      'webhook delivery failed',
      { webhook_id: row.webhookId, delivery_id: row.id, event: row.event, attempts: row.attempts, reason },
      'warn',
    )
  }

  async function deliver(row: DeliveryRow): Promise<void> {
    const hook = await store.webhooks.byId(store.db, row.webhookId)
    const result: AttemptResult = hook
      ? await sendAttempt(hook, row, { allowPrivate, timeoutMs, resolve: opts.resolve, tls: opts.tls })
      : { ok: false, statusCode: null, error: 'the webhook was deleted', permanent: true }
    const now = Date.now()
    const nowIso = new Date(now).toISOString()
    if (result.ok) {
      const recorded = await store.transaction(async (tx) => {
        const marked = await store.deliveries.markDelivered(tx, row.id, instanceId, nowIso, result.statusCode)
        if (marked) await store.webhooks.recordSuccess(tx, row.webhookId)
        return marked
      })
      if (recorded) counts.delivery('delivered')
      return
    }
    if (hook) await recordWebhookFailure(hook, now)
    const final = result.permanent === true || row.attempts >= maxAttempts
    const delay = delays[Math.min(row.attempts, delays.length) - 1] ?? 0
    const recorded = await store.transaction((tx) =>
      store.deliveries.markFailedAttempt(tx, row.id, instanceId, {
        now: nowIso,
        statusCode: result.statusCode,
        error: result.error,
        nextAttemptAt: final ? null : new Date(now + delay).toISOString(),
      }),
    )
    if (!recorded) return // the lease was lost; whoever holds the row now records its outcome
    counts.delivery(final ? 'failed' : 'failed_attempt')
    if (final) {
      if (hook) giveUpWarning(row, result.error)
      else log('webhook delivery dropped: its webhook was deleted', { webhook_id: row.webhookId, delivery_id: row.id, event: row.event })
    } else if (!stopped) {
      const timer = setTimeout(() => {
        retryTimers.delete(timer)
        kick()
      }, delay + 5)
      retryTimers.add(timer)
    }
  }

  /** One more failure in a row for the webhook: back off, and pause it once it has failed for too long. */
  async function recordWebhookFailure(hook: WebhookRow, now: number): Promise<void> {
    const updated = await store.transaction((tx) =>
      store.webhooks.recordFailure(tx, hook.id, new Date(now).toISOString(), (failures, failingSince) => ({
        retryAt: new Date(now + Math.min(backoffBaseMs * 2 ** Math.min(failures - 1, 30), backoffMaxMs)).toISOString(),
        pause: now - Date.parse(failingSince) >= pauseAfterMs,
      })),
    )
    if (updated?.pausedAt && !hook.pausedAt) {
      log(
        'webhook paused: its deliveries failed for too long; resume it from the console or POST /api/v1/webhooks/:id/resume',
        { webhook_id: hook.id, failing_since: updated.failingSince, consecutive_failures: updated.consecutiveFailures },
        'warn',
      )
    }
  }

  return {
    kick,
    async stop() {
      stopped = true
      clearInterval(pollTimer)
      clearInterval(sweepTimer)
      for (const t of retryTimers) clearTimeout(t)
      retryTimers.clear()
      while (ticking) await Bun.sleep(5)
      await Promise.allSettled([...inFlight])
    },
  }
}
