// The text of a request's URL (docs/behaviour.md §8): every path segment and every query parameter name
// and value must be percent-encoding of UTF-8 without control characters, and the paging parameters are
// plain decimal integers in range. Checked once, before routing decodes anything: Bun and Elysia decode
// broken percent-encoding (`%FF`, `%C3%28`) to U+FFFD or null, and a key with a NUL or a newline would
// otherwise reach the store (PostgreSQL refuses NUL: a 500) or be echoed in a 404. Bun hands the URL over
// percent-encoded (raw control characters in a request line never get here), so looking at `%` escapes is
// enough.
import { AppError } from '../errors'

/** The path of a request URL as sent (no decoding), without its query. */
export const pathOf = (url: string): string => {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  const q = url.indexOf('?', start)
  return q === -1 ? url.slice(start) : url.slice(start, q)
}

export type UrlIssue = { path: string; message: string }

/** Inclusive bounds of an integer query parameter (schemas.ts `Page`). */
export type IntegerBounds = { minimum?: number; maximum?: number }

const CONTROL = /[\u0000-\u001f\u007f]/
const PLAIN_DECIMAL = /^[0-9]{1,15}$/
const MAX_QUOTE = 60
/** Exempt from the control-character rule: its value is JSON, where tabs and newlines are whitespace
 *  (JSON's own rules, documents/json-text.ts, then apply). */
const JSON_VALUED = 'context'
/** The only query parameter that may be given more than once (GET /flags?tag=a&tag=b: every tag must match).
 *  Any other repeated parameter is refused: routers keep the first or the last one silently, and a client
 *  that sent two contexts gets an answer for one it cannot tell. */
const REPEATABLE = new Set(['tag'])

/** A path segment percent-decoded, or null when its percent-encoding is broken or not UTF-8. */
export function decodePathSegment(raw: string): string | null {
  if (!raw.includes('%')) return raw
  try {
    return decodeURIComponent(raw)
  } catch {
    return null
  }
}

/** A query name or value as form encoding writes it (`+` is a space); null when its percent-encoding is
 *  broken or not UTF-8. */
export function decodeQueryValue(raw: string): string | null {
  try {
    return decodeURIComponent(raw.includes('+') ? raw.replace(/\+/g, ' ') : raw)
  } catch {
    return null
  }
}

export const hasControlCharacter = (text: string): boolean => CONTROL.test(text)

/** Still-encoded text as an error quotes it: ASCII only (it is how the client wrote it), and short. */
const quote = (raw: string) => JSON.stringify(raw.length <= MAX_QUOTE ? raw : `${raw.slice(0, MAX_QUOTE)}…`)

const BAD_ENCODING = 'is not valid percent-encoded UTF-8'
const HAS_CONTROL = 'contains a control character (U+0000-U+001F or U+007F)'

/** Issues with the path's segments, each under `path`, quoting the segment as sent. */
export function pathIssues(path: string): UrlIssue[] {
  const issues: UrlIssue[] = []
  if (!path.includes('%')) return issues
  for (const segment of path.split('/')) {
    if (!segment.includes('%')) continue
    const decoded = decodePathSegment(segment)
    if (decoded === null) issues.push({ path: 'path', message: `segment ${quote(segment)} ${BAD_ENCODING}` })
    else if (hasControlCharacter(decoded)) issues.push({ path: 'path', message: `segment ${quote(segment)} ${HAS_CONTROL}` })
  }
  return issues
}

/** Issues with the query (without `?`): names and values decoded strictly, each issue under its
 *  parameter's name (as sent, when the name itself is the problem); then the paging `bounds`, by name. */
export function queryIssues(query: string, bounds: Record<string, IntegerBounds>): UrlIssue[] {
  const issues: UrlIssue[] = []
  const seen = new Set<string>()
  for (const pair of query.split('&')) {
    if (pair === '') continue
    const eq = pair.indexOf('=')
    const rawName = eq === -1 ? pair : pair.slice(0, eq)
    const rawValue = eq === -1 ? '' : pair.slice(eq + 1)
    const name = decodeQueryValue(rawName)
    if (name === null || hasControlCharacter(name)) {
      issues.push({
        path: rawName.length <= MAX_QUOTE ? rawName : `${rawName.slice(0, MAX_QUOTE)}…`,
        message: `parameter name ${name === null ? BAD_ENCODING : HAS_CONTROL}`,
      })
      continue
    }
    if (seen.has(name) && !REPEATABLE.has(name)) {
      issues.push({ path: name, message: 'is given more than once; give it once' })
      continue
    }
    seen.add(name)
    const value = decodeQueryValue(rawValue)
    if (Object.hasOwn(bounds, name)) {
      // Elysia's coercion would take `1e3`, `0x10` or ` 5` as numbers, and its range error names no parameter.
      const { minimum = -Infinity, maximum = Infinity } = bounds[name]
      if (value === null || !PLAIN_DECIMAL.test(value) || Number(value) < minimum || Number(value) > maximum) {
        issues.push({ path: name, message: `must be an integer from ${minimum} to ${maximum}` })
      }
    } else if (value === null) issues.push({ path: name, message: BAD_ENCODING })
    else if (name !== JSON_VALUED && hasControlCharacter(value)) issues.push({ path: name, message: HAS_CONTROL })
  }
  return issues
}

/**
 * The 400 for the text of `path` and `query` (the URL's parts, without `?`), or undefined: broken or
 * non-UTF-8 percent-encoding and control characters anywhere (the JSON `context` value may hold JSON
 * whitespace), and paging parameters that are not plain decimal integers within `bounds`. The message
 * reads `Invalid query: limit: …`, or `Invalid URL: path: segment "a%00" …` when the path is wrong. Runs
 * on every request Elysia serves under /api and /ofrep; a URL without `%` or a query costs a few searches.
 */
export function checkUrl(path: string, query: string, bounds: Record<string, IntegerBounds>): AppError | undefined {
  const inPath = pathIssues(path)
  const issues = query === '' ? inPath : [...inPath, ...queryIssues(query, bounds)]
  if (issues.length === 0) return undefined
  const what = inPath.length ? 'URL' : 'query'
  return new AppError(400, 'VALIDATION_ERROR', `Invalid ${what}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues })
}
