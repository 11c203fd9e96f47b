// PostgreSQL: the shared store for several instances. Real transactions; a lost connection surfaces as
// 503 STORE_UNAVAILABLE on writes while evaluations keep serving from memory.
import { join } from 'node:path'
import postgres from 'postgres'
import { drizzle } from 'drizzle-orm/postgres-js'
import { migrate } from 'drizzle-orm/postgres-js/migrator'
import { sql } from 'drizzle-orm'
import * as pgSchema from './schema.pg'
import type { Database, Db, Tables } from './database'
import { AppError } from '../services/errors'

const MIGRATIONS = join(import.meta.dir, '..', '..', 'drizzle', 'pg')

/** Connection-level failures (not constraint violations) mean the store is unreachable. */
function unavailable(e: unknown): boolean {
  const code = (e as { code?: string })?.code ?? ''
  return ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT', '57P01', '57P03'].includes(code)
}

export async function openPostgres(url: string): Promise<Database> {
  const client = postgres(url, { max: 10, onnotice: () => {}, connect_timeout: 5 })
  const pg = drizzle(client, { schema: pgSchema })
  // Several instances may start at once: serialise migrations with an advisory lock.
  await client`select pg_advisory_lock(727274)`
  try {
    await migrate(pg, { migrationsFolder: MIGRATIONS })
  } finally {
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
        if (unavailable(e)) throw new AppError(503, 'STORE_UNAVAILABLE', 'The database is unavailable; retry shortly')
        throw e
      }
    },
    async ping() {
      await pg.execute(sql`select 1`)
    },
    async close() {
      await client.end({ timeout: 5 })
    },
    /** for LISTEN/NOTIFY fan-out */
    client,
  } as Database & { client: typeof client }
}
