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
