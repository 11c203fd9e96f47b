// Repository for the ids of batches relays forwarded (docs/operations.md, Relays). A relay resends a batch
// whose answer it never got; the id, taken in the transaction that applies the batch, makes the resend a no-op.
import { and, eq, lt } from 'drizzle-orm'
import type { Db, Tables } from './database'

export function relayBatchRepository(t: Tables) {
  return {
    /** Takes `id` for `projectId`; false when it was taken before (the batch was already applied). */
    async claim(db: Db, projectId: string, id: string, at: string): Promise<boolean> {
      const rows = await db.insert(t.relayBatches).values({ id, projectId, receivedAt: at }).onConflictDoNothing().returning()
      return rows.length === 1
    },
    /** Gives an id back (the batch it stood for was refused, so a corrected resend may apply). */
    async release(db: Db, projectId: string, id: string): Promise<void> {
      await db.delete(t.relayBatches).where(and(eq(t.relayBatches.projectId, projectId), eq(t.relayBatches.id, id)))
    },
    /** Forgets ids older than `before` (a relay resends within its spool's life, far shorter). */
    async prune(db: Db, before: string): Promise<void> {
      await db.delete(t.relayBatches).where(lt(t.relayBatches.receivedAt, before))
    },
  }
}
