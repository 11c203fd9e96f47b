// The evaluation context as clients send it: URL-encoded JSON in `?context=` or a JSON body field.
import type { EvaluationContext } from '../engine'
import { validationError } from '../services/errors'

const STRING_FIELDS = ['user_id', 'plan', 'environment'] as const

/** Checks the context shape (decisions.md §4): known fields have their types; other attributes pass through. */
export function checkContext(value: unknown, path = 'context'): EvaluationContext {
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value)) throw validationError([{ path, message: 'must be a JSON object' }])
  const ctx = value as Record<string, unknown>
  const issues = STRING_FIELDS.filter((f) => ctx[f] !== undefined && typeof ctx[f] !== 'string').map((f) => ({ path: `${path}.${f}`, message: 'must be a string' }))
  if (ctx.custom !== undefined && (typeof ctx.custom !== 'object' || ctx.custom === null || Array.isArray(ctx.custom))) issues.push({ path: `${path}.custom`, message: 'must be an object' })
  if (issues.length) throw validationError(issues)
  return ctx as EvaluationContext
}

/** `?context=` as sent (already URL-decoded by the router): JSON text of a context object. */
export function parseContextParam(raw: string | undefined): EvaluationContext {
  if (raw === undefined || raw === '') return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    throw validationError([{ path: 'context', message: 'must be URL-encoded JSON' }])
  }
  return checkContext(parsed)
}

/** The raw `context` query parameter, read straight from the URL: the evaluation hot path skips the
 *  router's generic query parsing, which costs more than the evaluation itself. */
export function contextFromUrl(url: string): string | undefined {
  const q = url.indexOf('?')
  if (q === -1) return undefined
  for (const part of url.slice(q + 1).split('&')) {
    if (!part.startsWith('context=')) continue
    try {
      return decodeURIComponent(part.slice(8).replace(/\+/g, ' '))
    } catch {
      throw validationError([{ path: 'context', message: 'must be URL-encoded JSON' }])
    }
  }
  return undefined
}
