// Sessions (teams.md §3): an opaque 256-bit value in the cookie, only its SHA-256 in the store. Resolved
// sessions are kept in memory (with their last use, written back in batches), so a request with a known
// session reads no database; a `session` or `user` change notice (this instance's or another's) drops
// what it names at once, so sign-out, disable and password changes take effect on the very next request.
import type { Store } from '../store'
import type { SessionRow } from '../store/sessions'
import type { ChangeNotice } from '../notices/changes'
import { hashToken } from '../access/tokens'

const TOUCH_FLUSH_MS = 10_000

export const newSessionValue = (): string => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')

export interface SessionLimits {
  idleMs: number
  maxMs: number
}

export class SessionCache {
  private byHash = new Map<string, SessionRow>()
  /** session id -> ms of last use not yet written */
  private touched = new Map<string, number>()
  /** sessions used since the last flush */
  private dirty = new Set<string>()
  private timer: ReturnType<typeof setInterval>

  constructor(
    private store: Store,
    private limits: SessionLimits,
  ) {
    this.timer = setInterval(() => void this.flush(), TOUCH_FLUSH_MS)
  }

  /** The live session for a cookie value; a miss reads the store once (a session made on another instance)
   *  when `mayRead()` allows it (a per-address budget, so unknown values cannot become a query flood). */
  async resolve(value: string, now = Date.now(), mayRead: () => boolean | Promise<boolean> = () => true): Promise<SessionRow | undefined> {
    const hash = hashToken(value)
    let row = this.byHash.get(hash)
    if (!row) {
      if (!(await mayRead())) return undefined
      row = await this.store.sessions.byHash(this.store.db, hash)
      if (!row) return undefined
      this.remember(row)
    }
    const lastSeen = this.touched.get(row.id) ?? Date.parse(row.lastSeenAt)
    if (Date.parse(row.expiresAt) <= now || lastSeen + this.limits.idleMs <= now) {
      this.forget(row.id)
      return undefined
    }
    this.touched.set(row.id, now)
    this.dirty.add(row.id)
    return row
  }

  /** The user of a session this instance holds, when it has not ended (a notice drops ended ones). */
  liveUser(sessionId: string, now = Date.now()): string | undefined {
    for (const row of this.byHash.values()) {
      if (row.id !== sessionId) continue
      const lastSeen = this.touched.get(row.id) ?? Date.parse(row.lastSeenAt)
      return Date.parse(row.expiresAt) > now && lastSeen + this.limits.idleMs > now ? row.userId : undefined
    }
    return undefined
  }

  lastSeen(row: SessionRow): string {
    const t = this.touched.get(row.id)
    return t === undefined ? row.lastSeenAt : new Date(t).toISOString()
  }

  remember(row: SessionRow): void {
    // Bounded: a flood of distinct valid sessions cannot grow memory without end (they are re-read).
    if (this.byHash.size >= 100_000) this.byHash.clear()
    this.byHash.set(row.hash, row)
  }

  forget(sessionId: string): void {
    for (const [hash, row] of this.byHash) if (row.id === sessionId) this.byHash.delete(hash)
    this.touched.delete(sessionId)
    this.dirty.delete(sessionId)
  }

  forgetUser(userId: string): void {
    for (const [hash, row] of this.byHash) {
      if (row.userId === userId) {
        this.byHash.delete(hash)
        this.touched.delete(row.id)
      }
    }
  }

  apply(n: ChangeNotice): void {
    if (n.resourceType === 'session') this.forget(n.resourceKey)
    else if (n.resourceType === 'user') this.forgetUser(n.resourceKey)
  }

  newRow(userId: string, meta: { ip: string | null; userAgent: string | null }, now = Date.now()): { value: string; row: SessionRow } {
    const value = newSessionValue()
    const at = new Date(now).toISOString()
    return {
      value,
      row: {
        id: crypto.randomUUID(),
        hash: hashToken(value),
        userId,
        createdAt: at,
        lastSeenAt: at,
        expiresAt: new Date(now + this.limits.maxMs).toISOString(),
        ip: meta.ip,
        userAgent: meta.userAgent?.slice(0, 512) ?? null,
      },
    }
  }

  async flush(): Promise<void> {
    if (!this.dirty.size) return
    const batch = [...this.dirty].map((id) => [id, this.touched.get(id) ?? Date.now()] as const)
    this.dirty.clear()
    try {
      await this.store.transaction(async (tx) => {
        for (const [id, at] of batch) await this.store.sessions.touch(tx, id, new Date(at).toISOString())
      })
      const idleBefore = new Date(Date.now() - this.limits.idleMs).toISOString()
      await this.store.transaction((tx) => this.store.sessions.deleteExpired(tx, new Date().toISOString(), idleBefore))
    } catch {
      // Best effort: last use is kept in memory meanwhile and written at the next flush.
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer)
    await this.flush()
  }
}
