// Finding, creating and linking users, for every way people arrive: invitations, instance admins, single
// sign-on (identity/oidc*.ts) and the CLI. Each change is one transaction with its instance-audit entry,
// and a `user` change notice after commit.
import type { Store, Db } from '../store'
import type { UserRow } from '../store/users'
import type { EnvironmentGrants, InstanceRole, ProjectRole } from '../store/vocabulary/roles'
import type { ChangeNotice } from '../notices/changes'
import type { Directory } from './directory'

export interface AuditEntry {
  actor: string
  actorType: string
  action: string
  resourceType: string
  resourceKey: string
  details?: Record<string, unknown> | null
  ip?: string | null
}

export interface By {
  actor: string
  actorType: string
  ip?: string | null
}

export interface SsoGrants {
  /** the instance role the provider's groups map to (undefined: leave it) */
  instanceRole?: InstanceRole
  /** project grants the groups map to, by project slug */
  projects: { slug: string; role: ProjectRole; environments?: EnvironmentGrants }[]
}

type Change = <T>(fn: (tx: Db, notify: (n: Omit<ChangeNotice, 'projectId'> & { projectId?: string }) => void) => Promise<T>) => Promise<T>

export function userOperations(deps: {
  store: Store
  directory: Directory
  change: Change
  audit: (tx: Db, e: AuditEntry) => Promise<void>
  createUser: (
    tx: Db,
    input: { email: string; name: string; instanceRole: InstanceRole; password?: string; sso?: boolean },
    by: By,
  ) => Promise<UserRow>
}) {
  const { store, directory, change, audit } = deps
  return {
    byEmail: (email: string): Promise<UserRow | undefined> => store.users.byEmail(store.db, email.trim().toLowerCase()),
    byId: (id: string): Promise<UserRow | undefined> => store.users.get(store.db, id),
    async byIdentity(issuer: string, subject: string): Promise<UserRow | undefined> {
      const link = await store.users.byIdentity(store.db, issuer, subject)
      return link ? store.users.get(store.db, link.userId) : undefined
    },

    /** A new user (409 CONFLICT when the email is taken). */
    async create(
      input: { email: string; name: string; instanceRole: InstanceRole; password?: string; sso?: boolean },
      by: By,
    ): Promise<UserRow> {
      const user = await change(async (tx, notify) => {
        const u = await deps.createUser(tx, input, by)
        notify({ resourceType: 'user', resourceKey: u.id })
        return u
      })
      return user
    },

    /** Links an account at an OpenID provider to a user (and marks the user as known to SSO). */
    async linkIdentity(userId: string, issuer: string, subject: string, by: By): Promise<void> {
      await change(async (tx, notify) => {
        await store.users.linkIdentity(tx, { issuer, subject, userId, createdAt: new Date().toISOString() })
        await store.users.update(tx, userId, { sso: true, updatedAt: new Date().toISOString() })
        await audit(tx, { ...by, action: 'link_identity', resourceType: 'user', resourceKey: userId, details: { issuer } })
        notify({ resourceType: 'user', resourceKey: userId })
      })
    },

    /** Re-applies the grants an SSO sign-in's groups map to: the instance role when given, and the user's
     *  `sso` memberships replaced by these (a mapped grant wins over a hand edit of the same project; other
     *  grants made by hand stay). Unknown project slugs are skipped. */
    async applySsoGrants(userId: string, grants: SsoGrants, by: By): Promise<void> {
      await change(async (tx, notify) => {
        const user = await store.users.get(tx, userId)
        if (!user) return
        const now = new Date().toISOString()
        if (grants.instanceRole !== undefined && grants.instanceRole !== user.instanceRole) {
          // The last active owner keeps the role, whatever a provider says.
          await store.lock(tx, 'owners')
          const owners = await store.users.activeOwners(tx)
          const last = user.instanceRole === 'owner' && owners.length <= 1
          if (!last) await store.users.update(tx, userId, { instanceRole: grants.instanceRole, updatedAt: now })
        }
        const wanted = new Map<string, SsoGrants['projects'][number]>()
        for (const g of grants.projects) {
          const project = await store.projects.bySlug(tx, g.slug)
          if (project) wanted.set(project.id, g)
        }
        for (const m of await store.users.memberships(tx, userId)) {
          if (m.via === 'sso' && !wanted.has(m.projectId)) await store.users.deleteMembership(tx, m.projectId, userId)
        }
        for (const [projectId, g] of wanted) {
          await store.users.putMembership(tx, {
            projectId,
            userId,
            role: g.role,
            environments: g.environments ?? {},
            via: 'sso',
            createdAt: now,
          })
        }
        await audit(tx, {
          ...by,
          action: 'sso_grants',
          resourceType: 'user',
          resourceKey: userId,
          details: { instance_role: grants.instanceRole ?? null, projects: grants.projects.map((p) => ({ slug: p.slug, role: p.role })) },
        })
        notify({ resourceType: 'user', resourceKey: userId })
        for (const projectId of wanted.keys()) notify({ resourceType: 'member', resourceKey: userId, projectId })
      })
      await directory.refresh(userId)
    },
  }
}
