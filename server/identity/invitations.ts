// Invitations (teams.md §6): instance admins invite anywhere, project admins to their projects, never above
// their own rights. The token is shown once (only its SHA-256 is stored), lasts 7 days and is used once:
// accepting creates the user with the invited grants and signs them in; a used or expired one is 410.
import type { Store } from '../store'
import type { InvitationRow } from '../store/instance-audit'
import type { UserRow } from '../store/users'
import { notFound, validationError, conflict, forbidden, gone as goneWith, limitReached } from '../errors'
import { hashToken } from '../access/tokens'
import { instanceRoleRank, type EnvironmentGrants, type InstanceRole, type ProjectRole } from '../store/vocabulary/roles'
import type { Access } from '../access/authorize'
import type { Identity } from './service'
import type { Person } from './directory'
import { normalEmail, displayName } from './service'
import { assertPassword } from './passwords'
import { newSessionValue } from './sessions'
import { checkGrants } from './members'
import { clientAddress } from './request-meta'

const VALID_MS = 7 * 86_400_000
const MAX_OPEN = 1000

export interface InvitationInput {
  email: string
  instance_role?: InstanceRole
  projects?: { project: string; role: ProjectRole; environments?: EnvironmentGrants }[]
}

export const invitationView = (r: InvitationRow) => ({
  id: r.id,
  email: r.email,
  instance_role: r.instanceRole,
  projects: r.projects,
  created_by: r.createdBy,
  created_at: r.createdAt,
  expires_at: r.expiresAt,
  accepted_at: r.acceptedAt,
})

const gone = () => goneWith('INVITATION_GONE', 'This invitation was used, withdrawn or has expired')

