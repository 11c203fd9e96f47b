// The sliding-window limiter shared by every instance: two per-minute counters per token and class in
// Redis, checked and incremented atomically by one Lua script. If Redis is unreachable the instance falls
// back to counting alone (logged), so an outage degrades limits instead of refusing traffic.
import type Redis from 'ioredis'
import type { Log } from '../log'
import { MemoryRateLimiter, slidingVerdict, type RateLimiter, type RateVerdict } from './rate-limit'

const WINDOW = 60_000
// KEYS[1] current bucket, KEYS[2] previous bucket; ARGV[1] limit, ARGV[2] weight of the previous bucket.
const SCRIPT = `
local prev = tonumber(redis.call('GET', KEYS[2]) or '0')
local curr = tonumber(redis.call('GET', KEYS[1]) or '0')
if prev * tonumber(ARGV[2]) + curr + 1 <= tonumber(ARGV[1]) then
  curr = redis.call('INCR', KEYS[1])
  redis.call('PEXPIRE', KEYS[1], ${2 * WINDOW})
  return {1, prev, curr}
end
return {0, prev, curr}
`

export class RedisRateLimiter implements RateLimiter {
  private redis: Redis
  private fallback = new MemoryRateLimiter()
  private warned = false

  /** ioredis is loaded only by an instance configured with REDIS_URL (memory and start time:
   *  docs/performance.md, 2026-11-29). */
  static async create(url: string, log: Log): Promise<RedisRateLimiter> {
    const { default: Client } = await import('ioredis')
    return new RedisRateLimiter(new Client(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 }), log)
  }

  private constructor(
    redis: Redis,
    private log: Log,
  ) {
    this.redis = redis
    this.redis.on('error', () => {})
    this.redis.defineCommand('slidingHit', { numberOfKeys: 2, lua: SCRIPT })
  }

  async hit(key: string, limit: number, now = Date.now()): Promise<RateVerdict> {
    const start = now - (now % WINDOW)
    const weight = 1 - (now - start) / WINDOW
    try {
      const [allowed, prev, curr] = (await (this.redis as unknown as { slidingHit: (...a: unknown[]) => Promise<number[]> }).slidingHit(
        `rl:${key}:${start}`,
        `rl:${key}:${start - WINDOW}`,
        limit,
        weight,
      )) as number[]
      this.warned = false
      return slidingVerdict(prev, curr, start, limit, now, allowed === 1)
    } catch (e) {
      if (!this.warned) this.log('redis unavailable: rate limits are counted per instance until it returns', { error: String(e) }, 'warn')
      this.warned = true
      return this.fallback.hit(key, limit, now)
    }
  }

  sweep(now = Date.now()): void {
    this.fallback.sweep(now)
  }

  async stop(): Promise<void> {
    this.redis.disconnect()
  }
}
