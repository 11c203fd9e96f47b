// Shared by the SDK suites: waiting for a condition, and a fetch that records what the SDK asked for.
import type { FetchLike } from '../../sdk/src'

/** Resolves with the time it took once `check()` holds; rejects after `timeoutMs`. */
export async function waitFor(check: () => boolean, timeoutMs: number, what = 'condition'): Promise<number> {
  const start = performance.now()
  while (!check()) {
    if (performance.now() - start > timeoutMs) throw new Error(`${what} did not hold within ${timeoutMs} ms`)
    await Bun.sleep(5)
  }
  return performance.now() - start
}

/** `read()` once it has not changed for `quietMs` (a client done with its fetches); rejects after `timeoutMs`. */
export async function settled(read: () => number, quietMs: number, timeoutMs: number): Promise<number> {
  const start = performance.now()
  for (;;) {
    const value = read()
    await Bun.sleep(quietMs)
    if (read() === value) return value
    if (performance.now() - start > timeoutMs) throw new Error(`still changing after ${timeoutMs} ms`)
  }
}

export interface Recorded {
  url: string
  status: number
  ifNoneMatch: string | null
}

/** A fetch that records each request's URL, status and If-None-Match (streams included). */
export function recordingFetch(): { fetch: FetchLike; calls: Recorded[] } {
  const calls: Recorded[] = []
  const wrapped: FetchLike = async (url, init) => {
    const response = await fetch(url, init)
    calls.push({ url, status: response.status, ifNoneMatch: new Headers(init?.headers).get('if-none-match') })
    return response
  }
  return { fetch: wrapped, calls }
}

export const definitionCalls = (calls: Recorded[]) => calls.filter((c) => c.url.includes('/api/v1/definitions'))
