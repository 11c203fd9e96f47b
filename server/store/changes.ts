// Repository for the change stream's log: each project's changes numbered in commit order (schema: changes,
// change_sequences) and the shared server keys.
import { and, asc, desc, eq, gt, lte, sql } from 'drizzle-orm'
import type { Db, Tables } from './database'
import { inChunks } from './chunks'

export type ChangeRow = Tables['changes']['$inferSelect']
export type NewChange = Omit<ChangeRow, 'seq' | 'projectId'>

export function changeRepository(t: Tables) {
  return {
    /** Numbers `entries` with the project's next sequence numbers and stores them, dropping all but the
     *  newest `keep`. Takes the project's sequence row lock until commit (call it last in a transaction,
     *  after the row changes, so every transaction takes its locks in the same order). */
    async append(db: Db, projectId: string, entries: NewChange[], keep: number): Promise<ChangeRow[]> {
      const n = entries.length
      const [{ seq: last }] = await db
        .insert(t.changeSequences)
        .values({ projectId, seq: n })
        .onConflictDoUpdate({ target: t.changeSequences.projectId, set: { seq: sql`${t.changeSequences.seq} + ${n}` } })
        .returning({ seq: t.changeSequences.seq })
      const rows = entries.map((e, i) => ({ ...e, projectId, seq: last - n + 1 + i }))
      // Only the newest `keep` are retained, inserted in chunks (store/chunks.ts).
      await inChunks(rows.slice(Math.max(0, rows.length - keep)), (chunk) => db.insert(t.changes).values(chunk))
      await db.delete(t.changes).where(and(eq(t.changes.projectId, projectId), lte(t.changes.seq, last - keep)))
      return rows
    },
    /** The project's retained changes after `seq`, oldest first. */
    after(db: Db, projectId: string, seq: number, limit: number): Promise<ChangeRow[]> {
      return db
        .select()
        .from(t.changes)
        .where(and(eq(t.changes.projectId, projectId), gt(t.changes.seq, seq)))
        .orderBy(asc(t.changes.seq))
        .limit(limit)
    },
    /** The project's newest `limit` retained changes, oldest first. */
    async newest(db: Db, projectId: string, limit: number): Promise<ChangeRow[]> {
      const rows = await db.select().from(t.changes).where(eq(t.changes.projectId, projectId)).orderBy(desc(t.changes.seq)).limit(limit)
      return rows.reverse()
    },
    /** The last sequence number of every project that has one. */
    async heads(db: Db): Promise<Map<string, number>> {
      const rows = await db.select().from(t.changeSequences)
      return new Map(rows.map((r) => [r.projectId, r.seq]))
    },
  }
}

export function serverKeyRepository(t: Tables) {
  return {
    /** The named key, created with `fresh` by whichever instance asks first (the others read that one). */
    async getOrCreate(db: Db, name: string, fresh: string): Promise<string> {
      await db.insert(t.serverKeys).values({ name, value: fresh, createdAt: new Date().toISOString() }).onConflictDoNothing()
      const [row] = await db.select().from(t.serverKeys).where(eq(t.serverKeys.name, name))
      return row!.value
    },
    /** Inserts the named row once: false when it already exists (a one-time step another transaction took). */
    async claim(db: Db, name: string): Promise<boolean> {
      const rows = await db
        .insert(t.serverKeys)
        .values({ name, value: '', createdAt: new Date().toISOString() })
        .onConflictDoNothing()
        .returning()
      return rows.length === 1
    },
  }
}
