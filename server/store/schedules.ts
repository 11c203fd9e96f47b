// Repository for scheduled changes. A row leaves `pending` through one conditional UPDATE (status still
// `pending`), so whichever transaction gets there first decides what happened to it: applied, failed or
// cancelled, never two of them, on any number of instances.
import { and, asc, count, desc, eq, lt, lte, min, ne, sql, type SQL } from 'drizzle-orm'
import type { Db, Tables } from './database'
import type { ScheduleStatus } from './vocabulary/schedule-statuses'

export type ScheduleRow = Tables['schedules']['$inferSelect']

export interface ScheduleFilter {
  flagKey?: string
  status?: ScheduleStatus
}

export function scheduleRepository(t: Tables) {
  const s = t.schedules
  const pending = eq(s.status, 'pending')
  const inProject = (projectId: string, id: string) => and(eq(s.projectId, projectId), eq(s.id, id))

  return {
    async insert(db: Db, row: ScheduleRow): Promise<void> {
      await db.insert(s).values(row)
    },
    async get(db: Db, projectId: string, id: string): Promise<ScheduleRow | undefined> {
      const [row] = await db.select().from(s).where(inProject(projectId, id))
      return row
    },
    async countPending(db: Db, projectId: string): Promise<number> {
      const [{ total }] = await db
        .select({ total: count() })
        .from(s)
        .where(and(eq(s.projectId, projectId), pending))
      return Number(total)
    },

    /** Upcoming first (pending, soonest first), then the rest, most recent `at` first. */
    async page(
      db: Db,
      projectId: string,
      f: ScheduleFilter,
      limit: number,
      offset: number,
    ): Promise<{ rows: ScheduleRow[]; total: number }> {
      const where: SQL[] = [eq(s.projectId, projectId)]
      if (f.flagKey !== undefined) where.push(eq(s.flagKey, f.flagKey))
      if (f.status !== undefined) where.push(eq(s.status, f.status))
      const cond = and(...where)
      const rows = await db
        .select()
        .from(s)
        .where(cond)
        .orderBy(
          sql`case when ${s.status} = 'pending' then 0 else 1 end`,
          sql`case when ${s.status} = 'pending' then ${s.at} end`,
          desc(s.at),
          asc(s.id),
        )
        .limit(limit)
        .offset(offset)
      const [{ total }] = await db.select({ total: count() }).from(s).where(cond)
      return { rows, total: Number(total) }
    },

    /** The earliest `at` still pending in any project (the worker sleeps until then); null when none. */
    async nextDueAt(db: Db): Promise<string | null> {
      const [row] = await db
        .select({ at: min(s.at) })
        .from(s)
        .where(pending)
      return row?.at ?? null
    },

    /**
     * Takes the earliest due schedule for the running transaction and marks it `applied`: the caller applies
     * its change in the same transaction, so both commit or neither does. Two statements, not an UPDATE over
     * a LIMIT 1 subquery, which PostgreSQL may evaluate more than once and so mark several rows. On
     * PostgreSQL the SELECT locks the row until commit (FOR UPDATE SKIP LOCKED: another instance takes the
     * next one instead of waiting, and a row another instance committed meanwhile no longer matches).
     */
    async claimDue(db: Db, now: string): Promise<ScheduleRow | undefined> {
      const query = db
        .select({ id: s.id })
        .from(s)
        .where(and(pending, lte(s.at, now)))
        .orderBy(asc(s.at), asc(s.id))
        .limit(1)
      const locking = query as unknown as { for?: (strength: 'update', config: { skipLocked: boolean }) => typeof query }
      const [due] = await (typeof locking.for === 'function' ? locking.for('update', { skipLocked: true }) : query)
      if (!due) return undefined
      const [row] = await db
        .update(s)
        .set({ status: 'applied', finishedAt: now })
        .where(and(eq(s.id, due.id), pending))
        .returning()
      return row
    },
    /** The flag version the applied change produced. */
    async setResultVersion(db: Db, id: string, version: number): Promise<void> {
      await db.update(s).set({ resultVersion: version }).where(eq(s.id, id))
    },

    /** Records why it could not be applied; undefined when it is no longer pending. */
    async markFailed(db: Db, id: string, now: string, error: { code: string; message: string }): Promise<ScheduleRow | undefined> {
      const [row] = await db
        .update(s)
        .set({ status: 'failed', finishedAt: now, errorCode: error.code, error: error.message })
        .where(and(eq(s.id, id), pending))
        .returning()
      return row
    },
    /** Retention: schedules that left `pending` (applied, failed, cancelled) before `before` are deleted;
     *  pending ones never. Returns how many went. */
    async pruneFinished(db: Db, before: string): Promise<number> {
      const gone = await db
        .delete(s)
        .where(and(ne(s.status, 'pending'), lt(s.finishedAt, before)))
        .returning({ id: s.id })
      return gone.length
    },
    /** undefined when there is no such pending schedule in the project. */
    /** The pending schedules a token made (revoking it cancels them). */
    pendingByToken(db: Db, projectId: string, tokenHash: string): Promise<ScheduleRow[]> {
      return db
        .select()
        .from(s)
        .where(and(eq(s.projectId, projectId), eq(s.createdByToken, tokenHash), pending))
        .orderBy(asc(s.at), asc(s.id))
    },
    async cancel(db: Db, projectId: string, id: string, now: string, by: string): Promise<ScheduleRow | undefined> {
      const [row] = await db
        .update(s)
        .set({ status: 'cancelled', finishedAt: now, cancelledBy: by })
        .where(and(inProject(projectId, id), pending))
        .returning()
      return row
    },
  }
}
export type ScheduleRepository = ReturnType<typeof scheduleRepository>
