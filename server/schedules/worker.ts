// server/schedules: time-triggered changes, through the same services as any other change. The scheduled-
// change worker: sleeps until the earliest pending schedule is due (a precise timeout, but never longer than
// POLL_INTERVAL_MS, so a schedule another instance created is found even if its change notice was lost), then
// applies every due one, each in its own transaction (services/schedules.ts). Woken early by schedule change
// notices, this instance's and other instances' (a create or cancel moves the earliest time). Several
// instances may run it on one PostgreSQL database: each schedule is claimed by exactly one of them
// (store/schedules.ts `claimDue`), so it is applied exactly once.
import type { ApplyOutcome, ScheduleService } from '../services/schedules'
import type { ChangeRequestService } from '../services/change-requests'
import { errorForLog, type Log } from '../log'

export const POLL_INTERVAL_MS = 500
/** How often finished schedules past their retention are deleted. */
export const PRUNE_EVERY_MS = 3600_000

export interface ScheduleWorkerOptions {
  schedules: Pick<ScheduleService, 'nextDueAt' | 'applyDue' | 'pruneFinished'>
  /** scheduled change requests (docs/change-requests.md §4), applied by the same loop */
  changeRequests?: Pick<ChangeRequestService, 'nextDueAt' | 'applyDue'>
  log: Log
  /** the longest sleep between looks at the store (test seam; the default is the contract) */
  pollIntervalMs?: number
  /** counts each failed look at the store (GET /metrics) */
  onStoreError?: () => void
}

export interface ScheduleWorker {
  /** look again now (a schedule was created or cancelled here or on another instance) */
  wake(): void
  /** stop; resolves once a schedule being applied has committed or rolled back */
  stop(): Promise<void>
}

export function startScheduleWorker(opts: ScheduleWorkerOptions): ScheduleWorker {
  const { schedules, log } = opts
  const pollMs = opts.pollIntervalMs ?? POLL_INTERVAL_MS
  let stopped = false
  let again = false
  let running: Promise<void> | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  let failing = false
  let lastPrune = 0

  function wake(): void {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    clearTimeout(timer)
    running = run().finally(() => {
      running = undefined
      if (again) wake()
    })
  }

  /** Applies what is due, then sleeps until the next one is (at most pollMs). */
  async function run(): Promise<void> {
    let delay = pollMs
    try {
      while (!stopped) {
        again = false
        const [next, nextRequest] = await Promise.all([schedules.nextDueAt(), opts.changeRequests?.nextDueAt() ?? null])
        const wait = Math.min(
          next === null ? pollMs : Date.parse(next) - Date.now(),
          nextRequest === null ? pollMs : Date.parse(nextRequest) - Date.now(),
        )
        if (wait > 0) {
          delay = Math.min(wait, pollMs)
          break
        }
        const result = await schedules.applyDue()
        report(result)
        const request = opts.changeRequests ? await opts.changeRequests.applyDue() : { outcome: 'none' as const }
        if (request.outcome === 'applied') log('scheduled change request applied', { change_request: request.changeRequest.id })
        else if (request.outcome === 'failed')
          log(
            'scheduled change request failed',
            { change_request: request.changeRequest.id, code: request.changeRequest.error?.code },
            'warn',
          )
        // Due, yet nothing to claim: another instance holds it. It commits or fails it; look again later.
        if (result.outcome === 'none' && request.outcome === 'none') break
      }
      if (Date.now() - lastPrune >= PRUNE_EVERY_MS) {
        lastPrune = Date.now()
        const pruned = await schedules.pruneFinished()
        if (pruned > 0) log('finished scheduled changes past their retention deleted', { count: pruned })
      }
      if (failing) log('scheduled changes: the store answers again')
      failing = false
    } catch (e) {
      opts.onStoreError?.()
      // The store is unreachable: due schedules stay pending and are retried. Said once per outage, not
      // at every look.
      if (!failing) log('scheduled changes: looking for due schedules failed; retrying', errorForLog(e), 'warn')
      failing = true
    }
    if (!stopped) timer = setTimeout(wake, delay)
  }

  function report(result: ApplyOutcome): void {
    if (result.outcome === 'applied') {
      log('scheduled change applied', {
        schedule_id: result.schedule.id,
        flag: result.schedule.flagKey,
        version: result.schedule.resultVersion,
      })
    } else if (result.outcome === 'failed') {
      const { schedule, cause } = result
      log(
        'scheduled change failed',
        { schedule_id: schedule.id, flag: schedule.flagKey, code: schedule.errorCode, reason: schedule.error },
        'warn',
      )
      if (schedule.errorCode === 'INTERNAL') log('scheduled change: unexpected error', errorForLog(cause), 'error')
    }
  }

  wake()
  return {
    wake,
    async stop() {
      stopped = true
      clearTimeout(timer)
      await running
    },
  }
}
