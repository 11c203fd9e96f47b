// Two real server processes on one fresh PostgreSQL database (tests/cluster), with the change fan-out over
// Redis pub/sub or, without Redis, PostgreSQL LISTEN/NOTIFY.
import { afterAll, beforeAll } from 'bun:test'
import { randomAdminToken, startServer, type TestServer } from './server'
import { createTestDatabase, REDIS_URL, type TestDatabase } from './postgres'

export interface Cluster {
  a: TestServer
  b: TestServer
  db: TestDatabase
  admin: string
  stop(): Promise<void>
}

export const FANOUT_VARIANTS = ['postgres+redis', 'postgres only'] as const
/** The settings that choose the fan-out of a variant. */
export const fanoutEnv = (variant: (typeof FANOUT_VARIANTS)[number]): Record<string, string> =>
  variant === 'postgres+redis' ? { REDIS_URL } : {}

export async function startCluster(env: Record<string, string>): Promise<Cluster> {
  const db = await createTestDatabase()
  const admin = randomAdminToken()
  // A long reconcile interval: anything B sees quickly must have come through the change fan-out.
  const common = { DATABASE_URL: db.url, RECONCILE_INTERVAL_MS: '600000', ...env }
  const a = await startServer({ env: common, adminToken: admin })
  const b = await startServer({ env: common, adminToken: admin })
  return {
    a,
    b,
    db,
    admin,
    async stop() {
      await Promise.all([a.stop(), b.stop()])
      await db.drop()
    },
  }
}

/** A cluster started in the calling describe's beforeAll and stopped in its afterAll; its fields are set
 *  once beforeAll has run. */
export function clusterFixture(env: Record<string, string>): Cluster {
  const c = {} as Cluster
  beforeAll(async () => void Object.assign(c, await startCluster(env)), 60_000)
  afterAll(() => c.stop?.())
  return c
}
