// Reading the audit log (writing happens in change-runner, inside each change's transaction).
import type { Store } from '../store'
import type { AuditFilter, AuditRow } from '../store/audit'
import type { ServiceDeps } from './context'

/** Token prefix (an entry's actor) -> the token's name. */
export type ActorNames = ReadonlyMap<string, string>

export const auditView = (r: AuditRow, names?: ActorNames) => ({
  id: r.id,
  timestamp: r.timestamp,
  actor: r.actor,
  actor_name: names?.get(r.actor) ?? null,
  actor_type: r.actorType ?? (r.actor === 'cli' ? 'cli' : r.actor.startsWith('schedule:') ? 'schedule' : 'token'),
  credential: r.credential,
  action: r.action,
  resource_type: r.resourceType,
  resource_key: r.resourceKey,
  project_id: r.projectId,
  before: r.before,
  after: r.after,
  // more about the change: an import's change set; why a change to a protected environment was allowed
  ...(r.details != null && { details: r.details }),
})

/** The names of the tokens that `actors` (token prefixes, as entries record them) stand for: the token's
 *  own row while it exists, else what the log kept when it was created, so a deleted token keeps its name.
 *  Actors that are no token (the CLI) have none. Two queries, bounded by the actors given (one page). */
export async function actorNames(store: Store, projectId: string, actors: Iterable<string>): Promise<ActorNames> {
  const prefixes = [...new Set(actors)].filter((a) => a.startsWith('ff_'))
  const names = new Map<string, string>()
  if (prefixes.length === 0) return names
  for (const r of await store.tokens.namesByPrefix(store.db, projectId, prefixes)) names.set(r.prefix, r.name)
  const missing = prefixes.filter((p) => !names.has(p))
  for (const r of await store.audit.createdTokens(store.db, projectId, missing)) {
    const name = (r.after as { name?: unknown } | null)?.name
    if (typeof name === 'string' && !names.has(r.prefix)) names.set(r.prefix, name)
  }
  return names
}

export function auditService({ store }: ServiceDeps) {
  return {
    /** Changes applied without review (break glass, emergency off) in the last 30 days: the change-request
     *  inbox lists them. */
    async withoutReview(projectId: string, limit: number, now = Date.now()) {
      const since = new Date(now - 30 * 86_400_000).toISOString()
      return (await store.audit.withoutReview(store.db, projectId, since, limit)).map((r) => {
        const d = (r.details ?? {}) as { emergency?: unknown; bypass_reason?: unknown }
        return {
          id: r.id,
          timestamp: r.timestamp,
          actor: r.actor,
          action: r.action,
          resource_type: r.resourceType,
          resource_key: r.resourceKey,
          reason: d.emergency === true ? ('emergency_off' as const) : ('break_glass' as const),
          ...(typeof d.bypass_reason === 'string' && { bypass_reason: d.bypass_reason }),
        }
      })
    },
    async page(projectId: string, filter: AuditFilter, limit: number, offset: number) {
      const { rows, total } = await store.audit.page(store.db, projectId, filter, limit, offset)
      return {
        rows,
        total,
        names: await actorNames(
          store,
          projectId,
          rows.map((r) => r.actor),
        ),
      }
    },
  }
}
export type AuditService = ReturnType<typeof auditService>
