// The keys a relay's clients present, verified by its upstream (POST /api/v1/relay/verify, by SHA-256 only)
// and cached: permissions, environment and expiry as the upstream answered. A revocation reaches the relay
// on its stream (`revoke`); a key the upstream did not know is asked about again at most once a minute, so
// unknown tokens cannot turn into a flood upstream.
import type { Snapshots } from '../cache/snapshots'
import type { TokenRow } from '../store/tokens'
import type { Log } from '../log'

export const REASK_UNKNOWN_MS = 60_000
const MAX_UNKNOWN = 100_000
const VERIFY_CHUNK = 1000

export interface KeyVerdict {
  hash: string
  valid: boolean
  token_prefix?: string
  permissions?: TokenRow['permissions']
  environment?: string | null
  environments?: string[] | null
  expires_at?: string | null
}

export interface VerifyAnswer {
  project: { id: string; slug: string; name: string }
  environment: string | null
  keys: KeyVerdict[]
}

export class RelayKeys {
  /** hash -> when the upstream last said it does not know it */
  private unknown = new Map<string, number>()
  private asking = new Map<string, Promise<void>>()

  constructor(
    private readonly o: {
      snapshots: Snapshots
      /** the upstream's answer, or undefined when it could not be reached */
      verify: (hashes: string[]) => Promise<VerifyAnswer | undefined>
      projectId: () => string | undefined
      changed: () => void
      log: Log
    },
  ) {}

  private rowOf(v: KeyVerdict, projectId: string): TokenRow {
    return {
      hash: v.hash,
      projectId,
      name: v.token_prefix ?? '',
      tokenPrefix: v.token_prefix ?? '',
      permissions: v.permissions ?? [],
      expiresAt: v.expires_at ?? null,
      createdAt: '',
      lastUsedAt: null,
      ownerUserId: null,
      environments: v.environments ?? null,
      environment: v.environment ?? null,
      createdByUserId: null,
    }
  }

  /** The cached keys (for RELAY_CACHE_FILE). */
  held(): TokenRow[] {
    const projectId = this.o.projectId()
    return [...this.o.snapshots.allTokens().values()].filter((t) => t.projectId === projectId)
  }

  restore(rows: readonly TokenRow[]): void {
    this.o.snapshots.putTokens(rows)
  }

  /** Asks the upstream about the hashes not held and not refused within the last minute. */
  async resolve(hashes: readonly string[]): Promise<void> {
    const now = Date.now()
    const ask = hashes.filter(
      (h) => this.o.snapshots.token(h) === undefined && !(now - (this.unknown.get(h) ?? -Infinity) < REASK_UNKNOWN_MS),
    )
    const waits = hashes.map((h) => this.asking.get(h)).filter((p) => p !== undefined)
    const fresh = ask.filter((h) => !this.asking.has(h))
    if (fresh.length) {
      const done = this.ask(fresh).finally(() => fresh.forEach((h) => this.asking.delete(h)))
      fresh.forEach((h) => this.asking.set(h, done))
      waits.push(done)
    }
    await Promise.all(waits)
  }

  private async ask(hashes: string[]): Promise<void> {
    const answer = await this.o.verify(hashes)
    if (!answer) return // unreachable: asked again on the next request
    const now = Date.now()
    const valid: TokenRow[] = []
    for (const v of answer.keys) {
      if (v.valid) valid.push(this.rowOf(v, answer.project.id))
      else this.refused(v.hash, now)
    }
    this.o.snapshots.putTokens(valid)
    if (valid.length) this.o.changed()
  }

  private refused(hash: string, now: number): void {
    if (this.unknown.size >= MAX_UNKNOWN) this.unknown.delete(this.unknown.keys().next().value!)
    this.unknown.set(hash, now)
  }

  /** Drops revoked keys at once (their streams close within a second: the hub checks). */
  revoke(hashes: readonly string[]): void {
    this.o.snapshots.dropTokens(hashes)
    const now = Date.now()
    for (const h of hashes) this.refused(h, now)
    this.o.changed()
  }

  /** Asks about every held key again (after the stream was away: revocations may have been missed). */
  async recheck(): Promise<void> {
    const hashes = this.held().map((t) => t.hash)
    for (let i = 0; i < hashes.length; i += VERIFY_CHUNK) {
      const answer = await this.o.verify(hashes.slice(i, i + VERIFY_CHUNK))
      if (!answer) return
      const gone = answer.keys.filter((k) => !k.valid).map((k) => k.hash)
      if (gone.length) this.revoke(gone)
      this.o.snapshots.putTokens(answer.keys.filter((k) => k.valid).map((k) => this.rowOf(k, answer.project.id)))
    }
  }
}
