// Repository for the three keyed, versioned documents: flags, configs and segments.
import { and, asc, count, eq, sql, type SQL } from 'drizzle-orm'
import type { Db, Tables } from './database'

export type DocumentTable = Tables['flags'] | Tables['configs'] | Tables['segments']
export type DocumentRow = Tables['flags']['$inferSelect']
export type DocumentStamp = Pick<DocumentRow, 'key' | 'version' | 'createdAt' | 'updatedAt'>

/** Tests of a document's body in SQL, per dialect (JSON text on SQLite, jsonb on PostgreSQL). */
export interface BodySql {
  /** the body's top-level boolean `field` (absent is false); the name is ours, never a client's */
  flag(field: string): SQL
  /** whether the body's `tags` array holds `tag` */
  hasTag(tag: string): SQL
}

/** What a page of flags can be narrowed to in the store: the archived state (absent: either) and tags
 *  (every one must be there). */
export interface BodyFilter {
  archived?: boolean
  tags?: readonly string[]
}

export function documentRepository(table: DocumentTable, bodySql?: BodySql) {
  const byKey = (projectId: string, key: string) => and(eq(table.projectId, projectId), eq(table.key, key))
  const pageWhere = async (db: Db, where: SQL | undefined, limit: number, offset: number): Promise<{ rows: DocumentRow[]; total: number }> => {
    const rows = await db.select().from(table).where(where).orderBy(asc(table.key)).limit(limit).offset(offset)
    const [{ total }] = await db.select({ total: count() }).from(table).where(where)
    return { rows, total: Number(total) }
  }
  return {
    page(db: Db, projectId: string, limit: number, offset: number): Promise<{ rows: DocumentRow[]; total: number }> {
      return pageWhere(db, eq(table.projectId, projectId), limit, offset)
    },
    /** A page of the documents whose body passes `filter` (archived flags or live ones, with some tags),
     *  without reading the others. Only for a repository made with `bodySql`. */
    pageWhereBody(db: Db, projectId: string, filter: BodyFilter, limit: number, offset: number): Promise<{ rows: DocumentRow[]; total: number }> {
      if (!bodySql) throw new Error('this repository cannot filter on its bodies')
      const tests: SQL[] = [eq(table.projectId, projectId)]
      if (filter.archived !== undefined) tests.push(filter.archived ? bodySql.flag('archived') : sql`not ${bodySql.flag('archived')}`)
      for (const tag of filter.tags ?? []) tests.push(bodySql.hasTag(tag))
      return pageWhere(db, and(...tests), limit, offset)
    },
    all(db: Db, projectId: string): Promise<DocumentRow[]> {
      return db.select().from(table).where(eq(table.projectId, projectId)).orderBy(asc(table.key))
    },
    /** Every row's key with what changes on each write (version, timestamps), without the bodies: lets
     *  the periodic reconcile find what changed without reading and parsing every document. */
    stamps(db: Db, projectId: string): Promise<DocumentStamp[]> {
      return db.select({ key: table.key, version: table.version, createdAt: table.createdAt, updatedAt: table.updatedAt }).from(table).where(eq(table.projectId, projectId))
    },
    async get(db: Db, projectId: string, key: string): Promise<DocumentRow | undefined> {
      const [row] = await db.select().from(table).where(byKey(projectId, key))
      return row
    },
    /** Reads a row for a change inside a transaction. On PostgreSQL the row is locked (FOR UPDATE) until
     *  commit, so concurrent writers queue instead of racing: an update without If-Match always applies.
     *  SQLite transactions are already serialised. */
    async getForUpdate(db: Db, projectId: string, key: string): Promise<DocumentRow | undefined> {
      const query = db.select().from(table).where(byKey(projectId, key))
      const locking = query as unknown as { for?: (strength: 'update') => typeof query }
      const [row] = await (typeof locking.for === 'function' ? locking.for('update') : query)
      return row
    },
    async insert(db: Db, row: DocumentRow): Promise<void> {
      await db.insert(table).values(row)
    },
    /** Writes a new body and bumps the version, only if the stored version is still `fromVersion`.
     *  The version check sits in the UPDATE itself, so concurrent writers cannot both win. */
    async update(db: Db, projectId: string, key: string, body: DocumentRow['body'], fromVersion: number, now: string): Promise<DocumentRow | undefined> {
      const [row] = await db
        .update(table)
        .set({ body, version: sql`${table.version} + 1`, updatedAt: now })
        .where(and(byKey(projectId, key), eq(table.version, fromVersion)))
        .returning()
      return row
    },
    async delete(db: Db, projectId: string, key: string): Promise<void> {
      await db.delete(table).where(byKey(projectId, key))
    },
  }
}
export type DocumentRepository = ReturnType<typeof documentRepository>
