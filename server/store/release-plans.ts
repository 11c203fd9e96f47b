// Repository for release plans (schema-release-plans.*.ts). A plan's row changes only by compare-and-set on
// its `updated_at` (two instances, or an instance and a person, cannot both move it from the same state),
// and its monitor's lease is taken by one conditional UPDATE, like the schedules' claim.
import { and, asc, count, desc, eq, inArray, isNull, lt, or } from 'drizzle-orm'
import type { Db, Tables } from './database-types'
import type { ReleasePlanState, ReleasePlanStatus } from './vocabulary/release-plans'

export type ReleasePlanRow = Tables['releasePlans']['$inferSelect']

/** The states in which a plan holds its flag and environment (one such plan at a time). */
export const ACTIVE_STATES: ReleasePlanState[] = ['awaiting_approval', 'running', 'paused']

export function releasePlanRepository(t: Tables) {
  const r = t.releasePlans
  return {
    async insert(db: Db, row: ReleasePlanRow): Promise<void> {
      await db.insert(r).values(row)
    },
    async get(db: Db, projectId: string, id: string): Promise<ReleasePlanRow | undefined> {
      const [row] = await db
        .select()
        .from(r)
        .where(and(eq(r.projectId, projectId), eq(r.id, id)))
      return row
    },
    /** A flag's plans, newest first (at most `limit`). */
    byFlag: (db: Db, projectId: string, flagKey: string, limit: number) =>
      db
        .select()
        .from(r)
        .where(and(eq(r.projectId, projectId), eq(r.flagKey, flagKey)))
        .orderBy(desc(r.createdAt), asc(r.id))
        .limit(limit),
    async countByProject(db: Db, projectId: string): Promise<number> {
      const [row] = await db.select({ n: count() }).from(r).where(eq(r.projectId, projectId))
      return Number(row?.n ?? 0)
    },
    /** The plan holding a flag in an environment (awaiting approval, running or paused), if any. */
    async active(db: Db, projectId: string, flagKey: string, environment: string): Promise<ReleasePlanRow | undefined> {
      const [row] = await db
        .select()
        .from(r)
        .where(and(eq(r.projectId, projectId), eq(r.flagKey, flagKey), eq(r.environment, environment), inArray(r.state, ACTIVE_STATES)))
      return row
    },
    /** Every plan whose exposures are recorded (running or paused), in every project. */
    measured: (db: Db) =>
      db
        .select()
        .from(r)
        .where(inArray(r.state, ['running', 'paused'])),
    /** Running plans nobody holds a live lease on (or this instance does). */
    claimable: (db: Db, instance: string, now: string) =>
      db
        .select()
        .from(r)
        .where(and(eq(r.state, 'running'), or(isNull(r.claimedUntil), lt(r.claimedUntil, now), eq(r.claimedBy, instance))))
        .orderBy(asc(r.id))
        .limit(1000),
    /** Takes the monitor's lease on a running plan until `until`; undefined when another instance holds it. */
    async claim(db: Db, id: string, instance: string, now: string, until: string): Promise<ReleasePlanRow | undefined> {
      const [row] = await db
        .update(r)
        .set({ claimedBy: instance, claimedUntil: until })
        .where(and(eq(r.id, id), eq(r.state, 'running'), or(isNull(r.claimedUntil), lt(r.claimedUntil, now), eq(r.claimedBy, instance))))
        .returning()
      return row
    },
    /** What the monitor last measured, while the plan is still as it read it (not a change: no audit). */
    async saveStatus(db: Db, id: string, updatedAt: string, status: ReleasePlanStatus): Promise<void> {
      await db
        .update(r)
        .set({ status })
        .where(and(eq(r.id, id), eq(r.updatedAt, updatedAt)))
    },
    /** Plans whose start waits for a change request (at most 1,000 looked at per round). */
    awaiting: (db: Db) => db.select().from(r).where(eq(r.state, 'awaiting_approval')).orderBy(asc(r.id)).limit(1000),
    /** Plans whose start waits for this change request. */
    waitingFor: (db: Db, changeRequestId: string) => db.select().from(r).where(eq(r.pendingChangeRequest, changeRequestId)),
    /** Writes `after` if the row is still as `before` left it; false when someone moved it meanwhile. */
    async replace(db: Db, before: ReleasePlanRow, after: ReleasePlanRow): Promise<boolean> {
      const { id: _, ...set } = after
      const rows = await db
        .update(r)
        .set(set)
        .where(
          and(eq(r.id, before.id), eq(r.updatedAt, before.updatedAt), eq(r.state, before.state), eq(r.currentStep, before.currentStep)),
        )
        .returning({ id: r.id })
      return rows.length === 1
    },
  }
}
export type ReleasePlanRepository = ReturnType<typeof releasePlanRepository>
