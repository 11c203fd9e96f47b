// The units of an experiment's phase per variant without computing any metric: the experiment list's
// column (one indexed count over the phase's exposure rows, so a page of experiments stays cheap where their
// full results would not), and on request the cumulative units per variant per day, the results page's
// chart. The series groups every exposure row of the phase by day (seconds at a million units), so it is
// kept 60 s per experiment and phase, like the results.
import type { ServiceDeps } from './context'
import { experimentNotFound } from './experiments'
import { splitIn } from './experiment-flag'
import { unitsTimeline, type UnitsTimeline } from './experiment-timeline'
import { validationError } from '../errors'

export const TIMELINE_TTL_MS = 60_000
const MAX_CACHED = 500

export function experimentUnitService({ store }: Pick<ServiceDeps, 'store'>) {
  const timelines = new Map<string, { at: number; value: Promise<UnitsTimeline> }>()

  return {
    /** `phase` defaults to the current one; a draft (phase 0) has no units. `timeline`: with the series. */
    async units(projectId: string, key: string, opts: { phase?: number; timeline?: boolean; now?: number } = {}) {
      const row = await store.experiments.experiments.get(store.db, projectId, key)
      if (!row) throw experimentNotFound(key)
      const now = opts.now ?? Date.now()
      if (row.phase === 0 && opts.phase === undefined) {
        return { experiment: key, phase: 0, units: {}, multiple_exposures: 0, ...(opts.timeline && { timeline: { at: [], units: {} } }) }
      }
      const n = opts.phase ?? row.phase
      if (!Number.isInteger(n) || n < 1 || n > row.phase)
        throw validationError([
          {
            path: 'phase',
            message: row.phase ? `must be a phase of the experiment, 1 to ${row.phase}` : `experiment "${key}" has not started`,
          },
        ])
      const { units, multiple } = await store.experimentResults.exposureCounts(store.db, row.id, n)
      const body = { experiment: key, phase: n, units: Object.fromEntries(units), multiple_exposures: multiple }
      if (!opts.timeline) return body

      const id = `${row.id}:${n}`
      const hit = timelines.get(id)
      if (hit && now - hit.at < TIMELINE_TTL_MS) return { ...body, timeline: await hit.value }
      // the series' variants: the split's in order (its control first) while it has one, else those with units
      const flagRow = await store.flags.get(store.db, row.projectId, row.flagKey)
      const split = flagRow ? splitIn(flagRow.body, row.environment)?.map((s) => s.variant) : undefined
      const variants = split?.includes(row.body.control)
        ? split
        : [row.body.control, ...[...units.keys()].filter((v) => v !== row.body.control).sort()]
      const value = store.experimentResults.exposuresByDay(store.db, row.id, n).then((days) => unitsTimeline(days, variants, now))
      timelines.delete(id)
      if (timelines.size >= MAX_CACHED) timelines.delete(timelines.keys().next().value!)
      timelines.set(id, { at: now, value })
      value.catch(() => timelines.get(id)?.value === value && timelines.delete(id))
      return { ...body, timeline: await value }
    },
  }
}
