// Repository for change requests and their reviews (docs/change-requests.md). A request leaves a state
// through one conditional UPDATE (the state it was read in), and apply locks its row first, so of two
// concurrent applies, edits or scheduled claims exactly one wins, on any number of instances.
import { and, asc, count, desc, eq, inArray, lte, min, type SQL } from 'drizzle-orm'
import type { Db, Tables } from './database'
import type { ChangeRequestState } from './vocabulary/change-requests'

export type ChangeRequestRow = Tables['changeRequests']['$inferSelect']
export type ReviewRow = Tables['changeRequestReviews']['$inferSelect']

export interface ChangeRequestFilter {
  states?: ChangeRequestState[]
  authorUserId?: string
  authorName?: string
}

type Lockable<Q> = { for?: (strength: 'update', config?: { skipLocked?: boolean }) => Q }

export function changeRequestRepository(t: Tables) {
  const c = t.changeRequests
  const r = t.changeRequestReviews
  const where = (projectId: string, f: ChangeRequestFilter): SQL =>
    and(
      eq(c.projectId, projectId),
      ...(f.states?.length ? [inArray(c.state, f.states)] : []),
      ...(f.authorUserId !== undefined ? [eq(c.authorUserId, f.authorUserId)] : []),
      ...(f.authorName !== undefined ? [eq(c.authorName, f.authorName)] : []),
    )!

  return {
    async insert(db: Db, row: ChangeRequestRow): Promise<void> {
      await db.insert(c).values(row)
    },
    async get(db: Db, projectId: string, id: string): Promise<ChangeRequestRow | undefined> {
      const [row] = await db
        .select()
        .from(c)
        .where(and(eq(c.projectId, projectId), eq(c.id, id)))
      return row
    },
    /** Reads and, on PostgreSQL, locks the row until commit (SQLite runs one writer at a time anyway). */
    async getForUpdate(db: Db, projectId: string, id: string): Promise<ChangeRequestRow | undefined> {
      const query = db
        .select()
        .from(c)
        .where(and(eq(c.projectId, projectId), eq(c.id, id)))
      const locking = query as unknown as Lockable<typeof query>
      const [row] = await (typeof locking.for === 'function' ? locking.for('update') : query)
      return row
    },
    /** Changes the row only while it is still in `from` at `revision`; the row after, or undefined. */
    async update(
      db: Db,
      id: string,
      from: { state: ChangeRequestState[]; revision: number },
      changes: Partial<Omit<ChangeRequestRow, 'id' | 'projectId'>>,
    ): Promise<ChangeRequestRow | undefined> {
      const [row] = await db
        .update(c)
        .set(changes)
        .where(and(eq(c.id, id), inArray(c.state, from.state), eq(c.revision, from.revision)))
        .returning()
      return row
    },
    async page(
      db: Db,
      projectId: string,
      f: ChangeRequestFilter,
      limit: number,
      offset: number,
    ): Promise<{ rows: ChangeRequestRow[]; total: number }> {
      const cond = where(projectId, f)
      const rows = await db.select().from(c).where(cond).orderBy(desc(c.updatedAt), asc(c.id)).limit(limit).offset(offset)
      const [{ total }] = await db.select({ total: count() }).from(c).where(cond)
      return { rows, total: Number(total) }
    },
    async reviews(db: Db, ids: string[]): Promise<ReviewRow[]> {
      if (!ids.length) return []
      return db.select().from(r).where(inArray(r.changeRequestId, ids)).orderBy(asc(r.at), asc(r.id))
    },
    async addReview(db: Db, row: ReviewRow): Promise<void> {
      await db.insert(r).values(row)
    },

    /** The earliest `apply_at` of a scheduled request in any project; null when none. */
    async nextDueAt(db: Db): Promise<string | null> {
      const [row] = await db
        .select({ at: min(c.applyAt) })
        .from(c)
        .where(eq(c.state, 'scheduled'))
      return row?.at ?? null
    },
    /** Takes the earliest due scheduled request for the running transaction (locked on PostgreSQL, skipping
     *  rows another instance holds); the caller applies it in the same transaction. */
    async claimDue(db: Db, now: string): Promise<ChangeRequestRow | undefined> {
      const query = db
        .select()
        .from(c)
        .where(and(eq(c.state, 'scheduled'), lte(c.applyAt, now)))
        .orderBy(asc(c.applyAt), asc(c.id))
        .limit(1)
      const locking = query as unknown as Lockable<typeof query>
      const [row] = await (typeof locking.for === 'function' ? locking.for('update', { skipLocked: true }) : query)
      return row
    },
  }
}
export type ChangeRequestRepository = ReturnType<typeof changeRequestRepository>
