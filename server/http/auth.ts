// Bearer-token authentication from the in-memory token map (no database per request) and permission checks.
import type { Snapshots } from '../cache/snapshots'
import type { Store } from '../store'
import type { TokenRow } from '../store/tokens'
import type { Actor } from '../services/context'
import type { Requester } from '../services/change-request-author'
import { AppError } from '../errors'
import { expiryOf, hashToken } from '../access/tokens'
import { recordTokenUse } from '../services/token-use'
import type { Permission } from '../store/vocabulary/permissions'
import { holds } from '../store/vocabulary/permissions'
import type { TicketSigner } from '../streams/tickets'
import { BoundedMemo } from './bounded-memo'
import type { RateClass } from './rate-limit'

export interface Caller {
  token: TokenRow
  actor: Actor
  /** unix ms after which the token is refused (Infinity: never) */
  expiresAtMs: number
  /** the rate-limit counter of this token per class, built once so the hot path does not concatenate */
  rateKeys: Record<RateClass, string>
  /** a person (teams): signed in with a session (sessionId), or the owner of a personal token */
  person?: { userId: string; sessionId?: string }
}

const callers = new WeakMap<Request, Caller>()

/** The person behind a credential (four eyes, docs/change-requests.md §3): a session's user, a personal
 *  token's owner, a machine token's creator; null for bootstrap and command-line tokens. */
export const personBehind = (caller: Pick<Caller, 'token' | 'person'>): string | null =>
  caller.person?.userId ?? caller.token.createdByUserId ?? null

/** Who asks for a change-request action: the actor, the person (reviews) and the person behind it. */
export const requesterOf = (caller: Caller): Requester => ({
  actor: caller.actor,
  userId: caller.person?.userId ?? null,
  behind: personBehind(caller),
})

/** Sets the caller of a request (sessions are authenticated outside this class: http/session-auth.ts). */
export function setCaller(request: Request, caller: Caller): void {
  callers.set(request, caller)
}

/** The caller of a request if one was authenticated (the access log's; routes use `callerOf`). */
export const callerIfAny = (request: Request): Caller | undefined => callers.get(request)

/** The authenticated caller of a request (set by the app's onRequest hook for every /api/ path). */
export function callerOf(request: Request): Caller {
  const c = callers.get(request)
  if (!c) throw new AppError(401, 'UNAUTHORIZED', 'Authentication required')
  return c
}

export const can = (token: TokenRow, permission: Permission): boolean => holds(token.permissions, permission)

/** May this token evaluate flags (or configs): it reads them, or it is a client key (which reads only the
 *  client_side ones, and only on the evaluation routes: access/client-keys.ts). */
export const canEvaluate = (token: TokenRow, permission: 'read:flags' | 'read:configs'): boolean =>
  can(token, permission) || token.permissions.includes('client')

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

const AUTHORIZATION = /^Bearer\s+(\S+)\s*$/i

function callerFor(token: TokenRow): Caller {
  return {
    token,
    actor: { projectId: token.projectId, name: token.tokenPrefix, tokenHash: token.hash },
    expiresAtMs: expiryOf(token),
    rateKeys: { evaluation: `${token.hash}:evaluation`, management: `${token.hash}:management` },
    // A personal token acts for its owner (its rights are bounded by theirs in access/authorize.ts).
    ...(token.ownerUserId !== null && { person: { userId: token.ownerUserId } }),
  }
}

export class Authenticator {
  private lastMissRefresh = 0
  /** Authorization header value -> caller, so a request hashes nothing and allocates no caller; emptied
   *  whenever the token map is rebuilt, so a revoked or changed token is never served from here. Only
   *  headers naming a known token get in; past 10,000 (or for a header over 256 characters, far above
   *  `Bearer ` + a token) lookups hash again. */
  private byHeader = new BoundedMemo<Caller>(10_000, 256)
  private tokensSeen: unknown
  /** hash -> ms of last use, written to the store in batches */
  private touched = new Map<string, number>()
  private flushTimer: ReturnType<typeof setInterval>

  constructor(
    private snapshots: Snapshots,
    /** absent on a relay (no database: nothing to record last use in) */
    private store: Store | undefined,
    private tickets: TicketSigner,
    /** a relay's way to learn tokens it has not seen (server/relay/keys.ts asks its upstream); without it a
     *  miss re-reads the token table */
    private resolveMisses?: (hashes: string[]) => Promise<void>,
  ) {
    // last_used_at is batched: writing it per request would put the database back on the hot path.
    this.flushTimer = setInterval(() => void this.flush(), TOUCH_FLUSH_MS)
  }

