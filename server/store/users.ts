// Repository for people: users, their project memberships and their single sign-on identities.
import { and, asc, eq, inArray, isNull, lt, or } from 'drizzle-orm'
import type { Db, Tables } from './database'

export type UserRow = Tables['users']['$inferSelect']
export type MembershipRow = Tables['memberships']['$inferSelect']
export type IdentityRow = Tables['userIdentities']['$inferSelect']

export function userRepository(t: Tables) {
  const u = t.users
  const m = t.memberships
  return {
    all(db: Db): Promise<UserRow[]> {
      return db.select().from(u).orderBy(asc(u.email))
    },
    async count(db: Db): Promise<number> {
      return (await db.select({ id: u.id }).from(u).limit(1)).length
    },
    async get(db: Db, id: string): Promise<UserRow | undefined> {
      const [row] = await db.select().from(u).where(eq(u.id, id))
      return row
    },
    async byEmail(db: Db, email: string): Promise<UserRow | undefined> {
      const [row] = await db.select().from(u).where(eq(u.email, email))
      return row
    },
    /** The active owners, read inside the transaction that may remove one (LAST_OWNER). */
    activeOwners(db: Db): Promise<UserRow[]> {
      return db
        .select()
        .from(u)
        .where(and(eq(u.instanceRole, 'owner'), eq(u.disabled, false)))
    },
    async insert(db: Db, row: UserRow): Promise<void> {
      await db.insert(u).values(row)
    },
    async update(db: Db, id: string, changes: Partial<Omit<UserRow, 'id' | 'createdAt'>>): Promise<void> {
      await db.update(u).set(changes).where(eq(u.id, id))
    },
    /** Claims a TOTP time step: true only for the one transaction that moves the user's last accepted step
     *  forward to `step` (a conditional UPDATE, so concurrent sign-ins on any instance spend a code once). */
    async claimTotpStep(db: Db, id: string, step: number): Promise<boolean> {
      const rows = await db
        .update(u)
        .set({ totpLastStep: step })
        .where(and(eq(u.id, id), or(isNull(u.totpLastStep), lt(u.totpLastStep, step))))
        .returning({ id: u.id })
      return rows.length === 1
    },
    /** Claims a recovery code (its hash): true only for the one transaction that removes it from the
     *  user's list. A compare-and-set on the whole list; when another code was spent meanwhile, re-read. */
    async claimRecoveryCode(db: Db, id: string, hash: string): Promise<boolean> {
      for (let attempt = 0; attempt < 20; attempt++) {
        const [row] = await db.select({ codes: u.recoveryCodes }).from(u).where(eq(u.id, id))
        if (!row?.codes.includes(hash)) return false
        const rest = row.codes.filter((h) => h !== hash)
        const rows = await db
          .update(u)
          .set({ recoveryCodes: rest })
          .where(and(eq(u.id, id), eq(u.recoveryCodes, row.codes)))
          .returning({ id: u.id })
        if (rows.length === 1) return true
      }
      return false
    },
    async delete(db: Db, id: string): Promise<void> {
      await db.delete(m).where(eq(m.userId, id))
      await db.delete(t.userIdentities).where(eq(t.userIdentities.userId, id))
      await db.delete(u).where(eq(u.id, id))
    },

    memberships(db: Db, userId: string): Promise<MembershipRow[]> {
      return db.select().from(m).where(eq(m.userId, userId))
    },
    membershipsOf(db: Db, userIds: string[]): Promise<MembershipRow[]> {
      return userIds.length ? db.select().from(m).where(inArray(m.userId, userIds)) : Promise.resolve([])
    },
    allMemberships(db: Db): Promise<MembershipRow[]> {
      return db.select().from(m)
    },
    members(db: Db, projectId: string): Promise<MembershipRow[]> {
      return db.select().from(m).where(eq(m.projectId, projectId))
    },
    async membership(db: Db, projectId: string, userId: string): Promise<MembershipRow | undefined> {
      const [row] = await db
        .select()
        .from(m)
        .where(and(eq(m.projectId, projectId), eq(m.userId, userId)))
      return row
    },
    async putMembership(db: Db, row: MembershipRow): Promise<void> {
      await db.delete(m).where(and(eq(m.projectId, row.projectId), eq(m.userId, row.userId)))
      await db.insert(m).values(row)
    },
    async deleteMembership(db: Db, projectId: string, userId: string): Promise<void> {
      await db.delete(m).where(and(eq(m.projectId, projectId), eq(m.userId, userId)))
    },
    async deleteProjectMemberships(db: Db, projectId: string): Promise<void> {
      await db.delete(m).where(eq(m.projectId, projectId))
    },

    async byIdentity(db: Db, issuer: string, subject: string): Promise<IdentityRow | undefined> {
      const [row] = await db
        .select()
        .from(t.userIdentities)
        .where(and(eq(t.userIdentities.issuer, issuer), eq(t.userIdentities.subject, subject)))
      return row
    },
    async linkIdentity(db: Db, row: IdentityRow): Promise<void> {
      await db.insert(t.userIdentities).values(row)
    },
  }
}
export type UserRepository = ReturnType<typeof userRepository>
