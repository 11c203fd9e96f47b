// Sign-in throttling (teams.md §3). Per account: after 5 consecutive failures the next attempt waits 1 s,
// each further failure doubling the wait up to 15 minutes; kept in the store (every instance sees it) under
// a key derived from the email whether or not such a user exists, so a refusal reveals nothing. Per client
// address: at most 30 sign-in, setup and invitation-accept attempts a minute (the shared rate limiter).
import type { Store } from '../store'
import { rateLimited } from '../errors'
import { hashToken } from '../access/tokens'

export const FREE_FAILURES = 5
export const MAX_WAIT_MS = 15 * 60_000
export const ADDRESS_ATTEMPTS_PER_MINUTE = 30

interface Limiter {
  hit(
    key: string,
    limit: number,
    now?: number,
  ): { allowed: boolean; retryAfter: number } | Promise<{ allowed: boolean; retryAfter: number }>
}

const throttled = (seconds: number) => rateLimited('LOGIN_THROTTLED', `Too many sign-in attempts; retry in ${seconds} s`, seconds)

/** The wait after `failures` consecutive failures (0 while under the free allowance). */
export const waitAfter = (failures: number): number =>
  failures < FREE_FAILURES ? 0 : Math.min(1000 * 2 ** (failures - FREE_FAILURES), MAX_WAIT_MS)

export function createThrottle(store: Store, limiter: Limiter) {
  const keyOf = (email: string) => hashToken(`sign-in:${email.trim().toLowerCase()}`)
  return {
    /** 429 when this address made too many attempts this minute. */
    async checkAddress(ip: string | null): Promise<void> {
      const verdict = await limiter.hit(`sign-in-address:${ip ?? 'unknown'}`, ADDRESS_ATTEMPTS_PER_MINUTE)
      if (!verdict.allowed) throw throttled(Math.max(1, verdict.retryAfter))
    },
    /** 429 with the exact wait while the account is blocked (refused attempts do not count). */
    async checkAccount(email: string, now = Date.now()): Promise<void> {
      const row = await store.sessions.failures(store.db, keyOf(email))
      if (row && row.blockedUntil > now) throw throttled(Math.ceil((row.blockedUntil - now) / 1000))
    },
    async failed(email: string, now = Date.now()): Promise<void> {
      const key = keyOf(email)
      // An atomic increment: concurrent failures (guesses sent together) each count, and never collide.
      await store.transaction(async (tx) => {
        const failures = await store.sessions.addFailure(tx, key)
        await store.sessions.blockFailures(tx, key, now + waitAfter(failures))
      })
    },
    async succeeded(email: string): Promise<void> {
      await store.transaction((tx) => store.sessions.clearFailures(tx, keyOf(email)))
    },
  }
}
export type Throttle = ReturnType<typeof createThrottle>
