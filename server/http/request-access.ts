// Runs the one authorization function (access/authorize.ts) for a route, before its body is validated.
// For a session, the decision also fixes which project the request acts on and the rights it has there.
import type { Access, Affected, RouteAction } from '../access/authorize'
import { callerOf, setCaller } from './auth'
import { noteBypass } from './bypass'
import { pathOf } from './url-input'

const accesses = new WeakMap<Request, Access>()
/** The project a request names other than by header (a console stream's ticket). */
const projectRefs = new WeakMap<Request, string>()

export const noteProjectRef = (request: Request, ref: string): void => void projectRefs.set(request, ref)

/** Noted by the app for every authenticated request. */
export const noteAccess = (request: Request, access: Access): void => void accesses.set(request, access)

export function authorizeRoute(request: Request, action: RouteAction, affected: Affected): void {
  if (action === 'public') return
  const caller = callerOf(request)
  const access = accesses.get(request)
  if (!access) throw new Error('authorizeRoute: no access context for this request')
  const decision = access.authorize(caller, action, affected, projectRefs.get(request) ?? request.headers.get('flagship-project'), {
    method: request.method,
    path: pathOf(request.url),
  })
  if (caller.person?.sessionId !== undefined && decision.projectId !== null) {
    // A session caller is made per request, so this changes nothing shared.
    caller.actor.projectId = decision.projectId
    caller.token = { ...caller.token, projectId: decision.projectId, permissions: decision.permissions }
  } else if (caller.person !== undefined) {
    // A personal token acts as its owner: the audit names them, with the token's prefix as the credential
    // (a copy for this request; the token's caller is shared).
    const email = access.emailOf(caller.person.userId) ?? caller.actor.name
    setCaller(request, { ...caller, actor: { ...caller.actor, name: email, type: 'user', credential: caller.token.tokenPrefix } })
  }
  noteBypass(request, callerOf(request), action, decision)
}

/** The environments a request changes (teams.md §4): `:env` in the path names one; otherwise all. */
export function affectedByParams(params: Record<string, string | undefined> | undefined): Affected {
  const env = params?.env
  return env !== undefined ? [env] : 'all'
}
