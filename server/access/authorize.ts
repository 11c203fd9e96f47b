// server/access: what a caller may do. One `authorize(principal, action, affected, projectRef)` decides
// every route, for sessions, tokens and personal tokens alike (teams.md §1-4), from memory only: roles
// come from the identity directory, projects and tokens from the snapshots. Refusals say what is missing.
import type { Snapshots } from '../cache/snapshots'
import type { Directory, Person } from '../identity/directory'
import type { Actor } from './actor'
import { forbidden as forbiddenWith, invalid, notFound, unauthorized } from '../errors'
import { holds, type Permission } from '../store/vocabulary/permissions'
import type { ProjectRow } from '../store/projects'
import type { TokenRow } from '../store/tokens'
import { clientKeyMayCall, isClientKey } from './client-keys'
import { canWriteIn, instanceRoleRank, permissionsOfRole, type EnvironmentGrants, type ProjectRole } from '../store/vocabulary/roles'

/** What a route declares it needs: a token permission (read:flags … `*` = project admin), `any` (anyone in
 *  the project), `self` (any authenticated caller, no project), `session` (a signed-in person only),
 *  `instance:admin` / `instance:owner`, or `public` (no authentication). */
export type RouteAction = Permission | 'any' | 'self' | 'session' | 'instance:admin' | 'instance:owner' | 'public'
export const ROUTE_ACTIONS: readonly RouteAction[] = [
  'read:flags',
  'read:configs',
  'write:flags',
  'write:configs',
  '*',
  'client',
  'relay',
  'any',
  'self',
  'session',
  'instance:admin',
  'instance:owner',
  'public',
]

/** The environments a change affects (teams.md §4): every environment of the project, or the ones named. */
export type Affected = 'all' | string[]

export interface Principal {
  token: TokenRow
  actor: Actor
  /** a person: signed in (sessionId) or the owner of a personal token */
  person?: { userId: string; sessionId?: string }
}

export interface Grant {
  role: ProjectRole
  environments: EnvironmentGrants
  via: 'project' | 'instance' | 'sso'
}

export interface Decision {
  /** the project the request acts on (null for instance-wide and `self` routes) */
  projectId: string | null
  /** the caller's rights there, as token permissions */
  permissions: Permission[]
}

const WRITE = new Set<RouteAction>(['write:flags', 'write:configs'])
const READ = new Set<RouteAction>(['read:flags', 'read:configs', 'any'])

const forbidden = (message: string, details: Record<string, unknown>) => forbiddenWith('FORBIDDEN', message, details)

