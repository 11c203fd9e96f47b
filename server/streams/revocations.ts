// Revocations for relays (docs/operations.md, Relays): a relay caches the tokens its upstream verified, so
// when a token is deleted or loses rights here, the relays that follow this project hear of it on their
// change stream (a `revoke` event with the token hashes, sent only to streams opened with a relay key) and
// drop it within moments. Found by comparing the token map before and after whatever may change it.
import type { Snapshots } from '../cache/snapshots'
import type { TokenRow } from '../store/tokens'
import type { ChangeNotice } from '../services/events'
import type { ChangeHub } from './hub'
import { sseEvent } from './sse'

/** Notices after which tokens may be gone: a token's own, and a project's (deleted with its tokens). */
const TOKEN_NOTICES: ReadonlySet<ChangeNotice['resourceType']> = new Set(['token', 'project', 'member', 'user'])

const sameGrant = (a: TokenRow, b: TokenRow): boolean =>
  a.projectId === b.projectId && a.expiresAt === b.expiresAt && a.environment === b.environment &&
  a.permissions.length === b.permissions.length && a.permissions.every((p, i) => p === b.permissions[i])

export function relayRevocations(snapshots: Pick<Snapshots, 'allTokens'>, hub: Pick<ChangeHub, 'toRelays'>) {
  /** Runs `change` (something that may reload tokens) and sends a `revoke` for every token it removed or changed. */
  async function around<T>(change: () => Promise<T>): Promise<T> {
    const before = new Map(snapshots.allTokens())
    const out = await change()
    const after = snapshots.allTokens()
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
    /** Applies notices with `apply`, watching the token map only when one of them can change it. */
    apply<N extends ChangeNotice | readonly ChangeNotice[]>(notices: N, apply: (n: N) => Promise<void>): Promise<void> {
      const list = (Array.isArray(notices) ? notices : [notices]) as readonly ChangeNotice[]
      return list.some((n) => TOKEN_NOTICES.has(n.resourceType)) ? around(() => apply(notices)) : apply(notices)
    },
  }
}
