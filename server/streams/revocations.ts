// Revocations for relays (docs/operations.md, Relays): a relay caches the tokens its upstream verified, so
// when a token is deleted or loses rights here, the relays that follow this project hear of it on their
// change stream (a `revoke` event with the token hashes, sent only to streams opened with a relay key) and
// drop it within moments. Found by comparing the token map before and after whatever may change it.
import type { Snapshots } from '../cache/snapshots'
import type { TokenRow } from '../store/tokens'
import type { ChangeNotice } from '../notices/changes'
import type { ChangeHub } from './hub'
import { sseEvent } from './sse'

/** Notices after which tokens may be gone: a token's own, and a project's (deleted with its tokens). */
const TOKEN_NOTICES: ReadonlySet<ChangeNotice['resourceType']> = new Set(['token', 'project', 'member', 'user'])

const sameGrant = (a: TokenRow, b: TokenRow): boolean =>
  a.projectId === b.projectId &&
  a.expiresAt === b.expiresAt &&
  a.environment === b.environment &&
  a.permissions.length === b.permissions.length &&
  a.permissions.every((p, i) => p === b.permissions[i])

export function relayRevocations(snapshots: Pick<Snapshots, 'allTokens'>, hub: Pick<ChangeHub, 'toRelays'>) {
  /** Whether a token still stands apart from its row: a personal token's owner still in its project (set
   *  once the people directory exists; until then every token does). */
  let live: (token: TokenRow) => boolean = () => true
  /** The tokens that stand now (a personal token whose owner left is revoked like a deleted one). */
  const standing = () => new Map([...snapshots.allTokens()].filter(([, t]) => live(t)))

  /** Runs `change` (something that may reload tokens or people) and sends a `revoke` for every token it
   *  removed, changed, or left standing no more. */
  async function around<T>(change: () => Promise<T>): Promise<T> {
    const before = standing()
    const out = await change()
    const after = standing()
    const gone = new Map<string, string[]>()
    for (const [hash, was] of before) {
      const now = after.get(hash)
      if (now === undefined || !sameGrant(now, was)) gone.set(was.projectId, [...(gone.get(was.projectId) ?? []), hash])
    }
    for (const [projectId, hashes] of gone) hub.toRelays(projectId, sseEvent({ event: 'revoke', data: { hashes } }))
    return out
  }
  return {
    around,
    useLiveness(check: (token: TokenRow) => boolean): void {
      live = check
    },
    /** Applies notices with `apply`, watching the token map only when one of them can change it. */
    apply<N extends ChangeNotice | readonly ChangeNotice[]>(notices: N, apply: (n: N) => Promise<void>): Promise<void> {
      const list = (Array.isArray(notices) ? notices : [notices]) as readonly ChangeNotice[]
      return list.some((n) => TOKEN_NOTICES.has(n.resourceType)) ? around(() => apply(notices)) : apply(notices)
    },
  }
}
