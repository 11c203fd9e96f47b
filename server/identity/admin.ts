// Instance administration of people (teams.md §6): list, change role or disable, delete, password-reset
// links. Nobody acts above their own rights (admins cannot touch owners or make one), and the last active
// owner can be neither demoted, disabled nor deleted: the check runs under a lock held to commit, so two
// owners demoting each other at the same moment leave one.
import type { Store, Db } from '../store'
import type { UserRow } from '../store/users'
import { notFound, conflict, forbidden, gone } from '../errors'
import { hashToken } from '../access/tokens'
import { instanceRoleRank, type InstanceRole } from '../store/vocabulary/roles'
import type { Identity } from './service'
import type { Person } from './directory'
import { assertPassword, hashPassword } from './passwords'
import { newSessionValue } from './sessions'

const RESET_MS = 24 * 3_600_000

export interface ByPerson {
  person: Person
  ip: string | null
}

const by = (b: ByPerson) => ({ actor: b.person.user.email, actorType: 'user', ip: b.ip })

export function userAdministration(store: Store, identity: Identity) {
  function mayActOn(b: ByPerson, target: UserRow, newRole?: InstanceRole): void {
    const own = instanceRoleRank(b.person.user.instanceRole)
    if (instanceRoleRank(target.instanceRole) > own || (newRole !== undefined && instanceRoleRank(newRole) > own)) {
      throw forbidden('FORBIDDEN', 'Only an owner may change an owner or make one', { required: 'instance:owner' })
    }
  }

  /** 409 LAST_OWNER when `target` is the last active owner and would stop being one. */
  async function keepAnOwner(tx: Db, target: UserRow, stillOwner: boolean): Promise<void> {
    await store.lock(tx, 'owners')
    const current = await store.users.get(tx, target.id)
    if (current?.instanceRole !== 'owner' || current.disabled || stillOwner) return
    const owners = await store.users.activeOwners(tx)
    if (owners.length <= 1) throw conflict('LAST_OWNER', 'The last active owner cannot be demoted, disabled or deleted')
  }

  async function target(tx: Db, id: string): Promise<UserRow> {
    const user = await store.users.get(tx, id)
    if (!user) throw notFound('USER_NOT_FOUND', 'User')
    return user
  }

  return {
    async update(b: ByPerson, id: string, input: { instance_role?: InstanceRole; disabled?: boolean }): Promise<UserRow> {
      const user = await identity.change(async (tx, notify) => {
        const before = await target(tx, id)
        mayActOn(b, before, input.instance_role)
        const role = input.instance_role ?? before.instanceRole
        const disabled = input.disabled ?? before.disabled
        await keepAnOwner(tx, before, role === 'owner' && !disabled)
        await store.users.update(tx, id, { instanceRole: role, disabled, updatedAt: new Date().toISOString() })
        // Disabling ends every session at once.
        if (disabled && !before.disabled) await store.sessions.deleteForUser(tx, id)
        await identity.audit(tx, {
          ...by(b),
          action: 'update',
          resourceType: 'user',
          resourceKey: id,
          details: {
            email: before.email,
            before: { instance_role: before.instanceRole, disabled: before.disabled },
            after: { instance_role: role, disabled },
          },
        })
        notify({ resourceType: 'user', resourceKey: id })
        return { ...before, instanceRole: role, disabled }
      })
      await identity.directory.refresh(id)
      return user
    },

    async delete(b: ByPerson, id: string): Promise<void> {
      await identity.change(async (tx, notify) => {
        const before = await target(tx, id)
        mayActOn(b, before)
        await keepAnOwner(tx, before, false)
        await store.sessions.deleteForUser(tx, id)
        const removed = await store.tokens.deleteByOwner(tx, id)
        await store.users.delete(tx, id)
        await identity.audit(tx, {
          ...by(b),
          action: 'delete',
          resourceType: 'user',
          resourceKey: id,
          details: { email: before.email, personal_tokens: removed.map((t) => t.tokenPrefix) },
        })
        notify({ resourceType: 'user', resourceKey: id })
        // Their personal tokens go with them (every instance reloads those projects' tokens).
        for (const projectId of new Set(removed.map((t) => t.projectId))) notify({ resourceType: 'token', resourceKey: '', projectId })
      })
      await identity.directory.refresh(id)
    },

    /** A one-time link (24 h) with which the user sets a new password; shown once. */
    async passwordReset(b: ByPerson, id: string, origin: string): Promise<{ url: string; expires_at: string }> {
      const token = newSessionValue()
      const expiresAt = new Date(Date.now() + RESET_MS).toISOString()
      await identity.change(async (tx) => {
        const user = await target(tx, id)
        mayActOn(b, user)
        await store.sessions.insertReset(tx, {
          hash: hashToken(token),
          userId: id,
          createdAt: new Date().toISOString(),
          expiresAt,
          usedAt: null,
        })
        await identity.audit(tx, {
          ...by(b),
          action: 'password_reset_link',
          resourceType: 'user',
          resourceKey: id,
          details: { email: user.email },
        })
      })
      return { url: `${origin}/reset/${token}`, expires_at: expiresAt }
    },

    /** Uses a reset link: sets the password and ends every session of the user. 410 when used or expired. */
    async usePasswordReset(token: string, password: string, ip: string | null): Promise<void> {
      const hash = hashToken(token)
      const row = await store.sessions.reset(store.db, hash)
      if (!row || row.usedAt !== null || Date.parse(row.expiresAt) <= Date.now())
        throw gone('RESET_GONE', 'This password-reset link was used or has expired')
      const user = await store.users.get(store.db, row.userId)
      if (!user) throw gone('RESET_GONE', 'This password-reset link was used or has expired')
      assertPassword(password, user.email)
      const passwordHash = await hashPassword(password)
      await identity.change(async (tx, notify) => {
        const again = await store.sessions.reset(tx, hash)
        if (!again || again.usedAt !== null) throw gone('RESET_GONE', 'This password-reset link was used or has expired')
        await store.sessions.useReset(tx, hash, new Date().toISOString())
        await store.users.update(tx, user.id, { passwordHash, updatedAt: new Date().toISOString() })
        await store.sessions.deleteForUser(tx, user.id)
        await identity.audit(tx, {
          actor: user.email,
          actorType: 'user',
          action: 'password_reset',
          resourceType: 'user',
          resourceKey: user.id,
          ip,
        })
        notify({ resourceType: 'user', resourceKey: user.id })
      })
    },
  }
}
export type UserAdministration = ReturnType<typeof userAdministration>