export function invitationOperations(store: Store, identity: Identity, access: Access) {
  const isInstanceAdmin = (p: Person) => instanceRoleRank(p.user.instanceRole) >= instanceRoleRank('admin')

  /** The open invitation a token names, or 410. */
  async function open(token: string): Promise<InvitationRow> {
    const row = typeof token === 'string' && token.length <= 128 ? await store.invitations.byHash(store.db, hashToken(token)) : undefined
    if (!row || row.acceptedAt !== null || Date.parse(row.expiresAt) <= Date.now()) throw gone()
    return row
  }

  /** In one transaction: marks the invitation used (410 if another accept got there first) and gives
   *  `user` the invited project grants. */
  async function grant(
    row: InvitationRow,
    makeUser: (tx: Parameters<Parameters<Identity['change']>[0]>[0]) => Promise<UserRow>,
  ): Promise<UserRow> {
    const user = await identity.change(async (tx, notify) => {
      if (!(await store.invitations.accept(tx, row.id, new Date().toISOString()))) throw gone()
      const u = await makeUser(tx)
      for (const p of row.projects) {
        if (!(await store.projects.get(tx, p.project))) continue
        await store.users.putMembership(tx, {
          projectId: p.project,
          userId: u.id,
          role: p.role,
          environments: p.environments,
          via: 'project',
          createdAt: new Date().toISOString(),
        })
      }
      await identity.audit(tx, {
        actor: u.email,
        actorType: 'user',
        action: 'accept',
        resourceType: 'invitation',
        resourceKey: row.id,
        details: { email: u.email },
      })
      notify({ resourceType: 'user', resourceKey: u.id })
      return u
    })
    await identity.directory.refresh(user.id)
    return user
  }

  return {
    async create(by: Person, input: InvitationInput, origin: string, ip: string | null) {
      const email = normalEmail(input.email)
      const instanceRole = input.instance_role ?? 'member'
      if (instanceRoleRank(instanceRole) > instanceRoleRank(by.user.instanceRole) || (instanceRole !== 'member' && !isInstanceAdmin(by))) {
        throw forbidden('FORBIDDEN', `You cannot invite someone as ${instanceRole}`, {
          required: instanceRole === 'owner' ? 'instance:owner' : 'instance:admin',
        })
      }
      const projects: InvitationRow['projects'] = []
      for (const [i, p] of (input.projects ?? []).entries()) {
        const snap = (await store.projects.get(store.db, p.project)) ?? (await store.projects.bySlug(store.db, p.project))
        const own = snap ? access.grantOf(by, snap.id) : undefined
        if (!snap || !own) throw notFound('PROJECT_NOT_FOUND', `Project "${p.project}"`)
        if (own.role !== 'admin')
          throw forbidden('FORBIDDEN', `Only admins of ${snap.slug} may invite to it`, { required: '*', project: snap.slug })
        projects.push({ project: snap.id, role: p.role, environments: checkGrants(snap, p.environments, `projects[${i}].environments`) })
      }
      if (!isInstanceAdmin(by) && projects.length === 0)
        throw validationError([{ path: 'projects', message: 'name at least one project you administer' }])
      const token = newSessionValue()
      const row: InvitationRow = {
        id: crypto.randomUUID(),
        hash: hashToken(token),
        email,
        instanceRole,
        projects,
        createdBy: by.user.id,
        createdAt: new Date().toISOString(),
        expiresAt: new Date(Date.now() + VALID_MS).toISOString(),
        acceptedAt: null,
      }
      await identity.change(async (tx) => {
        if (await store.users.byEmail(tx, email)) throw conflict('CONFLICT', 'A user with this email already exists')
        if ((await store.invitations.count(tx)) >= MAX_OPEN) throw limitReached(`At most ${MAX_OPEN} invitations are kept; delete old ones`)
        await store.invitations.insert(tx, row)
        await identity.audit(tx, {
          actor: by.user.email,
          actorType: 'user',
          action: 'create',
          resourceType: 'invitation',
          resourceKey: row.id,
          details: { email, instance_role: instanceRole, projects },
          ip,
        })
      })
      return { id: row.id, token, url: `${origin}/invite/${token}`, expires_at: row.expiresAt }
    },

    /** Instance admins see every invitation; others the ones they made. */
    async list(by: Person) {
      const rows = await store.invitations.all(store.db)
      return rows.filter((r) => isInstanceAdmin(by) || r.createdBy === by.user.id).map(invitationView)
    },

    async delete(by: Person, id: string, ip: string | null) {
      await identity.change(async (tx) => {
        const row = await store.invitations.get(tx, id)
        if (!row || (!isInstanceAdmin(by) && row.createdBy !== by.user.id)) throw notFound('INVITATION_NOT_FOUND', 'Invitation')
        await store.invitations.delete(tx, id)
        await identity.audit(tx, {
          actor: by.user.email,
          actorType: 'user',
          action: 'delete',
          resourceType: 'invitation',
          resourceKey: id,
          details: { email: row.email },
          ip,
        })
      })
    },

    /** Accepts with a password: creates the user and signs them in (the Set-Cookie value is returned). */
    async accept(input: { token: string; name: string; password: string }, request: Request) {
      await identity.throttle.checkAddress(clientAddress(request))
      const row = await open(input.token)
      const name = displayName(input.name)
      assertPassword(input.password, row.email)
      const user = await grant(row, (tx) =>
        identity.createUser(
          tx,
          { email: row.email, name, instanceRole: row.instanceRole, password: input.password },
          { actor: row.email, actorType: 'user', ip: clientAddress(request) },
        ),
      )
      return { user, cookie: await identity.signIn(user, request, 'invitation') }
    },

    /** What an invitation is for, shown on its accept page to whoever holds its secret token (and to nobody
     *  else: a wrong, used or expired token is the same 410 as accepting it). Throttled per address like
     *  accepting, so it is no way to guess tokens. */
    async preview(token: string, request: Request) {
      await identity.throttle.checkAddress(clientAddress(request))
      const row = await open(token)
      const projects = []
      for (const p of row.projects) {
        const project = await store.projects.get(store.db, p.project)
        if (project) projects.push({ id: project.id, slug: project.slug, name: project.name, role: p.role, environments: p.environments })
      }
      return { email: row.email, instance_role: row.instanceRole, projects, expires_at: row.expiresAt }
    },

    /** For single sign-on with `?invitation=`: the open invitation's email (to compare with the verified one). */
    byToken: async (token: string): Promise<{ email: string }> => ({ email: (await open(token)).email }),

    /** For single sign-on: uses the invitation for a user the SSO sign-in created or found (same email). */
    async acceptFor(token: string, user: UserRow): Promise<void> {
      const row = await open(token)
      if (row.email !== user.email) throw forbidden('FORBIDDEN', 'This invitation is for another email address')
      await grant(row, async (tx) => {
        if (instanceRoleRank(row.instanceRole) > instanceRoleRank(user.instanceRole))
          await store.users.update(tx, user.id, { instanceRole: row.instanceRole })
        return user
      })
    },
  }
}
export type InvitationOperations = ReturnType<typeof invitationOperations>
