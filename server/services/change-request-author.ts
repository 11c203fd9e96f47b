// Who wrote a change request, and whether they still may (docs/change-requests.md §3-4). The author is the
// person behind the credential that proposed it: a session's user, a personal token's owner, a machine
// token's creator (tokens.created_by_user_id), so four eyes are two people whichever credentials one of
// them holds. A request proposed with a machine token also names that token (its hash): it may edit, cancel
// and apply its own request, and its revocation ends the request's authority.
// At apply (now or scheduled) the author must still be active and hold write rights in every environment
// the request affects: otherwise the request fails with AUTHOR_LACKS_RIGHTS.
import { affectedNames } from '../access/affected-environments'
import type { Db, Store } from '../store'
import type { ChangeRequestRow } from '../store/change-requests'
import type { TokenRow } from '../store/tokens'
import { type AppError, conflict } from '../errors'
import { permissionOf } from './change-request-items'
import type { RequestPolicy, Reviewers } from './change-request-views'
import type { Actor } from './context'
import { expiryOf } from './tokens'

/** Who is asking: the actor; the person signed in or owning the personal token (`userId`, null for a
 *  machine token: only people review); the person behind the credential (`behind`: also a machine
 *  token's creator; null for bootstrap and command-line tokens). */
export interface Requester {
  actor: Actor
  userId: string | null
  behind?: string | null
}

/** The authorship columns of a new request. */
export const authorOf = (req: Requester) => ({
  authorUserId: req.behind !== undefined ? req.behind : req.userId,
  authorTokenHash: req.userId === null ? (req.actor.tokenHash ?? null) : null,
})

/** The author, through any of their credentials, or the machine token that proposed it. */
export function isAuthor(req: Requester, row: ChangeRequestRow): boolean {
  const person = req.behind !== undefined ? req.behind : req.userId
  if (row.authorUserId !== null && person === row.authorUserId) return true
  if (req.userId !== null) return false
  // Requests made by a machine token before tokens named their token by hash carry its prefix only.
  return row.authorTokenHash !== null
    ? req.actor.tokenHash === row.authorTokenHash
    : row.authorUserId === null && req.actor.name === row.authorName
}

const lacks = (message: string, details: Record<string, unknown>) => conflict('AUTHOR_LACKS_RIGHTS', message, details)

/** Why the author may no longer apply `row` (null: they may). Reads the authoring token in `tx`. */
export async function authorRefusal(
  store: Store,
  tx: Db,
  reviewers: Reviewers,
  row: ChangeRequestRow,
  policy: RequestPolicy,
): Promise<AppError | null> {
  const who = row.authorName
  if (row.authorUserId !== null) {
    const person = reviewers.person(row.authorUserId)
    if (!person) return lacks(`The author (${who}) no longer exists or is disabled`, { author: who, reason: 'inactive' })
    if (!reviewers.mayReview(row.authorUserId, row.projectId, policy.affected, false)) {
      return lacks(`The author (${person.email}) is no longer active with write rights in every environment the request affects`, {
        author: person.email,
        reason: 'no_write_rights',
      })
    }
  }
  const machine = row.authorTokenHash !== null || row.authorUserId === null
  if (!machine) return null
  let token: TokenRow | undefined
  if (row.authorTokenHash !== null) token = await store.tokens.get(tx, row.projectId, row.authorTokenHash)
  else {
    const same = (await store.tokens.byProject(tx, row.projectId)).filter((t) => t.tokenPrefix === row.authorName && t.ownerUserId === null)
    token = same.length === 1 ? same[0] : undefined
  }
  if (!token || expiryOf(token) <= Date.now())
    return lacks(`The token that proposed the request (${who}) was revoked or has expired`, { author: who, reason: 'token_revoked' })
  const missing = [...new Set(row.items.map(permissionOf))].filter(
    (p) => !token!.permissions.includes('*') && !token!.permissions.includes(p),
  )
  const project = await store.projects.get(tx, row.projectId)
  const names = affectedNames(policy.affected, project?.environments ?? [])
  const outside = token.environments ? names.filter((e) => !token!.environments!.includes(e)) : []
  if (missing.length || outside.length) {
    return lacks(`The token that proposed the request (${who}) no longer holds write rights in every environment it affects`, {
      author: who,
      reason: 'no_write_rights',
      ...(missing.length && { permissions: missing }),
      ...(outside.length && { environments: outside }),
    })
  }
  return null
}
