// Session requests (a session cookie and no token): the caller is the signed-in person, found in memory
// (identity/sessions.ts, identity/directory.ts). Which project they act on is decided per route by
// access/authorize.ts from the Flagship-Project header; until then the caller holds no permissions.
import type { Identity } from '../identity/service'
import { AppError } from '../errors'
import { readSessionCookie } from '../identity/cookies'
import { noteClientAddress } from '../identity/request-meta'
import { setCaller, type Caller } from './auth'
import type { AppDeps } from './deps'
import { noteProjectRef } from './request-access'

export async function sessionCaller(identity: Identity, value: string, ip: string | null = null): Promise<Caller> {
  const found = value === '' ? undefined : await identity.personOf(value, ip)
  if (!found) throw new AppError(401, 'UNAUTHORIZED', 'Not signed in (the session ended or is unknown); sign in again')
  const { person, sessionId } = found
  const now = new Date().toISOString()
  return {
    token: {
      hash: `session:${sessionId}`,
      projectId: '',
      name: person.user.email,
      tokenPrefix: 'session',
      permissions: [],
      expiresAt: null,
      createdAt: now,
      lastUsedAt: null,
      ownerUserId: person.user.id,
      environments: null,
      environment: null,
      createdByUserId: person.user.id,
    },
    actor: { projectId: '', name: person.user.email, type: 'user', credential: 'session' },
    expiresAtMs: Infinity,
    rateKeys: { evaluation: `session:${sessionId}:evaluation`, management: `session:${sessionId}:management` },
    person: { userId: person.user.id, sessionId },
  }
}

/** Who sends a request under /api: a token (Authorization or X-API-Key), a stream ticket, or a person's
 *  session cookie when no token is sent (a token always wins, and is exempt from the CSRF rules). A
 *  console stream (EventSource sends the cookie but no headers) carries a ticket made for this very
 *  session, which names the project. A personal token whose owner lost access answers 401. */
export async function authenticateRequest(
  deps: Pick<AppDeps, 'access' | 'authenticator' | 'tickets' | 'settings'> & { identity?: AppDeps['identity'] },
  request: Request,
  ticket: string | null,
  address: () => string | undefined,
  /** an evaluation route: X-API-Key is accepted as the token (it is refused everywhere else) */
  apiKey = false,
): Promise<{ caller: Caller; cookieAuthenticated: boolean }> {
  const bearer = request.headers.has('authorization') || request.headers.has('x-api-key')
  // A relay knows no people: a session cookie there is no credential.
  const cookie = bearer || !deps.identity ? undefined : readSessionCookie(request, deps.settings)
  if (cookie !== undefined && deps.identity) {
    const ip = address()
    noteClientAddress(request, ip)
    const caller = await sessionCaller(deps.identity, cookie, ip ?? null)
    if (ticket !== null) {
      const claims = deps.tickets.verify(ticket)
      if (!claims || claims.tokenHash !== caller.token.hash)
        throw new AppError(401, 'UNAUTHORIZED', 'Invalid or expired stream ticket; get a new one from POST /api/v1/stream/tickets')
      noteProjectRef(request, claims.projectId)
    }
    setCaller(request, caller)
    return { caller, cookieAuthenticated: true }
  }
  const caller =
    ticket !== null ? await deps.authenticator.authenticateTicket(request, ticket) : await deps.authenticator.authenticate(request, apiKey)
  if (caller.person !== undefined && !deps.access.personalTokenLive(caller.token))
    throw new AppError(401, 'UNAUTHORIZED', "The token's owner no longer has access")
  return { caller, cookieAuthenticated: false }
}
