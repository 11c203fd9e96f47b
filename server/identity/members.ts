// Project members (teams.md §1, §6): a user's role in a project with per-environment overrides, and who can
// change an environment. Changes are written to the project's audit log in their transaction, and a
// `member` notice makes every instance re-read the person.
import type { Store } from '../store'
import type { MembershipRow } from '../store/users'
import type { ProjectRow } from '../store/projects'
import { notFound, validationError, invalid } from '../errors'
import { canWriteIn, type EnvironmentGrants, type ProjectRole } from '../store/vocabulary/roles'
import type { Access } from '../access/authorize'
import type { Identity } from './service'
import { userView } from './service'
import { expiryOf } from '../access/tokens'

export interface MemberInput {
  role: ProjectRole
  environments?: EnvironmentGrants
}

export interface ProjectActor {
  name: string
  actorType?: string
  credential?: string | null
}

export function checkGrants(project: ProjectRow, environments: EnvironmentGrants | undefined, path = 'environments'): EnvironmentGrants {
  const grants = environments ?? {}
  const issues = Object.entries(grants).flatMap(([env, r]) => [
    ...(project.environments.includes(env)
      ? []
      : [{ path: `${path}.${env}`, message: `no such environment; known: ${project.environments.join(', ')}` }]),
    ...(r === 'viewer' || r === 'editor' ? [] : [{ path: `${path}.${env}`, message: 'must be viewer or editor' }]),
  ])
  if (issues.length) throw validationError(issues)
  return grants
}

export function memberOperations(store: Store, identity: Identity, access: Access) {
  const memberView = (m: MembershipRow) => {
    const person = identity.directory.get(m.userId)
    return person ? { user: userView(person.user), role: m.role, environments: m.environments, via: m.via } : undefined
  }

  async function projectOf(projectId: string): Promise<ProjectRow> {
    const project = await store.projects.get(store.db, projectId)
    if (!project) throw notFound('PROJECT_NOT_FOUND', 'Project')
    return project
  }

  return {
    async list(projectId: string) {
      return (await store.users.members(store.db, projectId))
        .map(memberView)
        .filter((m) => m !== undefined)
        .sort((a, b) => a.user.email.localeCompare(b.user.email))
    },

    async put(actor: ProjectActor, projectId: string, userId: string, input: MemberInput) {
      const project = await projectOf(projectId)
      const environments = checkGrants(project, input.environments)
      await identity.change(async (tx, notify) => {
        const user = await store.users.get(tx, userId)
        if (!user) throw notFound('USER_NOT_FOUND', 'User')
        const before = await store.users.membership(tx, projectId, userId)
        const row: MembershipRow = {
          projectId,
          userId,
          role: input.role,
          environments,
          via: 'project',
          createdAt: before?.createdAt ?? new Date().toISOString(),
        }
        await store.users.putMembership(tx, row)
        await store.audit.insert(tx, {
          projectId,
          timestamp: new Date().toISOString(),
          actor: actor.name,
          actorType: actor.actorType ?? 'token',
          credential: actor.credential ?? null,
          action: before ? 'update' : 'create',
          resourceType: 'member',
          resourceKey: userId,
          // The person by name and email (the key is their user id), as the audit log shows them.
          before: before ? { email: user.email, name: user.name, role: before.role, environments: before.environments } : null,
          after: { email: user.email, name: user.name, role: input.role, environments },
        })
        notify({ resourceType: 'member', resourceKey: userId, projectId })
      })
      await identity.directory.refresh(userId)
      return memberView((await store.users.membership(store.db, projectId, userId))!)!
    },

    async delete(actor: ProjectActor, projectId: string, userId: string) {
      await identity.change(async (tx, notify) => {
        const before = await store.users.membership(tx, projectId, userId)
        if (!before) throw notFound('MEMBER_NOT_FOUND', 'Member')
        const user = await store.users.get(tx, userId)
        await store.users.deleteMembership(tx, projectId, userId)
        await store.audit.insert(tx, {
          projectId,
          timestamp: new Date().toISOString(),
          actor: actor.name,
          actorType: actor.actorType ?? 'token',
          credential: actor.credential ?? null,
          action: 'delete',
          resourceType: 'member',
          resourceKey: userId,
          before: { email: user?.email ?? null, name: user?.name ?? null, role: before.role, environments: before.environments },
          after: null,
        })
        notify({ resourceType: 'member', resourceKey: userId, projectId })
      })
      await identity.directory.refresh(userId)
    },

    /** Who can change `environment` of the project, and how (teams.md §6). */
    async access(projectId: string, environment: string) {
      const project = await projectOf(projectId)
      if (!project.environments.includes(environment))
        throw invalid('VALIDATION_ERROR', `Unknown environment "${environment}"`, {
          issues: [{ path: 'environment', message: `must be one of ${project.environments.join(', ')}` }],
        })
      const users = [...identity.directory.all()]
        .flatMap((person) => {
          if (person.user.disabled) return []
          const grant = access.grantOf(person, projectId)
          if (!grant || !canWriteIn(grant.role, grant.environments, environment)) return []
          return [{ user: userView(person.user), role: grant.role, via: grant.via }]
        })
        .sort((a, b) => a.user.email.localeCompare(b.user.email))
      const now = Date.now()
      const tokens = (await store.tokens.byProject(store.db, projectId)).flatMap((t) => {
        if (expiryOf(t) <= now) return []
        if (!t.permissions.some((p) => p === '*' || p === 'write:flags' || p === 'write:configs')) return []
        if (t.environments !== null && !t.environments.includes(environment)) return []
        let owner: string | undefined
        if (t.ownerUserId !== null) {
          const person = identity.directory.get(t.ownerUserId)
          const grant = person && !person.user.disabled ? access.grantOf(person, projectId) : undefined
          if (!grant || !canWriteIn(grant.role, grant.environments, environment)) return []
          owner = person!.user.email
        }
        return [
          {
            name: t.name,
            token_prefix: t.tokenPrefix,
            permissions: t.permissions,
            environments: t.environments,
            ...(owner !== undefined && { owner }),
          },
        ]
      })
      return { environment, users, tokens }
    },
  }
}
export type MemberOperations = ReturnType<typeof memberOperations>
