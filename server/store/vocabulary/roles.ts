// Roles and what each may do (teams.md §1-2). Pure: shared with the console.
import type { Permission } from './permissions'

export const INSTANCE_ROLES = ['owner', 'admin', 'member'] as const
export type InstanceRole = (typeof INSTANCE_ROLES)[number]
export const PROJECT_ROLES = ['viewer', 'editor', 'admin'] as const
export type ProjectRole = (typeof PROJECT_ROLES)[number]
/** Per-environment override of a member's write rights: environment name -> viewer | editor. */
export type EnvironmentGrants = Record<string, 'viewer' | 'editor'>

const RANK: Record<ProjectRole, number> = { viewer: 0, editor: 1, admin: 2 }
export const projectRoleRank = (r: ProjectRole): number => RANK[r]
const INSTANCE_RANK: Record<InstanceRole, number> = { member: 0, admin: 1, owner: 2 }
export const instanceRoleRank = (r: InstanceRole): number => INSTANCE_RANK[r]

/** A role's rights expressed as token permissions, for the routes that check `can(token, …)`. */
export function permissionsOfRole(role: ProjectRole): Permission[] {
  if (role === 'admin') return ['*']
  if (role === 'editor') return ['read:flags', 'read:configs', 'write:flags', 'write:configs']
  return ['read:flags', 'read:configs']
}

/** Whether a project role (with its environment overrides) may write in `environment`. */
export function canWriteIn(role: ProjectRole, grants: EnvironmentGrants, environment: string): boolean {
  if (role === 'admin') return true
  const override = grants[environment]
  if (override !== undefined) return override === 'editor'
  return role === 'editor'
}
