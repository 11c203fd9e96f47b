// The release plans' monitor loop: every RELEASE_MONITOR_MS one round of services/release-plan-monitor.ts
// (claim each running plan nobody else holds, measure it, act once). Rounds never overlap on one instance;
// on several instances each plan's lease keeps all but one away from it.
import type { ReleasePlanMonitor } from '../services/release-plan-monitor'
import { errorForLog, type Log } from '../log'

export function startReleaseMonitor(opts: {
  monitor: Pick<ReleasePlanMonitor, 'round'>
  instanceId: string
  intervalMs: number
  log: Log
}) {
  const { monitor, instanceId, intervalMs, log } = opts
  // A lease outlives a few rounds, so a slow round does not hand the plan to another instance mid-check.
  const leaseMs = Math.max(3 * intervalMs, 5_000)
  // A round that has not ended after this long (a stalled store call) no longer holds the next one back:
  // the plans' compare-and-set keeps two rounds from moving one plan twice.
  const stalledMs = Math.max(10 * intervalMs, 60_000)
  let running: Promise<unknown> = Promise.resolve()
  let busySince: number | null = null
  const round = () => {
    if (busySince !== null) {
      if (Date.now() - busySince < stalledMs) return running
      log('release plan monitor round stalled; starting the next one', { stalled_ms: Date.now() - busySince }, 'warn')
    }
    const since = (busySince = Date.now())
    running = monitor
      .round(instanceId, leaseMs, (id, e) => log('release plan check failed', { release_plan: id, ...errorForLog(e) }, 'warn'))
      .catch((e) => log('release plan monitor round failed', errorForLog(e), 'warn'))
      .finally(() => {
        if (busySince === since) busySince = null
      })
    return running
  }
  const timer = setInterval(() => void round(), intervalMs)
  return {
    round,
    async stop() {
      clearInterval(timer)
      await running
    },
  }
}