export function createAccess(deps: { directory: Pick<Directory, 'get'>; snapshots: Snapshots }) {
  const { directory, snapshots } = deps

  /** A person's role in a project: instance owners and admins are admins of every project. */
  function grantOf(person: Person, projectId: string): Grant | undefined {
    if (instanceRoleRank(person.user.instanceRole) >= instanceRoleRank('admin')) return { role: 'admin', environments: {}, via: 'instance' }
    const m = person.memberships.get(projectId)
    return m ? { role: m.role, environments: m.environments, via: m.via } : undefined
  }

  /** Throws unless `grant` allows `action` on `affected` environments of `project`. */
  function checkGrant(grant: Grant, action: RouteAction, affected: Affected, project: ProjectRow): void {
    if (READ.has(action)) return
    if (action === '*' || !WRITE.has(action)) {
      if (grant.role !== 'admin')
        throw forbidden(`This needs the project admin role (you are ${grant.role})`, { required: action, role: 'admin' })
      return
    }
    if (grant.role === 'admin') return
    const envs = affected === 'all' ? project.environments : affected
    const denied = envs.filter((e) => !canWriteIn(grant.role, grant.environments, e))
    const writesSomewhere = grant.role === 'editor' || Object.values(grant.environments).includes('editor')
    if (!writesSomewhere || (envs.length === 0 && grant.role === 'viewer'))
      throw forbidden(`This needs write rights (you are ${grant.role})`, { required: action, role: 'editor' })
    if (denied.length)
      throw forbiddenWith('ENVIRONMENT_FORBIDDEN', `No write rights in ${denied.join(', ')}`, { required: action, environments: denied })
  }

  /** A token's `environments` scope: its write permissions apply only to changes affecting those only. */
  function checkTokenScope(token: TokenRow, action: RouteAction, affected: Affected, project: ProjectRow): void {
    if (!token.environments || READ.has(action)) return
    // Admin actions (tokens, webhooks, settings) count as affecting every environment.
    const envs = affected === 'all' || action === '*' ? project.environments : affected
    const outside = envs.filter((e) => !token.environments!.includes(e))
    if (outside.length)
      throw forbiddenWith('ENVIRONMENT_FORBIDDEN', `This token may only change ${token.environments.join(', ') || 'no environment'}`, {
        required: action,
        environments: outside,
      })
  }

  const projectOf = (id: string): ProjectRow | undefined => snapshots.project(id)?.project

  /** Whether a personal token still stands: its owner exists, is enabled and still belongs to its project
   *  (otherwise the token answers 401 at once). Machine tokens always do. */
  function personalTokenLive(token: TokenRow): boolean {
    if (token.ownerUserId === null) return true
    const owner = directory.get(token.ownerUserId)
    return owner !== undefined && !owner.user.disabled && grantOf(owner, token.projectId) !== undefined
  }

  /** `route`: the request's method and path, which decide what a client key may call (client-keys.ts). */
  function authorize(
    p: Principal,
    action: RouteAction,
    affected: Affected,
    projectRef: string | null,
    route?: { method: string; path: string },
  ): Decision {
    if (action === 'public') return { projectId: null, permissions: [] }
    const sessionUser = p.person?.sessionId !== undefined ? directory.get(p.person.userId) : undefined
    if (p.person?.sessionId !== undefined) {
      if (!sessionUser || sessionUser.user.disabled) throw unauthorized('UNAUTHORIZED', 'Session ended; sign in again')
      if (action === 'self' || action === 'session') return { projectId: null, permissions: [] }
      if (action === 'instance:admin' || action === 'instance:owner') {
        const need = action === 'instance:owner' ? 'owner' : 'admin'
        if (instanceRoleRank(sessionUser.user.instanceRole) < instanceRoleRank(need))
          throw forbidden(`This needs the instance ${need} role`, { required: action })
        return { projectId: null, permissions: [] }
      }
      if (!projectRef) throw invalid('PROJECT_REQUIRED', 'Name the project with the Flagship-Project header (its id or slug)')
      const project = snapshots.projectByRef(projectRef)?.project
      const grant = project && grantOf(sessionUser, project.id)
      if (!project || !grant) throw notFound('PROJECT_NOT_FOUND', 'Project')
      checkGrant(grant, action, affected, project)
      return { projectId: project.id, permissions: permissionsOfRole(grant.role) }
    }
    // A token (machine or personal).
    const token = p.token
    const project = projectOf(token.projectId)
    if (projectRef !== null && projectRef !== token.projectId && projectRef !== project?.slug) {
      throw forbidden('This token belongs to another project', { required: 'project', project_id: token.projectId })
    }
    // A client key may only evaluate (client-keys.ts), whatever the route declares.
    if (isClientKey(token.permissions)) {
      if (route === undefined || !clientKeyMayCall(route.method, route.path)) {
        throw forbidden('A client key may only evaluate (flags, configs, OFREP and its stream, events)', {
          required: action,
          client_key: true,
        })
      }
      const owner = token.ownerUserId !== null ? directory.get(token.ownerUserId) : undefined
      if (token.ownerUserId !== null && (!owner || !project || !grantOf(owner, token.projectId)))
        throw unauthorized('UNAUTHORIZED', "The token's owner no longer has access")
      return { projectId: token.projectId, permissions: token.permissions }
    }
    if (action === 'session' || action === 'instance:admin' || action === 'instance:owner')
      throw forbidden('This needs a signed-in person (a session), not a token', { required: action })
    if (action === 'self' || action === 'any') return { projectId: token.projectId, permissions: token.permissions }
    if (!holds(token.permissions, action as Permission)) {
      throw forbidden(`This token lacks the "${action}" permission`, { required: action })
    }
    if (project) checkTokenScope(token, action, affected, project)
    if (token.ownerUserId !== null) {
      const owner = directory.get(token.ownerUserId)
      const grant = owner && grantOf(owner, token.projectId)
      if (!grant || !project) throw unauthorized('UNAUTHORIZED', "The token's owner no longer has access")
      checkGrant(grant, action, affected, project)
    }
    return { projectId: token.projectId, permissions: token.permissions }
  }

  const emailOf = (userId: string): string | undefined => directory.get(userId)?.user.email

  return { authorize, grantOf, checkGrant, personalTokenLive, emailOf }
}
export type Access = ReturnType<typeof createAccess>
