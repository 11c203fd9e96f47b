// Repository for the instance audit log (sign-ins, failures, users, invitations, projects) and invitations.
import { and, count, desc, eq, gte, isNull, lt, type SQL } from 'drizzle-orm'
import type { Db, Tables } from './database'

export type InstanceAuditRow = Tables['instanceAudit']['$inferSelect']
export type NewInstanceAuditRow = Tables['instanceAudit']['$inferInsert']
export type InvitationRow = Tables['invitations']['$inferSelect']

export function instanceAuditRepository(t: Tables) {
  const a = t.instanceAudit
  return {
    async insert(db: Db, row: NewInstanceAuditRow): Promise<void> {
      await db.insert(a).values(row)
    },
    async page(
      db: Db,
      f: { actor?: string; action?: string; resourceType?: string; since?: string; until?: string },
      limit: number,
      offset: number,
    ): Promise<{ rows: InstanceAuditRow[]; total: number }> {
      const where: SQL[] = []
      if (f.actor) where.push(eq(a.actor, f.actor))
      if (f.action) where.push(eq(a.action, f.action))
      if (f.resourceType) where.push(eq(a.resourceType, f.resourceType))
      // Timestamps are stored as ISO 8601 UTC text (toISOString), which sorts as time does.
      if (f.since) where.push(gte(a.timestamp, f.since))
      if (f.until) where.push(lt(a.timestamp, f.until))
      const cond = where.length ? and(...where) : undefined
      const rows = await db.select().from(a).where(cond).orderBy(desc(a.timestamp), desc(a.id)).limit(limit).offset(offset)
      const [{ total }] = await db.select({ total: count() }).from(a).where(cond)
      return { rows, total: Number(total) }
    },
  }
}

export function invitationRepository(t: Tables) {
  const i = t.invitations
  return {
    all(db: Db): Promise<InvitationRow[]> {
      return db.select().from(i).orderBy(desc(i.createdAt))
    },
    async get(db: Db, id: string): Promise<InvitationRow | undefined> {
      const [row] = await db.select().from(i).where(eq(i.id, id))
      return row
    },
    async byHash(db: Db, hash: string): Promise<InvitationRow | undefined> {
      const [row] = await db.select().from(i).where(eq(i.hash, hash))
      return row
    },
    async count(db: Db): Promise<number> {
      const [{ total }] = await db.select({ total: count() }).from(i)
      return Number(total)
    },
    async insert(db: Db, row: InvitationRow): Promise<void> {
      await db.insert(i).values(row)
    },
    /** Marks it used; false when another accept got there first (single use). */
    async accept(db: Db, id: string, at: string): Promise<boolean> {
      const rows = await db
        .update(i)
        .set({ acceptedAt: at })
        .where(and(eq(i.id, id), isNull(i.acceptedAt)))
        .returning()
      return rows.length === 1
    },
    async delete(db: Db, id: string): Promise<void> {
      await db.delete(i).where(eq(i.id, id))
    },
  }
}
