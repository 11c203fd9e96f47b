// Repository for access tokens (only SHA-256 hashes are stored).
import { and, asc, count, eq, inArray } from 'drizzle-orm'
import type { Db, Tables } from './database'

export type TokenRow = Tables['tokens']['$inferSelect']

export function tokenRepository(t: Tables) {
  return {
    all(db: Db): Promise<TokenRow[]> {
      return db.select().from(t.tokens)
    },
    byProject(db: Db, projectId: string): Promise<TokenRow[]> {
      return db.select().from(t.tokens).where(eq(t.tokens.projectId, projectId))
    },
    async page(db: Db, projectId: string, limit: number, offset: number): Promise<{ rows: TokenRow[]; total: number }> {
      const rows = await db
        .select()
        .from(t.tokens)
        .where(eq(t.tokens.projectId, projectId))
        .orderBy(asc(t.tokens.name), asc(t.tokens.createdAt), asc(t.tokens.hash))
        .limit(limit)
        .offset(offset)
      const [{ total }] = await db.select({ total: count() }).from(t.tokens).where(eq(t.tokens.projectId, projectId))
      return { rows, total: Number(total) }
    },
    /** The names of the project's tokens with these prefixes. */
    namesByPrefix(db: Db, projectId: string, prefixes: string[]): Promise<{ prefix: string; name: string }[]> {
      if (prefixes.length === 0) return Promise.resolve([])
      return db
        .select({ prefix: t.tokens.tokenPrefix, name: t.tokens.name })
        .from(t.tokens)
        .where(and(eq(t.tokens.projectId, projectId), inArray(t.tokens.tokenPrefix, prefixes)))
    },
    async count(db: Db, projectId: string): Promise<number> {
      const [{ total }] = await db.select({ total: count() }).from(t.tokens).where(eq(t.tokens.projectId, projectId))
      return Number(total)
    },
    async get(db: Db, projectId: string, hash: string): Promise<TokenRow | undefined> {
      const [row] = await db
        .select()
        .from(t.tokens)
        .where(and(eq(t.tokens.projectId, projectId), eq(t.tokens.hash, hash)))
      return row
    },
    async insert(db: Db, row: TokenRow): Promise<void> {
      await db.insert(t.tokens).values(row)
    },
    async delete(db: Db, hash: string): Promise<void> {
      await db.delete(t.tokens).where(eq(t.tokens.hash, hash))
    },
    byOwner(db: Db, userId: string): Promise<TokenRow[]> {
      return db.select().from(t.tokens).where(eq(t.tokens.ownerUserId, userId)).orderBy(asc(t.tokens.createdAt))
    },
    async deleteByOwner(db: Db, userId: string): Promise<TokenRow[]> {
      return db.delete(t.tokens).where(eq(t.tokens.ownerUserId, userId)).returning()
    },
    async touch(db: Db, hash: string, at: string): Promise<void> {
      await db.update(t.tokens).set({ lastUsedAt: at }).where(eq(t.tokens.hash, hash))
    },
  }
}
export type TokenRepository = ReturnType<typeof tokenRepository>
