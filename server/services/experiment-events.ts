// POST /api/v1/events (docs/experiments.md §1): what units did (`track`) and what SDKs evaluating locally
// served them (`exposure`), stored in one transaction before the answer, or not at all. A track event is
// stored once per context attribute that names units in the project (user_id, and every experiment's
// unit), so the results join it to exposures through one index; an exposure counts for the experiment
// running on its flag in its environment, in the phase running when it arrives.
import { parseIsoDate } from '../engine/dates'
import { attributeKey, compileAccessor, type PropertyAccessor } from '../engine/context'
import type { EvaluationContext } from '../engine/types'
import type { ExposureRow, TrackEventRow } from '../store/experiments'
import { experimentRegistry } from '../experiments/registry'
import { releasePlanRegistry } from '../experiments/release-registry'
import type { Actor, ServiceDeps } from './context'
import type { Snapshots } from '../cache/snapshots'
import { validationError, rateLimited } from '../errors'
import { KEY_PATTERN } from './keys'

export interface TrackItem {
  type: 'track'
  key: string
  context: EvaluationContext
  value?: number
  timestamp?: string
}
export interface ExposureItem {
  type: 'exposure'
  flag: string
  variant: string
  context: EvaluationContext
  timestamp?: string
}
export type EventItem = TrackItem | ExposureItem

export const MAX_EVENTS_PER_REQUEST = 1_000
/** How old and how far ahead of the server's clock an event's time may be. */
export const MAX_EVENT_AGE_MS = 30 * 86_400_000
export const MAX_EVENT_AHEAD_MS = 5 * 60_000

const accessors = new Map<string, PropertyAccessor>()
const accessorOf = (attribute: string): PropertyAccessor => {
  let a = accessors.get(attribute)
  if (a === undefined) accessors.set(attribute, (a = compileAccessor(attribute)))
  return a
}

/** Per token: the minute under way and the events sent in it (this instance's view). */
const spent = new Map<string, { minute: number; events: number }>()

function charge(token: string, events: number, perMinute: number, now: number): void {
  const minute = Math.floor(now / 60_000)
  let s = spent.get(token)
  if (s === undefined || s.minute !== minute) {
    if (spent.size > 10_000) for (const [k, v] of spent) if (v.minute !== minute) spent.delete(k)
    spent.set(token, (s = { minute, events: 0 }))
  }
  if (s.events + events > perMinute) {
    const retryAfter = Math.max(1, Math.ceil(((minute + 1) * 60_000 - now) / 1000))
    throw rateLimited('RATE_LIMITED', `This token may send at most ${perMinute} events per minute`, retryAfter)
  }
  s.events += events
}

/** The items checked as the origin checks them (a relay checks them the same before forwarding): 400 naming
 *  the first bad items' indexes; their times (ms), `now` for those without one. */
export function checkEvents(snapshots: Pick<Snapshots, 'project'>, actor: Actor, items: readonly EventItem[], now: number): number[] {
  const snap = snapshots.project(actor.projectId)
  const environments = new Set<string>(snap?.project.environments ?? [])
  const issues: { path: string; message: string }[] = []
  const times: number[] = []
  items.forEach((item, i) => {
    const at = `events[${i}]`
    const context = item.context
    if (context === null || typeof context !== 'object' || Array.isArray(context))
      issues.push({ path: `${at}.context`, message: 'must be an evaluation context (an object)' })
    else if (context.environment !== undefined && (typeof context.environment !== 'string' || !environments.has(context.environment))) {
      issues.push({
        path: `${at}.context.environment`,
        message: `must be one of the project's environments (${[...environments].join(', ')})`,
      })
    }
    let t = now
    if (item.timestamp !== undefined) {
      t = typeof item.timestamp === 'string' ? parseIsoDate(item.timestamp) : NaN
      if (Number.isNaN(t)) issues.push({ path: `${at}.timestamp`, message: 'must be an ISO 8601 date-time' })
      else if (t < now - MAX_EVENT_AGE_MS || t > now + MAX_EVENT_AHEAD_MS)
        issues.push({ path: `${at}.timestamp`, message: 'must lie within the last 30 days (and at most 5 minutes ahead)' })
    }
    times.push(t)
    if (item.type === 'track') {
      if (typeof item.key !== 'string' || !KEY_PATTERN.test(item.key))
        issues.push({ path: `${at}.key`, message: 'must be an event key (^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$)' })
      if (item.value !== undefined && (typeof item.value !== 'number' || !Number.isFinite(item.value)))
        issues.push({ path: `${at}.value`, message: 'must be a finite number' })
    } else if (item.type === 'exposure') {
      if (typeof item.flag !== 'string' || !KEY_PATTERN.test(item.flag)) issues.push({ path: `${at}.flag`, message: 'must be a flag key' })
      const row = snap?.flags.get(item.flag)?.row
      const variants = row?.body.variants
      if (typeof item.variant !== 'string') issues.push({ path: `${at}.variant`, message: 'must be a variant name' })
      else if (variants && !Object.hasOwn(variants, item.variant))
        issues.push({ path: `${at}.variant`, message: `is not a variant of flag "${item.flag}"` })
    } else issues.push({ path: `${at}.type`, message: 'must be "track" or "exposure"' })
  })
  if (issues.length) throw validationError(issues.slice(0, 20))
  return times
}

