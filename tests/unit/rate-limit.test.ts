// Retry-After is exact (docs/behaviour.md §8): a client refused at `now` and waiting exactly Retry-After
// seconds is admitted, and one second less would not have been enough. Checked with a controlled clock at
// many points of the window, the last second before a window's end included, for the in-memory limiter and
// the Redis one (same arithmetic, counted by a Lua script).
import { describe, expect, test } from 'bun:test'
import { MemoryRateLimiter, type RateLimiter } from '../../server/http/rate-limit'
import { RedisRateLimiter } from '../../server/http/rate-limit-redis'
import { REDIS_URL } from '../helpers/postgres'
import { requireServices } from '../helpers/requirements'

const WINDOW = 60_000
const BASE = Math.floor(Date.now() / WINDOW) * WINDOW - 10 * WINDOW

/** Counts `prevCount` requests in the previous window, then requests at `at` (ms into the current window)
 *  until one is refused: returns its Retry-After, and whether waiting it (or a second less) admits. */
async function probe(limiter: RateLimiter, key: string, limit: number, prevCount: number, at: number) {
  for (let i = 0; i < prevCount; i++) await limiter.hit(key, limit, BASE + 1000 + i)
  const t = BASE + WINDOW + at
  let refused
  while ((refused = await limiter.hit(key, limit, t)).allowed);
  const earlier = refused.retryAfter > 1 ? (await limiter.hit(key, limit, t + (refused.retryAfter - 1) * 1000)).allowed : false
  const waited = (await limiter.hit(key, limit, t + refused.retryAfter * 1000)).allowed
  return { retryAfter: refused.retryAfter, earlier, waited }
}

const scenarios: [string, number, number, number][] = [
  // name, limit, requests in the previous window, time of the burst (ms into the current window)
  ['previous bucket decaying, mid-window', 10, 10, 30_000],
  ['near the window end (the reported case)', 10, 4, 59_500],
  ['the last millisecond of the window', 5, 0, 59_999],
  ['current bucket alone is full', 5, 0, 200],
  ['both buckets full', 20, 20, 0],
  ['large limit near the end', 1000, 600, 59_900],
]

function suite(name: string, make: () => Promise<RateLimiter | undefined>) {
  describe(name, () => {
    for (const [what, limit, prev, at] of scenarios) {
      test(what, async () => {
        const limiter = await make()
        if (!limiter) return
        const key = `rl-test:${crypto.randomUUID()}`
        const r = await probe(limiter, key, limit, prev, at)
        expect(r).toEqual({ retryAfter: r.retryAfter, earlier: false, waited: true })
        expect(r.retryAfter).toBeGreaterThanOrEqual(1)
      })
    }
  })
}

suite('in-memory limiter', async () => new MemoryRateLimiter())
suite('Redis limiter', async () =>
  (await requireServices({ redis: true })) ? await RedisRateLimiter.create(REDIS_URL, () => {}) : undefined)
