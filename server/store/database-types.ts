// The store's types, apart from the code that opens either database (database.ts, database.pg.ts), so
// neither needs the other. Repositories are written once against the SQLite table types; PostgreSQL's
// tables are column-identical (schema.pg.ts).
import type { BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import type * as sqliteSchema from './schema.sqlite'

export type Tables = typeof sqliteSchema
/** The query surface repositories use; identical builder API in both dialects. */
export type Db = BunSQLiteDatabase<Tables>

export interface Database {
  dialect: 'sqlite' | 'postgres'
  db: Db
  tables: Tables
  /** Runs fn in one transaction: everything it writes commits together or not at all. */
  transaction<T>(fn: (db: Db) => Promise<T>): Promise<T>
  /** Cheap round trip used by /health and to tell "store unavailable" apart. */
  ping(): Promise<void>
  close(): Promise<void>
  /** the PostgreSQL client, for LISTEN/NOTIFY change fan-out (absent on SQLite) */
  pg?: import('postgres').Sql
}
