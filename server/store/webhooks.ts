// Repository for webhook registrations.
import { and, asc, count, eq, gt, sql } from 'drizzle-orm'
import type { Db, Tables } from './database'

export type WebhookRow = Tables['webhooks']['$inferSelect']
/** A new registration: the health columns start at their defaults. */
export type NewWebhookRow = Tables['webhooks']['$inferInsert']

export function webhookRepository(t: Tables) {
  return {
    /** A real promise (a Drizzle query runs again on every await): the change runner reads it once per
     *  transaction and awaits it for every change. */
    async byProject(db: Db, projectId: string): Promise<WebhookRow[]> {
      return db.select().from(t.webhooks).where(eq(t.webhooks.projectId, projectId)).orderBy(asc(t.webhooks.createdAt), asc(t.webhooks.id))
    },
    async count(db: Db, projectId: string): Promise<number> {
      const [{ total }] = await db.select({ total: count() }).from(t.webhooks).where(eq(t.webhooks.projectId, projectId))
      return Number(total)
    },
    async get(db: Db, projectId: string, id: string): Promise<WebhookRow | undefined> {
      const [row] = await db
        .select()
        .from(t.webhooks)
        .where(and(eq(t.webhooks.projectId, projectId), eq(t.webhooks.id, id)))
      return row
    },
    async byId(db: Db, id: string): Promise<WebhookRow | undefined> {
      const [row] = await db.select().from(t.webhooks).where(eq(t.webhooks.id, id))
      return row
    },
    async insert(db: Db, row: NewWebhookRow): Promise<void> {
      await db.insert(t.webhooks).values(row)
    },
    async delete(db: Db, id: string): Promise<void> {
      await db.delete(t.webhooks).where(eq(t.webhooks.id, id))
    },

    /** A delivery succeeded: the webhook is healthy again (written only when it was not). */
    async recordSuccess(db: Db, id: string): Promise<void> {
      await db
        .update(t.webhooks)
        .set({ consecutiveFailures: 0, failingSince: null, retryAt: null })
        .where(and(eq(t.webhooks.id, id), gt(t.webhooks.consecutiveFailures, 0)))
    },

    /** A delivery attempt failed: one more failure in a row; `next` turns the new count and the start of
     *  the failing streak into the backoff and, past the pause window, the pause. */
    async recordFailure(
      db: Db,
      id: string,
      now: string,
      next: (failures: number, failingSince: string) => { retryAt: string; pause: boolean },
    ): Promise<WebhookRow | undefined> {
      const [row] = await db
        .update(t.webhooks)
        .set({
          consecutiveFailures: sql`${t.webhooks.consecutiveFailures} + 1`,
          failingSince: sql`coalesce(${t.webhooks.failingSince}, ${now})`,
        })
        .where(eq(t.webhooks.id, id))
        .returning()
      if (!row) return undefined
      const { retryAt, pause } = next(row.consecutiveFailures, row.failingSince ?? now)
      const [updated] = await db
        .update(t.webhooks)
        .set({ retryAt, ...(pause && !row.pausedAt ? { pausedAt: now } : {}) })
        .where(eq(t.webhooks.id, id))
        .returning()
      return updated
    },

    /** Resumed by an admin: active again, with a clean failure record, and its queue is sent at once. */
    async resume(db: Db, id: string): Promise<WebhookRow | undefined> {
      const [row] = await db
        .update(t.webhooks)
        .set({ pausedAt: null, consecutiveFailures: 0, failingSince: null, retryAt: null })
        .where(eq(t.webhooks.id, id))
        .returning()
      return row
    },
  }
}
export type WebhookRepository = ReturnType<typeof webhookRepository>
