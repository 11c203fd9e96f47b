// Repository for the audit log.
import { and, count, desc, eq, gte, inArray, lt, or, sql, type SQL } from 'drizzle-orm'
import { KIND_TYPES } from '../kinds'
import type { Db, Tables } from './database'
import type { Action, ResourceType } from './vocabulary/changes'
import { inChunks } from './chunks'

export type AuditRow = Tables['audit']['$inferSelect']
export type NewAuditRow = Tables['audit']['$inferInsert']

export interface AuditFilter {
  resourceType?: string
  resourceKey?: string
  action?: string
  actor?: string
  since?: string
  until?: string
}

export function auditRepository(t: Tables) {
  const a = t.audit
  return {
    /** What the log kept of the creation of the tokens with these prefixes (deleted tokens included). */
    async createdTokens(db: Db, projectId: string, prefixes: string[]): Promise<{ prefix: string; after: unknown }[]> {
      if (prefixes.length === 0) return []
      const rows = await db
        .select({ prefix: a.resourceKey, after: a.after })
        .from(a)
        .where(and(eq(a.projectId, projectId), eq(a.resourceType, 'token'), eq(a.action, 'create'), inArray(a.resourceKey, prefixes)))
      return rows
    },
    /** The newest changes to flags, configs and segments since `since` applied through a protected
     *  environment without a change request: break glass (`bypass_reason`) or emergency off (`emergency`).
     *  Both dialects render the details' keys in their JSON text, which is what is matched; `since` bounds
     *  the part of the log read (the project's time index). */
    withoutReview(db: Db, projectId: string, since: string, limit: number): Promise<AuditRow[]> {
      const text = sql`CAST(${a.details} AS TEXT)`
      return db
        .select()
        .from(a)
        .where(
          and(
            eq(a.projectId, projectId),
            gte(a.timestamp, since),
            inArray(a.resourceType, KIND_TYPES),
            or(sql`${text} LIKE '%"emergency"%'`, sql`${text} LIKE '%"bypass_reason"%'`),
          ),
        )
        .orderBy(desc(a.timestamp), desc(a.id))
        .limit(limit)
    },
    async insert(db: Db, row: NewAuditRow): Promise<void> {
      await db.insert(a).values(row)
    },
    /** Inserts `rows` in a few statements, numbered (id) in their order as one insert each would be. */
    async insertMany(db: Db, rows: readonly NewAuditRow[]): Promise<void> {
      await inChunks(rows, (chunk) => db.insert(a).values(chunk))
    },
    async page(db: Db, projectId: string, f: AuditFilter, limit: number, offset: number): Promise<{ rows: AuditRow[]; total: number }> {
      const where: SQL[] = [eq(a.projectId, projectId)]
      // Filters come from the query as plain text; a value outside the enum simply matches nothing.
      if (f.resourceType) where.push(eq(a.resourceType, f.resourceType as ResourceType))
      if (f.resourceKey) where.push(eq(a.resourceKey, f.resourceKey))
      if (f.action) where.push(eq(a.action, f.action as Action))
      if (f.actor) where.push(eq(a.actor, f.actor))
      if (f.since) where.push(gte(a.timestamp, f.since))
      if (f.until) where.push(lt(a.timestamp, f.until))
      const cond = and(...where)
      const rows = await db.select().from(a).where(cond).orderBy(desc(a.timestamp), desc(a.id)).limit(limit).offset(offset)
      const [{ total }] = await db.select({ total: count() }).from(a).where(cond)
      return { rows, total: Number(total) }
    },
  }
}
export type AuditRepository = ReturnType<typeof auditRepository>
