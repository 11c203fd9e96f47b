// Which environments a change affects (teams.md §4, docs/change-requests.md): creating, changing top-level
// fields of, deleting, archiving, restoring or rolling back a flag or config affects every environment; an
// environment override affects that environment only; any segment change affects every environment (rules
// use segments); a schedule affects what its change affects. The same rule gates token scopes, roles and
// protected environments. Pure.
/** Same as authorize.ts's Affected (kept import-free so services can use this file). */
export type Affected = 'all' | string[]

/** A recorded change: its resource, and the environment its event names ('' for none). */
export function affectedByChange(resourceType: string, environment: string): Affected {
  if (resourceType === 'segment') return 'all'
  return environment === '' ? 'all' : [environment]
}

/** The concrete environment names, given the project's. */
export const affectedNames = (affected: Affected, projectEnvironments: readonly string[]): string[] =>
  affected === 'all' ? [...projectEnvironments] : affected.filter((e) => projectEnvironments.includes(e))

/** The union of several changes' environments. */
export function unionAffected(list: Affected[]): Affected {
  if (list.some((a) => a === 'all')) return 'all'
  return [...new Set(list.flatMap((a) => a as string[]))]
}

/** What a stored body's wire form adds (a change-request item's before/after are those): not content. */
const BOOKKEEPING = new Set(['environments', 'key', 'version', 'created_at', 'updated_at'])
const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
/** JSON equality, whatever order the keys are in (PostgreSQL's jsonb keeps its own). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]))
  if (!isPlainObject(a) || !isPlainObject(b)) return false
  const ka = Object.keys(a).filter((k) => a[k] !== undefined)
  const kb = Object.keys(b).filter((k) => b[k] !== undefined)
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]))
}

/** The one environment an update of a flag's or config's body touches, when it changes nothing but that
 *  environment's override (its switch, value, variant or own rules), whichever route makes it (the
 *  override routes, a whole PUT, an import, a promotion, a change-request item); '' otherwise (every
 *  environment), and for a change that changes nothing. */
export function touchedEnvironment(before: unknown, after: unknown): string {
  if (!isPlainObject(before) || !isPlainObject(after)) return ''
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)]))
    if (!BOOKKEEPING.has(k) && !sameJson(before[k], after[k])) return ''
  const a = isPlainObject(before.environments) ? before.environments : {}
  const b = isPlainObject(after.environments) ? after.environments : {}
  const changed = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((e) => !sameJson(a[e], b[e]))
  return changed.length === 1 ? changed[0]! : ''
}

/** The environments an import's (or a promotion's) planned changes affect: a create or delete, or any
 *  segment change, affects every environment; an update whose differences (RFC 6902 paths) all lie inside
 *  one environment's override affects that one. */
export function planAffects(changes: { resource_type: string; action: string; diff: { path: string }[] }[]): Affected {
  return unionAffected(
    changes.map((c): Affected => {
      if (c.resource_type === 'segment' || c.action !== 'update') return 'all'
      const envs = new Set(c.diff.map((d) => /^\/environments\/([^/]+)(?:\/|$)/.exec(d.path)?.[1] ?? ''))
      return envs.size === 1 && !envs.has('') ? [...envs] : 'all'
    }),
  )
}
