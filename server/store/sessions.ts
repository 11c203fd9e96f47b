// Repository for sign-in state: sessions (hashed values), password-reset links, consecutive sign-in
// failures per account key, and OpenID sign-ins under way.
import { and, asc, eq, lt, ne, sql } from 'drizzle-orm'
import type { Db, Tables } from './database'

export type SessionRow = Tables['sessions']['$inferSelect']
export type PasswordResetRow = Tables['passwordResets']['$inferSelect']
export type LoginFailureRow = Tables['loginFailures']['$inferSelect']

export function sessionRepository(t: Tables) {
  const s = t.sessions
  return {
    async byHash(db: Db, hash: string): Promise<SessionRow | undefined> {
      const [row] = await db.select().from(s).where(eq(s.hash, hash))
      return row
    },
    byUser(db: Db, userId: string): Promise<SessionRow[]> {
      return db.select().from(s).where(eq(s.userId, userId)).orderBy(asc(s.createdAt))
    },
    async insert(db: Db, row: SessionRow): Promise<void> {
      await db.insert(s).values(row)
    },
    async delete(db: Db, id: string): Promise<void> {
      await db.delete(s).where(eq(s.id, id))
    },
    async deleteForUser(db: Db, userId: string, exceptId?: string): Promise<void> {
      await db.delete(s).where(exceptId ? and(eq(s.userId, userId), ne(s.id, exceptId)) : eq(s.userId, userId))
    },
    async touch(db: Db, id: string, at: string): Promise<void> {
      await db.update(s).set({ lastSeenAt: at }).where(eq(s.id, id))
    },
    async deleteExpired(db: Db, now: string, idleBefore: string): Promise<void> {
      await db.delete(s).where(lt(s.expiresAt, now))
      await db.delete(s).where(lt(s.lastSeenAt, idleBefore))
    },

    /** Stores a password-reset link; the user's earlier links die with it (only the newest one works). */
    async insertReset(db: Db, row: PasswordResetRow): Promise<void> {
      await db.delete(t.passwordResets).where(eq(t.passwordResets.userId, row.userId))
      await db.insert(t.passwordResets).values(row)
    },
    async reset(db: Db, hash: string): Promise<PasswordResetRow | undefined> {
      const [row] = await db.select().from(t.passwordResets).where(eq(t.passwordResets.hash, hash))
      return row
    },
    async useReset(db: Db, hash: string, at: string): Promise<void> {
      await db.update(t.passwordResets).set({ usedAt: at }).where(eq(t.passwordResets.hash, hash))
    },

    async failures(db: Db, key: string): Promise<LoginFailureRow | undefined> {
      const [row] = await db.select().from(t.loginFailures).where(eq(t.loginFailures.key, key))
      return row
    },
    /** Counts one more consecutive failure of `key` and answers the new count: one upsert, so failures that
     *  arrive together (on one instance or several) each count and never collide on the key. */
    async addFailure(db: Db, key: string): Promise<number> {
      const f = t.loginFailures
      const [row] = await db
        .insert(f)
        .values({ key, failures: 1, blockedUntil: 0 })
        .onConflictDoUpdate({ target: f.key, set: { failures: sql`${f.failures} + 1` } })
        .returning({ failures: f.failures })
      return row!.failures
    },
    async blockFailures(db: Db, key: string, until: number): Promise<void> {
      await db.update(t.loginFailures).set({ blockedUntil: until }).where(eq(t.loginFailures.key, key))
    },
    async clearFailures(db: Db, key: string): Promise<void> {
      await db.delete(t.loginFailures).where(eq(t.loginFailures.key, key))
    },
  }
}

/** OpenID sign-ins under way: `take` removes and returns one, so a state is used at most once. */
export function oidcStateRepository(t: Tables) {
  const o = t.oidcStates
  return {
    async put(db: Db, row: { id: string; data: Record<string, unknown>; expiresAt: string }): Promise<void> {
      await db.delete(o).where(lt(o.expiresAt, new Date().toISOString()))
      await db.insert(o).values(row)
    },
    async take(db: Db, id: string): Promise<{ data: Record<string, unknown>; expiresAt: string } | undefined> {
      const rows = await db.delete(o).where(eq(o.id, id)).returning()
      const row = rows[0]
      if (!row || Date.parse(row.expiresAt) <= Date.now()) return undefined
      return { data: row.data, expiresAt: row.expiresAt }
    },
  }
}
