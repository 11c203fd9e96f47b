// ACCESS_LOG (off by default): one JSON line per request, through the service's JSON logger:
//   {"time":…,"level":"info","msg":"access","method":"GET","route":"/api/v1/flags/:key","status":200,
//    "duration_ms":0.41,"caller":"token","caller_id":"ff_defa_Xk3a","client":"203.0.113.7"}
// The route is the template, never the path or its query (a stream ticket, an evaluation context); the
// caller is its kind and a public id (a token's prefix, as lists and the audit log show it; a person's user
// id), never a token, a cookie or a header's value. Requests Elysia answers are logged from its `wrap`
// (metrics.ts), the fast paths' own answers from fast-admission.ts; when off, neither path does anything
// more than before (the fast path tests one constant).
import type { Log } from '../log'
import type { Caller } from './auth'

export type AccessLog = (
  request: Request,
  route: string,
  status: number,
  started: number,
  caller: Caller | undefined,
  client: string | null | undefined,
) => void

/** The caller's kind and public id (docs/operations.md "Access log"). */
export function callerFields(caller: Caller | undefined): { caller: string; caller_id: string | null } {
  if (caller === undefined) return { caller: 'none', caller_id: null }
  if (caller.person?.sessionId !== undefined) return { caller: 'session', caller_id: caller.person.userId }
  return { caller: caller.person !== undefined ? 'personal_token' : 'token', caller_id: caller.token.tokenPrefix }
}

export function createAccessLog(log: Log): AccessLog {
  return (request, route, status, started, caller, client) => {
    log('access', {
      method: request.method,
      route,
      status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      ...callerFields(caller),
      client: client ?? null,
    })
  }
}