export function experimentEventService({ store, settings, snapshots }: Pick<ServiceDeps, 'store' | 'settings' | 'snapshots'>) {
  return {
    /** Stores every item or none: 400 naming the first bad items' indexes, 429 past the token's budget. A
     *  relay's forwarded batch (`batchId`) is taken once, in the same transaction: a resend stores nothing. */
    async ingest(actor: Actor, items: EventItem[], now = Date.now(), batchId?: string): Promise<{ accepted: number; duplicate?: true }> {
      const times = checkEvents(snapshots, actor, items, now)
      // A relay's batch was charged to its clients at the relay.
      if (batchId === undefined) charge(actor.tokenHash ?? `${actor.projectId}:${actor.name}`, items.length, settings.eventsPerMinute, now)

      const attributes = [
        ...new Set([...experimentRegistry.unitAttributes(actor.projectId), ...releasePlanRegistry.unitAttributes(actor.projectId)]),
      ]
      const events: TrackEventRow[] = []
      const exposures: ExposureRow[] = []
      items.forEach((item, i) => {
        const environment = item.context.environment ?? ''
        if (item.type === 'track') {
          for (const attribute of attributes) {
            const unit = attributeKey(accessorOf(attribute)(item.context))
            if (unit !== undefined)
              events.push({
                projectId: actor.projectId,
                key: item.key,
                attribute,
                unit,
                environment,
                at: times[i]!,
                value: item.value ?? 1,
              })
          }
          return
        }
        const x = experimentRegistry.runningIn(actor.projectId, item.flag, environment)
        const unit = x?.unitOf(item.context)
        if (x && unit !== undefined)
          exposures.push({ experimentId: x.id, phase: x.phase, unit, firstAt: times[i]!, variant: item.variant, multiple: false })
        // a flag under a release plan: the SDK names OFREP's branch, `rollout` (inside) or `off`
        const plan = releasePlanRegistry.measuredOn(actor.projectId, item.flag)?.find((p) => p.environment === environment)
        const planUnit = plan?.unitOf(item.context)
        if (plan && planUnit !== undefined && (item.variant === 'rollout' || item.variant === 'off'))
          exposures.push({
            experimentId: plan.id,
            phase: plan.phase,
            unit: planUnit,
            firstAt: times[i]!,
            variant: item.variant,
            multiple: false,
          })
      })
      if (events.length || exposures.length || batchId !== undefined) {
        const applied = await store.transaction(async (tx) => {
          if (batchId !== undefined && !(await store.relayBatches.claim(tx, actor.projectId, batchId, new Date(now).toISOString())))
            return false
          await store.experiments.events.insert(tx, events)
          await store.experiments.exposures.add(tx, exposures)
          return true
        })
        if (!applied) return { accepted: 0, duplicate: true }
      }
      return { accepted: items.length }
    },
  }
}
export type ExperimentEventService = ReturnType<typeof experimentEventService>
