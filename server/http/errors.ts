// Turns anything thrown during a request into the error body of docs/behaviour.md §3.
import type { AppError } from '../errors'

export const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' }

/** Error texts quote what the client sent (a key, an environment name); a quote is cut to this many
 *  characters, so a 100 kB key in a path gets a compact answer, not its own echo. */
const MAX_ECHO = 200
const bounded = (text: string): string => (text.length <= MAX_ECHO ? text : `${text.slice(0, MAX_ECHO)}…`)

/** `details.issues` with bounded paths and messages (other details are the service's own data). */
function boundedDetails(details: unknown): unknown {
  const issues = (details as { issues?: unknown } | undefined)?.issues
  if (!Array.isArray(issues)) return details
  // A document's issues also carry the line (and the file, for the CLI) they were found at.
  return {
    ...(details as object),
    issues: issues.map((i: { path: string; message: string; line?: unknown }) => ({
      path: bounded(i.path),
      ...(typeof i.line === 'number' && { line: i.line }),
      message: bounded(i.message),
    })),
  }
}

export function errorResponse(status: number, code: string, error: string, details?: unknown, extra?: Record<string, string>): Response {
  const body = details === undefined ? { error: bounded(error), code } : { error: bounded(error), code, details: boundedDetails(details) }
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...extra } })
}

export const fromAppError = (e: AppError): Response => {
  // A service's own 429 (the usage report budget) says when to come back, as the rate limiter's do.
  const retryAfter = e.status === 429 ? e.details?.retry_after : undefined
  const headers = typeof retryAfter === 'number' ? { 'Retry-After': String(retryAfter), ...e.headers } : e.headers
  return errorResponse(e.status, e.code, e.message, e.details, headers)
}

interface ElysiaValidationIssue {
  path?: string
  message?: string
  summary?: string
}

/** Elysia's schema errors -> `details.issues` with dotted field paths (`/targeting/rules/0` -> `targeting.rules[0]`). */
export function validationIssues(
  error: { all?: ElysiaValidationIssue[]; type?: string } & Record<string, unknown>,
  where: string,
): { path: string; message: string }[] {
  const all = (error.all ?? []) as ElysiaValidationIssue[]
  const toPath = (p = '') =>
    p
      .split('/')
      .filter(Boolean)
      .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), '')
  // An unexpected property of a query names the parameters the route does take (so `?ctx=` is self-explaining).
  const known = Object.keys((error.validator as { schema?: { properties?: object } } | undefined)?.schema?.properties ?? {})
  const unknownParameter = known.length
    ? `unknown parameter; known: ${known.join(', ')}`
    : 'unknown parameter; this endpoint takes no query parameters'
  const issues = all.map((i) => {
    const message = i.summary ?? i.message ?? 'invalid'
    return {
      path: toPath(i.path) || where,
      message: where === 'query' && /should not be provided/.test(message) ? unknownParameter : message,
    }
  })
  return issues.length ? issues : [{ path: where, message: 'invalid' }]
}
