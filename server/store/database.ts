// Opens the configured database (SQLite embedded, or PostgreSQL), runs its migrations, and gives the
// one way the service opens a transaction. Repositories are written once against the SQLite table
// types; PostgreSQL gets column-identical tables from schema.pg.ts at run time.
import { Database as SQLite, type SQLQueryBindings } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { drizzle as drizzleSqlite } from 'drizzle-orm/bun-sqlite'
import { migrate as migrateSqlite } from 'drizzle-orm/bun-sqlite/migrator'
import { sql } from 'drizzle-orm'
import * as sqliteSchema from './schema.sqlite'
import type { Database, Db } from './database-types'
import { sqliteStartupError } from '../startup-errors'
import { migrationsFolder } from '../assets'

export type { Database, Db, Tables } from './database-types'

export async function openDatabase(url: string): Promise<Database> {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length))
  const { openPostgres } = await import('./database.pg')
  return openPostgres(url)
}

/** A bun:sqlite connection whose prepare() reuses compiled statements. Drizzle prepares a statement for
 *  every query it runs and leaves it to the garbage collector; compiling the SQL again each time showed as
 *  15 % of a management read's CPU profile (instructions per `GET /flags?limit=1`: 660-765k before,
 *  616-654k after). bun:sqlite's query() caches per SQL text; the text of a Drizzle query depends only on
 *  its shape (values are bound parameters), so the cache stays small, and sharing a statement is safe
 *  because bun:sqlite runs each one to completion synchronously. */
class StatementCachingSQLite extends SQLite {
  override prepare<R, P extends SQLQueryBindings | SQLQueryBindings[]>(sql: string, params?: P) {
    return params === undefined ? this.query<R, P>(sql) : super.prepare<R, P>(sql, params)
  }
}

function openSqlite(path: string): Database {
  try {
    return openSqliteIn(path)
  } catch (e) {
    // A data folder that cannot be made or written: one line saying so (startup-errors.ts).
    throw (path === ':memory:' ? undefined : sqliteStartupError(e, path, dirname(path))) ?? e
  }
}

function openSqliteIn(path: string): Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const open = () => {
    const client = new StatementCachingSQLite(path, { create: true })
    client.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;')
    return client
  }
  // Two connections: transactions run on the writer; every read outside a transaction uses the reader, so
  // it sees only committed data (WAL), never a transaction another request has open. (An in-memory
  // database exists per connection, so it gets one connection for both.)
  const writer = open()
  const reader = path === ':memory:' ? writer : open()
  // A write on the reader would wait behind any open transaction until "database is locked", with the
  // event loop blocked meanwhile: refused at once instead, so such a write fails its first test.
  if (reader !== writer) reader.exec('PRAGMA query_only = ON')
  const writeDb = drizzleSqlite(writer, { schema: sqliteSchema })
  const migrations = migrationsFolder('sqlite')
  try {
    migrateSqlite(writeDb, { migrationsFolder: migrations.folder })
  } finally {
    migrations.done()
  }
  const db = reader === writer ? writeDb : drizzleSqlite(reader, { schema: sqliteSchema })

  // bun:sqlite transactions are synchronous, but services are async. SQLite has one writer anyway, so
  // writers queue here and run BEGIN IMMEDIATE .. COMMIT around the async body.
  let queue: Promise<unknown> = Promise.resolve()
  return {
    dialect: 'sqlite',
    db,
    tables: sqliteSchema,
    transaction<T>(fn: (db: Db) => Promise<T>): Promise<T> {
      const run = async () => {
        writer.exec('BEGIN IMMEDIATE')
        try {
          const result = await fn(writeDb)
          writer.exec('COMMIT')
          return result
        } catch (err) {
          writer.exec('ROLLBACK')
          throw err
        }
      }
      const next = queue.then(run, run)
      queue = next.catch(() => undefined)
      return next
    },
    async ping() {
      db.run(sql`select 1`)
    },
    async close() {
      if (reader !== writer) reader.close()
      writer.close()
    },
  }
}
