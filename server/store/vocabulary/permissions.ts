// Token permissions (spec: Authentication). Pure: shared with the console.
// `client`: a client key (evaluation only, client_side flags and configs only; access/client-keys.ts).
// `relay`: a relay key (docs/operations.md, Relays): reads flags and configs, verifies keys, forwards batches.
export const PERMISSIONS = ['read:flags', 'read:configs', 'write:flags', 'write:configs', '*', 'client', 'relay'] as const
export type Permission = (typeof PERMISSIONS)[number]

/** What holding a permission also grants: a relay key (docs/operations.md, Relays) reads everything its
 *  relay serves, flags and configs alike. */
const IMPLIED: Partial<Record<Permission, readonly Permission[]>> = { relay: ['read:flags', 'read:configs'] }

/** Whether permissions `held` grant `wanted` (`*`: everything). */
export const holds = (held: readonly string[], wanted: Permission): boolean =>
  held.includes('*') || held.includes(wanted) || held.some((h) => IMPLIED[h as Permission]?.includes(wanted) === true)
