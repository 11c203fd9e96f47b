// Bearer-token authentication from the in-memory token map (no database per request) and permission checks.
import type { Snapshots } from '../cache/snapshots'
import type { Store } from '../store'
import type { TokenRow } from '../store/tokens'
import type { Actor } from '../services/context'
import { AppError } from '../services/errors'
import { hashToken, isExpired, type Permission } from '../services/tokens'

export interface Caller {
  token: TokenRow
  actor: Actor
}

const callers = new WeakMap<Request, Caller>()

/** The authenticated caller of a request (set by the app's onRequest hook for every /api/ path). */
export function callerOf(request: Request): Caller {
  const c = callers.get(request)
  if (!c) throw new AppError(401, 'UNAUTHORIZED', 'Authentication required')
  return c
}

export const can = (token: TokenRow, permission: Permission): boolean => token.permissions.includes('*') || token.permissions.includes(permission)

export function requirePermission(request: Request, permission: Permission): Caller {
  const caller = callerOf(request)
  if (!can(caller.token, permission)) {
    throw new AppError(403, 'FORBIDDEN', `This token lacks the "${permission}" permission`, { required: permission })
  }
  return caller
}

/** A token created by another process (the CLI, another instance) may not be in memory yet: on a miss the
 *  token table is re-read, at most once per second so unknown tokens cannot turn into a query flood. */
const MISS_REFRESH_MS = 1000
const TOUCH_FLUSH_MS = 10_000

/** Bound on remembered bearer strings; past it the map starts over (lookups then hash again). */
const MAX_REMEMBERED = 10_000

export class Authenticator {
  private lastMissRefresh = 0
  /** bearer string -> token row, so the hot path hashes each token once, not per request; emptied
   *  whenever the token map is rebuilt, so a revoked token is never served from here */
  private byBearer = new Map<string, TokenRow>()
  private tokensSeen: unknown
  /** hash -> ms of last use, written to the store in batches */
  private touched = new Map<string, number>()
  private flushTimer: ReturnType<typeof setInterval>

  constructor(private snapshots: Snapshots, private store: Store) {
    // last_used_at is batched: writing it per request would put the database back on the hot path.
    this.flushTimer = setInterval(() => void this.flush(), TOUCH_FLUSH_MS)
  }

  private lookup(bearer: string): TokenRow | undefined {
    if (this.tokensSeen !== this.snapshots.tokensVersion) {
      this.byBearer.clear()
      this.tokensSeen = this.snapshots.tokensVersion
    }
    let token = this.byBearer.get(bearer)
    if (token) return token
    token = this.snapshots.token(hashToken(bearer))
    if (token) {
      if (this.byBearer.size >= MAX_REMEMBERED) this.byBearer.clear()
      this.byBearer.set(bearer, token)
    }
    return token
  }

  async authenticate(request: Request): Promise<Caller> {
    const header = request.headers.get('authorization')
    const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
    if (!m) throw new AppError(401, 'UNAUTHORIZED', 'Missing or malformed Authorization header; expected "Bearer <token>"')
    const bearer = m[1]
    let token = this.lookup(bearer)
    if (!token && Date.now() - this.lastMissRefresh > MISS_REFRESH_MS) {
      this.lastMissRefresh = Date.now()
      await this.snapshots.reloadAllTokens()
      token = this.lookup(bearer)
    }
    if (!token) throw new AppError(401, 'UNAUTHORIZED', 'Unknown token')
    if (isExpired(token)) throw new AppError(401, 'TOKEN_EXPIRED', 'Token expired')
    this.touched.set(token.hash, Date.now())
    const caller = { token, actor: { projectId: token.projectId, name: token.tokenPrefix } }
    callers.set(request, caller)
    return caller
  }

  async flush(): Promise<void> {
    if (!this.touched.size) return
    const batch = [...this.touched]
    this.touched.clear()
    try {
      await this.store.transaction(async (tx) => {
        for (const [hash, at] of batch) await this.store.tokens.touch(tx, hash, new Date(at).toISOString())
      })
    } catch {
      // Best effort: last_used_at is informational, and the store may be briefly unavailable.
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.flushTimer)
    await this.flush()
  }
}
