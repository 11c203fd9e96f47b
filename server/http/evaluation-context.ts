// The evaluation context as clients send it: URL-encoded JSON in `?context=` or a JSON body field.
import type { EvaluationContext } from '../engine'
import { validationError } from '../errors'
import { BoundedMemo } from './bounded-memo'
import { parseJsonText } from './json-input'
import { decodeQueryValue } from './url-input'

const STRING_FIELDS = ['user_id', 'plan', 'environment'] as const

/** Checks the context shape (docs/behaviour.md §4): known fields have their types; other attributes pass through. */
export function checkContext(value: unknown, path = 'context'): EvaluationContext {
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value)) throw validationError([{ path, message: 'must be a JSON object' }])
  const ctx = value as Record<string, unknown>
  const issues = STRING_FIELDS.filter((f) => ctx[f] !== undefined && typeof ctx[f] !== 'string').map((f) => ({
    path: `${path}.${f}`,
    message: 'must be a string',
  }))
  if (ctx.custom !== undefined && (typeof ctx.custom !== 'object' || ctx.custom === null || Array.isArray(ctx.custom)))
    issues.push({ path: `${path}.custom`, message: 'must be an object' })
  if (issues.length) throw validationError(issues)
  return ctx as EvaluationContext
}

/** `?context=` text (URL-decoded): JSON of a context object. */
const parseContextParam = (text: string): EvaluationContext => checkContext(parseJsonText(text, 'context'))

/** The raw, still URL-encoded value of the first query parameter of `url` that starts with `prefix` (its
 *  name and `=`), or undefined. Read straight from the URL: the router's generic query parsing costs more
 *  than the evaluation itself. */
export function rawQueryParam(url: string, prefix: `${string}=`): string | undefined {
  let at = url.indexOf('?')
  if (at === -1) return undefined
  while (at !== -1) {
    if (url.startsWith(prefix, at + 1)) {
      const end = url.indexOf('&', at + 1 + prefix.length)
      return url.slice(at + 1 + prefix.length, end === -1 ? undefined : end)
    }
    at = url.indexOf('&', at + 1)
  }
  return undefined
}

export const EMPTY_CONTEXT: EvaluationContext = Object.freeze({})

/** The one query a GET evaluation on the fast path may carry (fast-evaluation.ts, flag-answers.ts). */
export const CONTEXT_QUERY = '?context='

/** Raw `?context=` text -> its checked, frozen context. The same user's context comes back request after
 *  request, and decoding plus parsing it is the largest cost of an evaluation after the network; the engine
 *  never mutates a context (they are frozen to make sure), so one parse can serve every repeat. Memory is
 *  bounded by what a client could send: at most 4,096 contexts of up to 1 KiB of text and 64 JSON values
 *  each (a typical context is ~200 bytes and ~10 values); bigger ones are parsed every time. */
const parsedContexts = new BoundedMemo<EvaluationContext>(4096, 1024)
/** Contexts of more JSON values than this are not remembered (OFREP's context memo, fast-ofrep.ts, too). */
export const MAX_MEMO_VALUES = 64

/** Freezes `value` and everything in it; returns how many JSON values that was. */
export function deepFreeze(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 1
  let count = 1
  for (const v of Object.values(value)) count += deepFreeze(v)
  Object.freeze(value)
  return count
}

/** The context of a raw `?context=` value seen before (in the memo), or undefined. Only a memo lookup: the
 *  answer memo (flag-answers.ts) remembers answers for such repeated contexts only. */
export const rememberedContext = (raw: string): EvaluationContext | undefined => parsedContexts.get(raw)

/** A raw (still URL-encoded, non-empty) `?context=` value's context; 400 as an AppError when it is not
 *  URL-encoded JSON of a context object. */
export function contextOfRaw(raw: string): EvaluationContext {
  let context = parsedContexts.get(raw)
  if (context === undefined) {
    const text = decodeQueryValue(raw)
    if (text === null) throw validationError([{ path: 'context', message: 'must be URL-encoded JSON' }])
    context = parseContextParam(text)
    if (deepFreeze(context) <= MAX_MEMO_VALUES) parsedContexts.set(raw, context)
  }
  return context
}

/** The evaluation context of a GET evaluation URL (`?context=`, absent or empty = the empty context); 400 as
 *  an AppError when it is not URL-encoded JSON of a context object. */
export function contextFromUrl(url: string): EvaluationContext {
  const raw = rawQueryParam(url, 'context=')
  return raw === undefined || raw === '' ? EMPTY_CONTEXT : contextOfRaw(raw)
}
