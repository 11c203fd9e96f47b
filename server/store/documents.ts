// Repository for the keyed, versioned documents (the kinds of server/kinds/: flags, configs, segments), each
// typed by its kind's stored body.
import { and, asc, count, eq, inArray, sql, type SQL } from 'drizzle-orm'
import type { StoredDocument } from '../kinds/kind'
import type { Db, Tables } from './database'
import { inChunks } from './chunks'

export type DocumentTable = Tables['flags'] | Tables['configs'] | Tables['segments']
/** What a document's JSON column holds: an object. */
export type StoredBody = Record<string, unknown>
/** A stored document whose body is `Body` (its kind's: kinds/). */
export type DocumentRow<Body extends StoredBody = StoredBody> = StoredDocument<Body>
export type DocumentStamp = Pick<DocumentRow, 'key' | 'version' | 'createdAt' | 'updatedAt'>

/** The one place the store's JSON is taken as a kind's body (a JSON column has no schema the database
 *  checks): only the kind's service and an import's plan write its rows, each body validated as the kind's
 *  first (services/versioned-documents.ts, documents/validate.ts). */
const typed = <Body extends StoredBody>(rows: Tables['flags']['$inferSelect'][]) => rows as DocumentRow<Body>[]

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

/** The query with FOR UPDATE on PostgreSQL (its builder has `for`; the SQLite one, typed here, has not). */
function forUpdate<Q>(query: Q): Q {
  const locking = query as unknown as { for?: (strength: 'update') => Q }
  return typeof locking.for === 'function' ? locking.for('update') : query
}

