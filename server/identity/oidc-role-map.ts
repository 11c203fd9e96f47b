// OIDC_ROLE_MAP: provider group -> instance role and/or project roles (teams.md §5). Pure: parsed once at
// start (a bad map stops the service naming the variable), applied at every SSO sign-in.
import {
  INSTANCE_ROLES,
  PROJECT_ROLES,
  instanceRoleRank,
  projectRoleRank,
  type EnvironmentGrants,
  type InstanceRole,
  type ProjectRole,
} from '../store/vocabulary/roles'
import { isObject } from '../engine/is-object'

export interface ProjectGrant {
  role: ProjectRole
  environments: EnvironmentGrants
}
export interface GroupGrant {
  instance?: InstanceRole
  projects: Record<string, ProjectGrant>
}
export type RoleMap = Record<string, GroupGrant>

/** What a user's groups grant: the highest instance role, and per project slug the union of rights. */
export interface MappedGrants {
  instance?: InstanceRole
  projects: Record<string, ProjectGrant>
}

const MAX_GROUPS = 1000
const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/
const ENV_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/

export function parseRoleMap(raw: unknown, variable: string): RoleMap {
  const fail = (what: string): never => {
    throw new Error(`${variable}: ${what}`)
  }
  if (!isObject(raw)) fail('must be a JSON object of group name -> { "instance": role } and/or { "projects": { … } }')
  const entries = Object.entries(raw as Record<string, unknown>)
  if (entries.length > MAX_GROUPS) fail(`at most ${MAX_GROUPS} groups`)
  // Null-prototype objects: a group or slug named __proto__ is a plain key, never the prototype.
  const map: RoleMap = Object.create(null)
  for (const [group, value] of entries) {
    if (!group || group.length > 256) fail(`group names must be 1 to 256 characters, got "${group.slice(0, 40)}"`)
    if (!isObject(value)) fail(`group "${group}" must map to an object`)
    const v = value as Record<string, unknown>
    for (const k of Object.keys(v))
      if (k !== 'instance' && k !== 'projects') fail(`group "${group}": unknown key "${k}" (use "instance" and/or "projects")`)
    const grant: GroupGrant = { projects: Object.create(null) }
    if (v.instance !== undefined) {
      if (!INSTANCE_ROLES.includes(v.instance as InstanceRole))
        fail(`group "${group}": instance must be one of ${INSTANCE_ROLES.join(', ')}`)
      grant.instance = v.instance as InstanceRole
    }
    if (v.projects !== undefined) {
      if (!isObject(v.projects)) fail(`group "${group}": projects must be an object of project slug -> { "role": … }`)
      for (const [slug, p] of Object.entries(v.projects as Record<string, unknown>)) {
        if (!SLUG.test(slug)) fail(`group "${group}": "${slug}" is not a project slug`)
        if (!isObject(p))
          fail(`group "${group}", project "${slug}": must be { "role": "viewer" | "editor" | "admin", "environments"?: { … } }`)
        const pp = p as Record<string, unknown>
        for (const k of Object.keys(pp))
          if (k !== 'role' && k !== 'environments') fail(`group "${group}", project "${slug}": unknown key "${k}"`)
        if (!PROJECT_ROLES.includes(pp.role as ProjectRole))
          fail(`group "${group}", project "${slug}": role must be one of ${PROJECT_ROLES.join(', ')}`)
        const environments: EnvironmentGrants = Object.create(null)
        if (pp.environments !== undefined) {
          if (!isObject(pp.environments))
            fail(`group "${group}", project "${slug}": environments must be an object of environment -> "viewer" | "editor"`)
          for (const [env, right] of Object.entries(pp.environments as Record<string, unknown>)) {
            if (!ENV_NAME.test(env)) fail(`group "${group}", project "${slug}": "${env}" is not an environment name`)
            if (right !== 'viewer' && right !== 'editor')
              fail(`group "${group}", project "${slug}", environment "${env}": must be "viewer" or "editor"`)
            environments[env] = right as 'viewer' | 'editor'
          }
        }
        grant.projects[slug] = { role: pp.role as ProjectRole, environments }
      }
    }
    if (!grant.instance && !Object.keys(grant.projects).length) fail(`group "${group}" grants nothing`)
    map[group] = grant
  }
  return map
}

/** The groups claim as a list of names: an array of strings, or one string. Anything else: no groups. */
export function groupsOf(claim: unknown): string[] {
  if (typeof claim === 'string') return [claim]
  if (Array.isArray(claim)) return claim.filter((g): g is string => typeof g === 'string').slice(0, MAX_GROUPS)
  return []
}

const writes = (g: ProjectGrant, env: string): boolean =>
  g.role === 'admin' || (g.environments[env] ?? (g.role === 'viewer' ? 'viewer' : 'editor')) === 'editor'

/** Two grants of one project merged: the higher role, and in each environment the greater right. */
function union(a: ProjectGrant, b: ProjectGrant): ProjectGrant {
  const role = projectRoleRank(a.role) >= projectRoleRank(b.role) ? a.role : b.role
  if (role === 'admin') return { role, environments: Object.create(null) }
  const environments: EnvironmentGrants = Object.create(null)
  for (const env of new Set([...Object.keys(a.environments), ...Object.keys(b.environments)])) {
    const right = writes(a, env) || writes(b, env) ? 'editor' : 'viewer'
    // Only differences from the role's own right are stored as overrides.
    if (right !== (role === 'editor' ? 'editor' : 'viewer')) environments[env] = right
  }
  return { role, environments }
}

/** What the user's groups grant under the map (groups not in the map grant nothing). */
export function mapGroups(groups: readonly string[], map: RoleMap): MappedGrants {
  const out: MappedGrants = { projects: Object.create(null) }
  for (const group of new Set(groups)) {
    const grant = Object.hasOwn(map, group) ? map[group] : undefined
    if (!grant) continue
    if (grant.instance && (!out.instance || instanceRoleRank(grant.instance) > instanceRoleRank(out.instance)))
      out.instance = grant.instance
    for (const [slug, p] of Object.entries(grant.projects))
      out.projects[slug] = out.projects[slug]
        ? union(out.projects[slug], p)
        : { role: p.role, environments: Object.assign(Object.create(null), p.environments) }
  }
  return out
}
