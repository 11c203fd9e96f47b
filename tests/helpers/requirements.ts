// Suites that need PostgreSQL, Redis or Chromium: under CI=true a missing one fails the suite; on a
// developer machine without it the suite is skipped with a message.
import { postgresAvailable, REDIS_URL } from './postgres'
import Redis from 'ioredis'

export const IN_CI = process.env.CI === 'true'

export async function redisAvailable(url = REDIS_URL): Promise<boolean> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2000, retryStrategy: () => null })
  r.on('error', () => {})
  try {
    await r.connect()
    return (await r.ping()) === 'PONG'
  } catch {
    return false
  } finally {
    r.disconnect()
  }
}

/** true when the suite can run; throws under CI when a requirement is missing; false (skip) otherwise. */
export async function requireServices(needs: { postgres?: boolean; redis?: boolean }): Promise<boolean> {
  const missing: string[] = []
  if (needs.postgres && !(await postgresAvailable())) missing.push('PostgreSQL (127.0.0.1:5432)')
  if (needs.redis && !(await redisAvailable())) missing.push('Redis (127.0.0.1:6379)')
  if (!missing.length) return true
  if (IN_CI) throw new Error(`required service missing under CI: ${missing.join(', ')}`)
  console.warn(`skipping: ${missing.join(', ')} not reachable`)
  return false
}
