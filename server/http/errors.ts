// Turns anything thrown during a request into the error body of docs/behaviour.md §3.
import { AppError } from '../services/errors'

export const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' }

export function errorResponse(status: number, code: string, error: string, details?: unknown, extra?: Record<string, string>): Response {
  return new Response(JSON.stringify(details === undefined ? { error, code } : { error, code, details }), {
    status,
    headers: { ...JSON_HEADERS, ...extra },
  })
}

export const fromAppError = (e: AppError): Response => errorResponse(e.status, e.code, e.message, e.details)

interface ElysiaValidationIssue {
  path?: string
  message?: string
  summary?: string
}

/** Elysia's schema errors -> `details.issues` with dotted field paths (`/targeting/rules/0` -> `targeting.rules[0]`). */
export function validationIssues(error: { all?: ElysiaValidationIssue[]; type?: string } & Record<string, unknown>, where: string): { path: string; message: string }[] {
  const all = (error.all ?? []) as ElysiaValidationIssue[]
  const toPath = (p = '') =>
    p.split('/').filter(Boolean).reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), '')
  const issues = all.map((i) => ({ path: toPath(i.path) || where, message: i.summary ?? i.message ?? 'invalid' }))
  return issues.length ? issues : [{ path: where, message: 'invalid' }]
}

/** The paging parameters every list route takes, with their bounds (schemas.ts `Page`). */
type IntegerBounds = { minimum?: number; maximum?: number }

/**
 * Issues with `limit` / `offset` in the URL, with the parameter as the path. Elysia's coercion of numeric
 * query values reports an out-of-range value without naming the parameter (`property`, path ''), and a
 * non-number as a union mismatch; this re-checks the raw values so the client learns which one and why.
 * Undefined when they are fine.
 */
export function pagingIssues(url: string, bounds: Record<string, IntegerBounds>): { path: string; message: string }[] | undefined {
  const q = url.indexOf('?')
  if (q === -1) return undefined
  const issues: { path: string; message: string }[] = []
  for (const [name, raw] of new URLSearchParams(url.slice(q + 1))) {
    const b = bounds[name]
    if (!b) continue
    const n = Number(raw)
    const [min, max] = [b.minimum ?? -Infinity, b.maximum ?? Infinity]
    if (raw.trim() === '' || !Number.isInteger(n) || n < min || n > max) issues.push({ path: name, message: `must be an integer from ${min} to ${max}` })
  }
  return issues.length ? issues : undefined
}
