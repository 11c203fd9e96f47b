// The gate of protected environments (docs/change-requests.md §1), run by the change runner for every change
// it records, inside the change's transaction: a flag, config, segment or schedule change that affects a
// protected environment is refused (409 CHANGE_REQUEST_REQUIRED, the transaction rolls back) unless an
// approved change request applies it or a project admin broke the glass. Because it sits in the one change
// path, every route, the CLI and the schedule worker are gated alike. A flag change that only stops serving
// passes without review where every protected environment it affects allows emergency off.
import { affectedByChange, affectedNames } from '../access/affected-environments'
import { KIND_TYPES } from '../kinds'
import type { Db, Store } from '../store'
import type { PolicyRow } from '../store/policies'
import { conflict } from '../errors'
import type { Change } from '../notices/changes'
import { onlyStopsServing } from './emergency-off'

/** What the gate decided: the protected environments a change affects, and whether it passes as an
 *  emergency off (no review, no authority needed). */
export interface GateResult {
  environments: string[]
  emergency: boolean
}
const OPEN: GateResult = { environments: [], emergency: false }

/** The versioned documents (kinds/): what policies protect. */
const GATED = new Set<string>(KIND_TYPES)

/** The environment a schedule's change names ('' for a change to top-level fields). */
function scheduleEnvironment(change: Change): string {
  const c = (change.after as { change?: { environment?: unknown; override?: unknown } } | null)?.change
  return c && 'override' in c && typeof c.environment === 'string' ? c.environment : ''
}

export const changeRequestRequired = (environments: string[]) =>
  conflict(
    'CHANGE_REQUEST_REQUIRED',
    `${environments.join(', ')} ${environments.length > 1 ? 'are' : 'is'} protected: propose this change as a change request`,
    { environments },
  )

/** One gate per transaction: the project's policies are read once. */
export function changeGate(store: Store, tx: Db) {
  const cache = new Map<string, Promise<{ envs: string[]; policies: PolicyRow[] }>>()
  const load = (projectId: string) => {
    let hit = cache.get(projectId)
    if (!hit) {
      // The project's environments only matter once something is protected (the common case reads one table).
      hit = store.policies.byProject(tx, projectId).then(async (policies) => ({
        envs: policies.some((p) => p.protected) ? ((await store.projects.get(tx, projectId))?.environments ?? []) : [],
        policies,
      }))
      cache.set(projectId, hit)
    }
    return hit
  }

  /** The protected environments `change` affects ([] when it is not gated). Throws when it is refused. */
  return async function check(change: Change): Promise<GateResult> {
    const schedule = change.resourceType === 'schedule' && change.action === 'create'
    if (!GATED.has(change.resourceType) && !schedule) return OPEN
    const { envs, policies } = await load(change.projectId)
    if (!policies.some((p) => p.protected)) return OPEN
    const environment = schedule ? scheduleEnvironment(change) : (change.event?.environment ?? '')
    const affected = affectedNames(affectedByChange(schedule ? 'flag' : change.resourceType, environment), envs)
    const protecting = policies.filter((p) => p.protected && affected.includes(p.environment))
    const hit = protecting.map((p) => p.environment)
    if (!hit.length) return OPEN
    if (change.authority) return { environments: hit, emergency: false }
    if (
      change.resourceType === 'flag' &&
      change.action === 'update' &&
      protecting.every((p) => p.allowEmergencyOff) &&
      onlyStopsServing(change.before, change.after)
    ) {
      return { environments: hit, emergency: true }
    }
    throw changeRequestRequired(hit)
  }
}
