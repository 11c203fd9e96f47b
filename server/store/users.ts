// Repository for people: users, their project memberships and their single sign-on identities.
import { and, asc, eq, inArray } from 'drizzle-orm'
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
      return db.select().from(u).where(and(eq(u.instanceRole, 'owner'), eq(u.disabled, false)))
    },
    async insert(db: Db, row: UserRow): Promise<void> {
      await db.insert(u).values(row)
    },
    async update(db: Db, id: string, changes: Partial<Omit<UserRow, 'id' | 'createdAt'>>): Promise<void> {
      await db.update(u).set(changes).where(eq(u.id, id))
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
      const [row] = await db.select().from(m).where(and(eq(m.projectId, projectId), eq(m.userId, userId)))
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
      const [row] = await db.select().from(t.userIdentities).where(and(eq(t.userIdentities.issuer, issuer), eq(t.userIdentities.subject, subject)))
      return row
    },
    async linkIdentity(db: Db, row: IdentityRow): Promise<void> {
      await db.insert(t.userIdentities).values(row)
    },
  }
}
export type UserRepository = ReturnType<typeof userRepository>
