// The units of an experiment's phase per variant, without computing any metric: what the experiment list
// shows per row. One indexed count over the phase's exposure rows, so a page of 100 experiments stays cheap
// where their full results (every metric over every unit's events) would not.
import type { ServiceDeps } from './context'
import { experimentNotFound } from './experiments'
import { validationError } from '../errors'

export function experimentUnitService({ store }: Pick<ServiceDeps, 'store'>) {
  return {
    /** `phase` defaults to the current one; a draft (phase 0) has no units. */
    async units(projectId: string, key: string, phase?: number) {
      const row = await store.experiments.experiments.get(store.db, projectId, key)
      if (!row) throw experimentNotFound(key)
      if (row.phase === 0 && phase === undefined) return { experiment: key, phase: 0, units: {}, multiple_exposures: 0 }
      const n = phase ?? row.phase
      if (!Number.isInteger(n) || n < 1 || n > row.phase) throw validationError([{ path: 'phase', message: row.phase ? `must be a phase of the experiment, 1 to ${row.phase}` : `experiment "${key}" has not started` }])
      const { units, multiple } = await store.experimentResults.exposureCounts(store.db, row.id, n)
      return { experiment: key, phase: n, units: Object.fromEntries(units), multiple_exposures: multiple }
    },
  }
}
