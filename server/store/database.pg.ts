// PostgreSQL: the shared store for several instances. Real transactions; a lost connection surfaces as
// 503 STORE_UNAVAILABLE on writes while evaluations keep serving from memory.
import postgres from 'postgres'
import { drizzle } from 'drizzle-orm/postgres-js'
import { migrate } from 'drizzle-orm/postgres-js/migrator'
import { sql } from 'drizzle-orm'
import * as pgSchema from './schema.pg'
import type { Database, Db, Tables } from './database-types'
import { isStoreUnavailable, storeUnavailable } from './unavailable'
import { postgresStartupError } from '../startup-errors'
import { migrationsFolder } from '../assets'

export async function openPostgres(url: string): Promise<Database> {
  const client = postgres(url, { max: 10, onnotice: () => {}, connect_timeout: 5 })
  const pg = drizzle(client, { schema: pgSchema })
  // Several instances may start at once: serialise migrations with an advisory lock. The first query is
  // where a wrong address, a missing database or a refused login shows: said in one line (startup-errors.ts).
  try {
    await client`select pg_advisory_lock(727274)`
  } catch (e) {
    await client.end({ timeout: 1 }).catch(() => {})
    throw postgresStartupError(e, url) ?? e
  }
  const migrations = migrationsFolder('pg')
  try {
    await migrate(pg, { migrationsFolder: migrations.folder })
  } finally {
    migrations.done()
    await client`select pg_advisory_unlock(727274)`
  }
  // Repositories are typed against the SQLite tables; the PostgreSQL ones have identical columns.
  const db = pg as unknown as Db
  const tables = pgSchema as unknown as Tables
  return {
    dialect: 'postgres',
    db,
    tables,
    async transaction<T>(fn: (db: Db) => Promise<T>): Promise<T> {
      try {
        return await pg.transaction((tx) => fn(tx as unknown as Db))
      } catch (e) {
        if (isStoreUnavailable(e)) throw storeUnavailable()
        throw e
      }
    },
    async ping() {
      await pg.execute(sql`select 1`)
    },
    async close() {
      await client.end({ timeout: 5 })
    },
    pg: client,
  }
}
