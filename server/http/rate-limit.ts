// Per-token sliding-window rate limits (two one-minute buckets, weighted), one limiter per class.
// Without REDIS_URL each instance counts alone; the Redis limiter (shared across instances) implements
// the same interface.

import { errorResponse } from './errors'

export type RateClass = 'evaluation' | 'management'

export interface RateVerdict {
  allowed: boolean
  limit: number
  remaining: number
  /** unix ms when the current window ends */
  resetAt: number
  /** seconds to wait before retrying, when refused */
  retryAfter: number
}

export interface RateLimiter {
  hit(key: string, limit: number, now?: number): RateVerdict | Promise<RateVerdict>
}

const WINDOW = 60_000

/** The weighted count at time `t` of a window that started at `start` with `prev` requests in the bucket
 *  before it and `curr` in its own, assuming nothing more is counted: the previous bucket weighs by how much
 *  of it still overlaps the last minute; after the window ends, its own count becomes the previous bucket. */
export function slidingCount(prev: number, curr: number, start: number, t: number): number {
  const into = t - start
  if (into < WINDOW) return prev * (1 - into / WINDOW) + curr
  if (into < 2 * WINDOW) return curr * (1 - (into - WINDOW) / WINDOW)
  return 0
}

/** The verdict for a request at `now`. Retry-After (when refused) is the smallest whole number of seconds
 *  after which the same arithmetic admits the request (docs/behaviour.md §8): found by trying each second,
 *  so it can never disagree with the check itself, across a window's end included (at most 120 tries, and
 *  only on a refusal). */
export function slidingVerdict(
  prevCount: number,
  currCount: number,
  windowStart: number,
  limit: number,
  now: number,
  counted: boolean,
): RateVerdict {
  const remaining = Math.max(0, Math.floor(limit - slidingCount(prevCount, currCount, windowStart, now)))
  let retryAfter = 0
  if (!counted) {
    retryAfter = 1
    while (retryAfter < 120 && slidingCount(prevCount, currCount, windowStart, now + retryAfter * 1000) + 1 > limit) retryAfter++
  }
  return { allowed: counted, limit, remaining, resetAt: windowStart + WINDOW, retryAfter }
}

export class MemoryRateLimiter implements RateLimiter {
  private buckets = new Map<string, { start: number; prev: number; curr: number }>()

  hit(key: string, limit: number, now = Date.now()): RateVerdict {
    const start = now - (now % WINDOW)
    let b = this.buckets.get(key)
    if (!b) this.buckets.set(key, (b = { start, prev: 0, curr: 0 }))
    else if (b.start !== start) {
      b.prev = b.start === start - WINDOW ? b.curr : 0
      b.curr = 0
      b.start = start
    }
    const allowed = slidingCount(b.prev, b.curr, start, now) + 1 <= limit
    if (allowed) b.curr++
    return slidingVerdict(b.prev, b.curr, start, limit, now, allowed)
  }

  /** Drops counters that can no longer affect a verdict, so memory stays bounded by active tokens. */
  sweep(now = Date.now()): void {
    for (const [k, b] of this.buckets) if (now - b.start >= 2 * WINDOW) this.buckets.delete(k)
  }
}

export function rateHeaders(v: RateVerdict): Record<string, string> {
  return { 'X-RateLimit-Limit': String(v.limit), 'X-RateLimit-Remaining': String(v.remaining), 'X-RateLimit-Reset': String(v.resetAt) }
}

/** The 429 answer (docs/behaviour.md §7): Retry-After plus the X-RateLimit-* of the refusal. */
export const rateLimited = (v: RateVerdict): Response =>
  errorResponse(429, 'RATE_LIMITED', 'Rate limit exceeded', undefined, { 'Retry-After': String(v.retryAfter), ...rateHeaders(v) })
