// Repository for the webhook outbox (one row per event and subscribed webhook).
// Life of a row: pending -> delivering (claimed by one worker, attempts + 1) -> delivered | pending (retry
// later) | failed. The claim is a lease: a row left in `delivering` by a crashed process is claimable again
// once claimed_until has passed.
import { and, asc, count, desc, eq, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm'
import type { Db, Tables } from './database'
import { inChunks } from './chunks'

export type DeliveryRow = Tables['deliveries']['$inferSelect']

export interface AttemptOutcome {
  now: string
  statusCode: number | null
  error: string
  /** when to try again; null: no attempts left, the row becomes `failed` */
  nextAttemptAt: string | null
}

export function deliveryRepository(t: Tables) {
  const d = t.deliveries
  const claimExpired = (now: string) => or(isNull(d.claimedUntil), lt(d.claimedUntil, now))
  /** Rows a worker may take now: pending and due, or stuck in `delivering` under an expired claim. */
  const claimable = (now: string, maxAttempts: number) =>
    and(
      or(eq(d.status, 'pending'), and(eq(d.status, 'delivering'), lt(d.attempts, maxAttempts))),
      lte(d.nextAttemptAt, now),
      claimExpired(now),
    )

  /**
   * Rows a worker may send now. Each webhook is its own queue, sent in order one at a time: a row is ready
   * when it is claimable, no older row of its webhook is still pending or being delivered, and its webhook
   * is neither paused nor backing off (a deleted webhook's rows pass, to be failed by the worker). So a
   * slow or dead receiver holds at most one attempt in flight and never stands in the way of another's.
   */
  const ready = (now: string, maxAttempts: number) =>
    and(
      claimable(now, maxAttempts),
      sql`not exists (select 1 from deliveries o where o.webhook_id = ${d.webhookId} and o.status in ('pending', 'delivering')
        and (o.created_at < ${d.createdAt} or (o.created_at = ${d.createdAt} and o.id < ${d.id})))`,
      sql`not exists (select 1 from webhooks w where w.id = ${d.webhookId} and (w.paused_at is not null or w.retry_at > ${now}))`,
    )

  return {
    /** In chunks: a change set's outbox rows may be more than one statement holds. */
    async insert(db: Db, rows: readonly DeliveryRow[]): Promise<void> {
      await inChunks(rows, (chunk) => db.insert(d).values(chunk))
    },
    recent(db: Db, webhookId: string, limit: number): Promise<DeliveryRow[]> {
      return db.select().from(d).where(eq(d.webhookId, webhookId)).orderBy(desc(d.createdAt), desc(d.id)).limit(limit)
    },
    async get(db: Db, webhookId: string, id: string): Promise<DeliveryRow | undefined> {
      const [row] = await db
        .select()
        .from(d)
        .where(and(eq(d.webhookId, webhookId), eq(d.id, id)))
      return row
    },

    /** The outbox's backlog for GET /metrics: rows pending or being delivered. One COUNT over the
     *  (status, next_attempt_at) index, which finished rows, however many, do not slow. */
    async backlog(db: Db): Promise<number> {
      const [row] = await db
        .select({ n: count() })
        .from(d)
        .where(inArray(d.status, ['pending', 'delivering']))
      return row?.n ?? 0
    },

    /** Cheap read used by the poll loop before it opens a write transaction. */
    async anyDue(db: Db, now: string, maxAttempts: number): Promise<boolean> {
      const rows = await db.select({ id: d.id }).from(d).where(ready(now, maxAttempts)).limit(1)
      return rows.length > 0
    },

    /**
     * Claims up to `limit` ready rows (at most one per webhook) for `owner` until `claimUntil` and counts the
     * attempt that is about to start (attempts + 1). Run inside a transaction. The rows are picked first, then
     * marked: as one UPDATE with a LIMIT subquery, PostgreSQL may evaluate the subquery more than once and mark
     * more than `limit` rows (schedules.ts claims the same way). On PostgreSQL the pick locks the rows until
     * commit (FOR UPDATE SKIP LOCKED): instances claiming at once take different rows instead of one waiting
     * for the other's and then finding them taken. The UPDATE checks again, so no row is ever claimed twice.
     */
    async claimDue(
      db: Db,
      args: { owner: string; now: string; claimUntil: string; limit: number; maxAttempts: number },
    ): Promise<DeliveryRow[]> {
      const { owner, now, claimUntil, limit, maxAttempts } = args
      const query = db
        .select({ id: d.id })
        .from(d)
        .where(ready(now, maxAttempts))
        .orderBy(asc(d.nextAttemptAt), asc(d.createdAt))
        .limit(limit)
      const locking = query as unknown as { for?: (strength: 'update', config: { skipLocked: boolean }) => typeof query }
      const picked = await (typeof locking.for === 'function' ? locking.for('update', { skipLocked: true }) : query)
      if (!picked.length) return []
      return db
        .update(d)
        .set({ status: 'delivering', claimedBy: owner, claimedUntil: claimUntil, attempts: sql`${d.attempts} + 1`, updatedAt: now })
        .where(
          and(
            inArray(
              d.id,
              picked.map((r) => r.id),
            ),
            claimable(now, maxAttempts),
          ),
        )
        .returning()
    },

    /**
     * Rows whose last attempt was interrupted (claim expired while `delivering`) with no attempts left:
     * they become `failed`. Returns them so the worker can log the warning.
     */
    abandonInterrupted(db: Db, now: string, maxAttempts: number): Promise<DeliveryRow[]> {
      return db
        .update(d)
        .set({
          status: 'failed',
          lastError: 'the final attempt was interrupted (the delivering process stopped before recording its outcome)',
          claimedBy: null,
          claimedUntil: null,
          updatedAt: now,
        })
        .where(and(eq(d.status, 'delivering'), sql`${d.attempts} >= ${maxAttempts}`, lt(d.claimedUntil, now)))
        .returning()
    },

    /** Success. Only the claim owner records an outcome; false when the claim was lost. */
    async markDelivered(db: Db, id: string, owner: string, now: string, statusCode: number): Promise<boolean> {
      const rows = await db
        .update(d)
        .set({ status: 'delivered', lastStatusCode: statusCode, lastError: null, claimedBy: null, claimedUntil: null, updatedAt: now })
        .where(and(eq(d.id, id), eq(d.claimedBy, owner), eq(d.status, 'delivering')))
        .returning({ id: d.id })
      return rows.length > 0
    },

    /** A failed attempt: back to `pending` at nextAttemptAt, or `failed` when none is left. */
    async markFailedAttempt(db: Db, id: string, owner: string, o: AttemptOutcome): Promise<boolean> {
      const rows = await db
        .update(d)
        .set({
          status: o.nextAttemptAt === null ? 'failed' : 'pending',
          nextAttemptAt: o.nextAttemptAt ?? undefined,
          lastStatusCode: o.statusCode,
          lastError: o.error,
          claimedBy: null,
          claimedUntil: null,
          updatedAt: o.now,
        })
        .where(and(eq(d.id, id), eq(d.claimedBy, owner), eq(d.status, 'delivering')))
        .returning({ id: d.id })
      return rows.length > 0
    },

    /** Retention: finished rows (delivered or failed) last touched before `before` are deleted. */
    async prune(db: Db, before: string): Promise<number> {
      const rows = await db
        .delete(d)
        .where(and(inArray(d.status, ['delivered', 'failed']), lt(d.updatedAt, before)))
        .returning({ id: d.id })
      return rows.length
    },

    /** Redeliver: a `failed` row is queued again with the same id and payload and a fresh set of attempts. */
    async requeue(db: Db, webhookId: string, id: string, now: string): Promise<DeliveryRow | undefined> {
      const [row] = await db
        .update(d)
        .set({ status: 'pending', attempts: 0, nextAttemptAt: now, claimedBy: null, claimedUntil: null, updatedAt: now })
        .where(and(eq(d.webhookId, webhookId), eq(d.id, id), eq(d.status, 'failed')))
        .returning()
      return row
    },
  }
}
export type DeliveryRepository = ReturnType<typeof deliveryRepository>
