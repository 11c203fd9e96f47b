// Break glass (docs/change-requests.md §1): a project admin's session may force a direct write through a
// protected environment with `Flagship-Bypass-Reason: <10-500 characters>`; the change is applied, audited
// with the reason and announced (`change_request.bypassed`, services/change-runner.ts). Another person
// sending it is refused (403); a token's is ignored, so the gate answers 409 CHANGE_REQUEST_REQUIRED.
import type { Decision, RouteAction } from '../access/authorize'
import { BYPASS_HEADER, BYPASS_REASON_MAX, BYPASS_REASON_MIN } from '../services/change-request-types'
import { AppError, validationError } from '../errors'
import type { Caller } from './auth'

const WRITES = new Set<RouteAction>(['write:flags', 'write:configs'])

export function noteBypass(request: Request, caller: Caller, action: RouteAction, decision: Decision): void {
  const reason = request.headers.get(BYPASS_HEADER)
  if (reason === null || !WRITES.has(action) || caller.person?.sessionId === undefined) return
  if (!decision.permissions.includes('*'))
    throw new AppError(403, 'FORBIDDEN', 'Only a project admin may bypass a change request', { required: 'admin' })
  const text = reason.trim()
  if (text.length < BYPASS_REASON_MIN || text.length > BYPASS_REASON_MAX) {
    throw validationError([{ path: 'Flagship-Bypass-Reason', message: `must be ${BYPASS_REASON_MIN} to ${BYPASS_REASON_MAX} characters` }])
  }
  // A session's caller (and its actor) is made per request.
  caller.actor.authority = { kind: 'bypass', reason: text }
}