  /** The caller for an Authorization header value, from memory only: undefined when the header is
   *  malformed or names no known token (expiry is the caller's to check, see `authenticate`). */
  known(header: string | null): Caller | undefined {
    if (header === null) return undefined
    if (this.tokensSeen !== this.snapshots.tokensVersion) {
      this.byHeader.clear()
      this.tokensSeen = this.snapshots.tokensVersion
    }
    let caller = this.byHeader.get(header)
    if (caller) return caller
    const m = AUTHORIZATION.exec(header)
    const token = m ? this.snapshots.token(hashToken(m[1]!)) : undefined
    if (!token) return undefined
    caller = callerFor(token)
    this.byHeader.set(header, caller)
    return caller
  }

  /** Records a use of the caller's token (last_used_at, flushed in batches). */
  touch(caller: Caller, now: number): void {
    this.touched.set(caller.token.hash, now)
  }

  /** The token as the caller when it is in memory, re-reading the token table on a miss (rate-limited). */
  private async refreshOnMiss<T>(lookup: () => T | undefined, hash?: () => string | undefined): Promise<T | undefined> {
    let found = lookup()
    if (found === undefined && this.resolveMisses) {
      const h = hash?.()
      if (h !== undefined) {
        await this.resolveMisses([h])
        found = lookup()
      }
    } else if (found === undefined && Date.now() - this.lastMissRefresh > MISS_REFRESH_MS) {
      this.lastMissRefresh = Date.now()
      await this.snapshots.reloadAllTokens()
      found = lookup()
    }
    return found
  }

  /** Stream requests may carry a ticket (POST /api/v1/stream/tickets) instead of the token: the caller is
   *  the ticket's token, which must still exist, belong to the ticket's project and be unexpired. */
  async authenticateTicket(request: Request, ticket: string): Promise<Caller> {
    const claims = this.tickets.verify(ticket)
    if (!claims) throw new AppError(401, 'UNAUTHORIZED', 'Invalid or expired stream ticket; get a new one from POST /api/v1/stream/tickets')
    const token = await this.refreshOnMiss(
      () => this.snapshots.token(claims.tokenHash),
      () => claims.tokenHash,
    )
    if (!token || token.projectId !== claims.projectId)
      throw new AppError(401, 'UNAUTHORIZED', "The stream ticket's token no longer exists")
    const caller = callerFor(token)
    if (caller.expiresAtMs <= Date.now()) throw new AppError(401, 'TOKEN_EXPIRED', 'Token expired')
    callers.set(request, caller)
    return caller
  }

  /** `apiKey`: the request is on the evaluation surface, where OFREP clients may send the token as
   *  X-API-Key instead (integration.md §1). Elsewhere (tokens, webhooks, every change) only the
   *  Authorization header counts: a key made for a browser's evaluations is no management credential. */
  async authenticate(request: Request, apiKey = false): Promise<Caller> {
    const authorization = request.headers.get('authorization')
    const key = authorization === null && apiKey ? request.headers.get('x-api-key') : null
    const header = key !== null ? `Bearer ${key}` : authorization
    let caller = this.known(header)
    if (!caller) {
      if (!header || !AUTHORIZATION.test(header)) {
        const refused =
          authorization === null && !apiKey && request.headers.has('x-api-key')
            ? '; X-API-Key is accepted on the evaluation endpoints only'
            : ' (or X-API-Key: <token> on the evaluation endpoints)'
        throw new AppError(401, 'UNAUTHORIZED', `Missing or malformed Authorization header; expected "Bearer <token>"${refused}`)
      }
      caller = await this.refreshOnMiss(
        () => this.known(header),
        () => hashToken(AUTHORIZATION.exec(header)![1]!),
      )
      if (!caller) throw new AppError(401, 'UNAUTHORIZED', 'Unknown token')
    }
    const now = Date.now()
    if (caller.expiresAtMs <= now) throw new AppError(401, 'TOKEN_EXPIRED', 'Token expired')
    this.touch(caller, now)
    callers.set(request, caller)
    return caller
  }

  /** Makes sure the tokens of `hashes` that exist are in memory (POST /api/v1/relay/verify): a relay asks its
   *  upstream; an origin re-reads the token table when one is missing (at most once a second). */
  async lookupHashes(hashes: readonly string[]): Promise<void> {
    const missing = hashes.filter((h) => this.snapshots.token(h) === undefined)
    if (!missing.length) return
    if (this.resolveMisses) return this.resolveMisses(missing)
    await this.refreshOnMiss(() => undefined)
  }

  async flush(): Promise<void> {
    const store = this.store
    if (!this.touched.size || !store) return
    const batch = [...this.touched]
    this.touched.clear()
    try {
      await recordTokenUse(store, batch)
    } catch {
      // Best effort: last_used_at is informational, and the store may be briefly unavailable.
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.flushTimer)
    await this.flush()
  }
}
