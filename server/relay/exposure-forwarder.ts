// At a relay, the exposures its own evaluation surfaces record (experiments/exposures.ts, for the running
// experiments its upstream's definitions list) go upstream as exposure events instead of into a store:
// drained at least every EXPOSURE_FLUSH_MS, early when many wait, and at shutdown, and handed to the
// relay's forwarder (forwarder.ts), whose batch ids the origin takes once: nothing lost, nothing twice. The
// origin files each event under the phase running when it arrives (a relay knows no phases).
import { drainExposuresAs, onExposurePressure } from '../experiments/exposures'
import type { Snapshots } from '../cache/snapshots'
import type { Log } from '../log'

export interface ExposureEvent {
  type: 'exposure'
  flag: string
  variant: string
  context: Record<string, unknown>
  timestamp: string
}

/** A context in which the unit attribute `attribute` reads `unit` the way engine/context.ts compileAccessor
 *  reads it: `custom.<name>` (and `custom` itself) from the `custom` object, any other name (dots and all)
 *  from the top level. */
export function contextNaming(attribute: string, unit: string, environment: string): Record<string, unknown> {
  if (attribute === 'custom') return { custom: { custom: unit }, environment }
  if (attribute.startsWith('custom.')) return { custom: { [attribute.slice('custom.'.length)]: unit }, environment }
  return { [attribute]: unit, environment }
}

/** Every exposure recorded since the last drain, as events: a unit also served another variant goes as
 *  both, so that the origin marks it (left out of the results) as it would have here. */
export function drainExposureEvents(): { events: ExposureEvent[]; dropped: number } {
  const { items, dropped } = drainExposuresAs((x, unit, firstAt, variant, also) => {
    const context = contextNaming(x.unit, unit, x.environment)
    const timestamp = new Date(firstAt).toISOString()
    const first: ExposureEvent = { type: 'exposure', flag: x.flagKey, variant, context, timestamp }
    return also === undefined ? [first] : [first, { ...first, variant: also }]
  })
  return { events: items.flat(), dropped }
}

/** Whether the flag (as the relay now serves it) still has the variant: the origin refuses a batch naming a
 *  variant removed meanwhile, whole, so such an event would cost its batch's others. */
export function variantServed(
  snapshots: Pick<Snapshots, 'project'>,
  projectId: string | undefined,
  flag: string,
  variant: string,
): boolean {
  const row = projectId === undefined ? undefined : snapshots.project(projectId)?.flags.get(flag)?.row
  const variants = row?.body.variants
  return variants !== undefined && variants !== null && Object.hasOwn(variants, variant)
}

export function startExposureForwarding(opts: {
  forward: (events: ExposureEvent[]) => void
  served: (flag: string, variant: string) => boolean
  flushMs: number
  log: Log
}) {
  const { forward, served, flushMs, log } = opts
  function flush(): void {
    const { events, dropped } = drainExposureEvents()
    if (dropped) log('exposures dropped: too many units waiting between flushes', { dropped }, 'warn')
    const kept = events.filter((e) => served(e.flag, e.variant))
    if (kept.length < events.length)
      log('exposures dropped: their variant was removed from the flag meanwhile', { dropped: events.length - kept.length }, 'warn')
    if (kept.length) forward(kept)
  }
  onExposurePressure(flush)
  const timer = setInterval(flush, flushMs)
  return {
    flush,
    /** Hands what is left to the forwarder (before it stops: its spool goes to RELAY_CACHE_FILE). */
    stop(): void {
      clearInterval(timer)
      onExposurePressure(undefined)
      flush()
    },
  }
}
