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

/** The sliding-window arithmetic shared by every limiter: previous bucket weighted by how much of it still overlaps. */
export function slidingVerdict(prevCount: number, currCount: number, windowStart: number, limit: number, now: number, counted: boolean): RateVerdict {
  const weight = 1 - (now - windowStart) / WINDOW
  const used = prevCount * weight + currCount
  const remaining = Math.max(0, Math.floor(limit - used))
  const resetAt = windowStart + WINDOW
  let retryAfter = 0
  if (!counted) {
    // The earliest moment the weighted previous bucket has decayed enough, else the window's end.
    const needDecay = used + 1 - limit
    const wait = prevCount > 0 ? (needDecay / prevCount) * WINDOW : resetAt - now
    retryAfter = Math.max(1, Math.ceil(Math.min(wait, resetAt - now + WINDOW) / 1000))
  }
  return { allowed: counted, limit, remaining, resetAt, retryAfter }
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
    const used = b.prev * (1 - (now - start) / WINDOW) + b.curr
    const allowed = used + 1 <= limit
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
