// What both clients' `ready()` is built on (client.ts: definitions, remote.ts: one context's values): loaded
// once the first data is in; an answer retrying cannot fix (400, 401, 403, 404) rejects the waiting callers;
// anything else leaves them waiting until their timeout while the client keeps trying.
import { HttpError } from './http-error'

export const isFatal = (e: unknown): boolean => e instanceof HttpError && [400, 401, 403, 404].includes(e.status)

export class Readiness {
  loaded = false
  /** the last failure to reach the service (undefined once an answer came) */
  failure: unknown
  private readonly waiters = new Set<{ resolve(): void; reject(e: unknown): void }>()

  /** Resolves once loaded; rejects on a fatal failure, or after `timeoutMs` naming `what` was missing. */
  wait(timeoutMs: number, what: string): Promise<void> {
    if (this.loaded) return Promise.resolve()
    if (isFatal(this.failure)) return Promise.reject(this.failure)
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: () => (clearTimeout(timer), resolve()),
        reject: (e: unknown) => (clearTimeout(timer), this.waiters.delete(waiter), reject(e)),
      }
      const timer = setTimeout(
        () =>
          waiter.reject(new Error(`no ${what} within ${timeoutMs} ms${this.failure instanceof Error ? `: ${this.failure.message}` : ''}`)),
        timeoutMs,
      )
      this.waiters.add(waiter)
    })
  }

  /** The first data is in: every waiting caller resolves. */
  markLoaded(): void {
    this.loaded = true
    for (const w of this.waiters) w.resolve()
    this.waiters.clear()
  }

  /** A failure: recorded, and before the first data a fatal one rejects the waiting callers. */
  fail(error: unknown): void {
    this.failure = error
    if (!this.loaded && isFatal(error)) for (const w of [...this.waiters]) w.reject(error)
  }
}
