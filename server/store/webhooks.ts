// Repository for webhook registrations.
import { and, asc, count, eq } from 'drizzle-orm'
import type { Db, Tables } from './database'

export type WebhookRow = Tables['webhooks']['$inferSelect']

export function webhookRepository(t: Tables) {
  return {
    byProject(db: Db, projectId: string): Promise<WebhookRow[]> {
      return db.select().from(t.webhooks).where(eq(t.webhooks.projectId, projectId)).orderBy(asc(t.webhooks.createdAt), asc(t.webhooks.id))
    },
    async count(db: Db, projectId: string): Promise<number> {
      const [{ total }] = await db.select({ total: count() }).from(t.webhooks).where(eq(t.webhooks.projectId, projectId))
      return Number(total)
    },
    async get(db: Db, projectId: string, id: string): Promise<WebhookRow | undefined> {
      const [row] = await db.select().from(t.webhooks).where(and(eq(t.webhooks.projectId, projectId), eq(t.webhooks.id, id)))
      return row
    },
    async byId(db: Db, id: string): Promise<WebhookRow | undefined> {
      const [row] = await db.select().from(t.webhooks).where(eq(t.webhooks.id, id))
      return row
    },
    async insert(db: Db, row: WebhookRow): Promise<void> {
      await db.insert(t.webhooks).values(row)
    },
    async delete(db: Db, id: string): Promise<void> {
      await db.delete(t.webhooks).where(eq(t.webhooks.id, id))
    },
  }
}
export type WebhookRepository = ReturnType<typeof webhookRepository>