export function documentRepository<Body extends StoredBody>(table: DocumentTable, bodySql?: BodySql) {
  const byKey = (projectId: string, key: string) => and(eq(table.projectId, projectId), eq(table.key, key))
  const pageWhere = async (
    db: Db,
    where: SQL | undefined,
    limit: number,
    offset: number,
  ): Promise<{ rows: DocumentRow<Body>[]; total: number }> => {
    const rows = typed<Body>(await db.select().from(table).where(where).orderBy(asc(table.key)).limit(limit).offset(offset))
    const [{ total }] = await db.select({ total: count() }).from(table).where(where)
    return { rows, total: Number(total) }
  }
  return {
    page(db: Db, projectId: string, limit: number, offset: number): Promise<{ rows: DocumentRow<Body>[]; total: number }> {
      return pageWhere(db, eq(table.projectId, projectId), limit, offset)
    },
    /** A page of the documents whose body passes `filter` (archived flags or live ones, with some tags),
     *  without reading the others. Only for a repository made with `bodySql`. */
    pageWhereBody(
      db: Db,
      projectId: string,
      filter: BodyFilter,
      limit: number,
      offset: number,
    ): Promise<{ rows: DocumentRow<Body>[]; total: number }> {
      if (!bodySql) throw new Error('this repository cannot filter on its bodies')
      const tests: SQL[] = [eq(table.projectId, projectId)]
      if (filter.archived !== undefined) tests.push(filter.archived ? bodySql.flag('archived') : sql`not ${bodySql.flag('archived')}`)
      for (const tag of filter.tags ?? []) tests.push(bodySql.hasTag(tag))
      return pageWhere(db, and(...tests), limit, offset)
    },
    async all(db: Db, projectId: string): Promise<DocumentRow<Body>[]> {
      return typed<Body>(await db.select().from(table).where(eq(table.projectId, projectId)).orderBy(asc(table.key)))
    },
    /** Every row's key with what changes on each write (version, timestamps), without the bodies: lets
     *  the periodic reconcile find what changed without reading and parsing every document. */
    stamps(db: Db, projectId: string): Promise<DocumentStamp[]> {
      return db
        .select({ key: table.key, version: table.version, createdAt: table.createdAt, updatedAt: table.updatedAt })
        .from(table)
        .where(eq(table.projectId, projectId))
    },
    async get(db: Db, projectId: string, key: string): Promise<DocumentRow<Body> | undefined> {
      const [row] = typed<Body>(await db.select().from(table).where(byKey(projectId, key)))
      return row
    },
    /** The stored rows of these keys (any order; keys not stored are left out): lets the cache reload the
     *  documents of a large change set with a few reads instead of one per document. */
    async getMany(db: Db, projectId: string, keys: readonly string[]): Promise<DocumentRow<Body>[]> {
      const rows: DocumentRow<Body>[] = []
      await inChunks([...new Set(keys)], async (chunk) =>
        rows.push(
          ...typed<Body>(
            await db
              .select()
              .from(table)
              .where(and(eq(table.projectId, projectId), inArray(table.key, chunk))),
          ),
        ),
      )
      return rows
    },
    /** Reads a row for a change inside a transaction. On PostgreSQL the row is locked (FOR UPDATE) until
     *  commit, so concurrent writers queue instead of racing: an update without If-Match always applies.
     *  SQLite transactions are already serialised. */
    async getForUpdate(db: Db, projectId: string, key: string): Promise<DocumentRow<Body> | undefined> {
      const [row] = typed<Body>(await forUpdate(db.select().from(table).where(byKey(projectId, key))))
      return row
    },
    /** getForUpdate for many keys, a few hundred per read (rows not stored are left out; any order). */
    async getManyForUpdate(db: Db, projectId: string, keys: readonly string[]): Promise<DocumentRow<Body>[]> {
      const rows: DocumentRow<Body>[] = []
      await inChunks([...new Set(keys)], async (chunk) => {
        rows.push(
          ...typed<Body>(
            await forUpdate(
              db
                .select()
                .from(table)
                .where(and(eq(table.projectId, projectId), inArray(table.key, chunk))),
            ),
          ),
        )
      })
      return rows
    },
    async insert(db: Db, row: DocumentRow<Body>): Promise<void> {
      await db.insert(table).values(row)
    },
    /** Inserts `rows` in a few statements (an import creating thousands of documents), in their order. */
    async insertMany(db: Db, rows: readonly DocumentRow<Body>[]): Promise<void> {
      await inChunks(rows, (chunk) => db.insert(table).values(chunk))
    },
    /** Writes a new body and bumps the version, only if the stored version is still `fromVersion`.
     *  The version check sits in the UPDATE itself, so concurrent writers cannot both win. */
    async update(
      db: Db,
      projectId: string,
      key: string,
      body: Body,
      fromVersion: number,
      now: string,
    ): Promise<DocumentRow<Body> | undefined> {
      const [row] = typed<Body>(
        await db
          .update(table)
          .set({ body, version: sql`${table.version} + 1`, updatedAt: now })
          .where(and(byKey(projectId, key), eq(table.version, fromVersion)))
          .returning(),
      )
      return row
    },
    /** update() for many documents, a few hundred per statement: each is written (new body, version + 1)
     *  only if still at its `fromVersion`. Returns the rows written (any order). */
    async updateMany(
      db: Db,
      projectId: string,
      changes: readonly { key: string; body: Body; fromVersion: number }[],
      now: string,
    ): Promise<DocumentRow<Body>[]> {
      const written: DocumentRow<Body>[] = []
      await inChunks(changes, async (chunk) => {
        // Each CASE ends in the column itself, which types its parameters as the column (jsonb, integer on
        // PostgreSQL; the JSON text is the column's own encoding). Only the keys named reach it.
        const byChunkKey = (value: (c: (typeof chunk)[number]) => SQL, otherwise: SQL) =>
          sql`case ${table.key} ${sql.join(
            chunk.map((c) => sql`when ${c.key} then ${value(c)}`),
            sql` `,
          )} else ${otherwise} end`
        written.push(
          ...typed<Body>(
            await db
              .update(table)
              .set({
                body: byChunkKey((c) => sql`${sql.param(c.body, table.body)}`, sql`${table.body}`),
                version: sql`${table.version} + 1`,
                updatedAt: now,
              })
              .where(
                and(
                  eq(table.projectId, projectId),
                  inArray(
                    table.key,
                    chunk.map((c) => c.key),
                  ),
                  eq(
                    table.version,
                    byChunkKey((c) => sql`${c.fromVersion}`, sql`${table.version}`),
                  ),
                ),
              )
              .returning(),
          ),
        )
      })
      return written
    },
    async delete(db: Db, projectId: string, key: string): Promise<void> {
      await db.delete(table).where(byKey(projectId, key))
    },
    /** Deletes the documents of these keys, a few hundred per statement. */
    async deleteMany(db: Db, projectId: string, keys: readonly string[]): Promise<void> {
      await inChunks(keys, (chunk) => db.delete(table).where(and(eq(table.projectId, projectId), inArray(table.key, chunk))))
    },
  }
}
export type DocumentRepository<Body extends StoredBody = StoredBody> = ReturnType<typeof documentRepository<Body>>
