// Which environment an evaluation runs in (environments.md §2): an environment key's own, whatever the
// context leaves out; a context naming another is 403 ENVIRONMENT_MISMATCH; a name the project does not
// list is 400 UNKNOWN_ENVIRONMENT, never a silent fallback to the main switch. From memory only (the
// project's environments are in its snapshot): every evaluation surface calls this on the hot path.
import type { EvaluationContext } from '../engine'
import { AppError } from '../errors'

export const environmentMismatch = (keyEnvironment: string, requested: string): AppError =>
  new AppError(403, 'ENVIRONMENT_MISMATCH', `This key is bound to environment "${keyEnvironment}"; the request names "${requested}"`, {
    key_environment: keyEnvironment,
    requested,
  })

export const unknownEnvironment = (requested: string, known: readonly string[]): AppError =>
  new AppError(400, 'UNKNOWN_ENVIRONMENT', `Unknown environment "${requested}"; the project's environments are ${known.join(', ')}`, {
    environment: requested,
    known: [...known],
  })

/** The environment to evaluate in: the key's (`keyEnvironment`, null for a key bound to none) or the one
 *  the request names (an empty name names none); throws the 403 or 400 above. */
export function environmentFor(keyEnvironment: string | null, requested: string | undefined, known: readonly string[]): string | undefined {
  // An empty name names no environment (as before: the main switch, or the key's environment).
  if (requested === '') requested = undefined
  if (keyEnvironment !== null) {
    if (requested !== undefined && requested !== keyEnvironment) throw environmentMismatch(keyEnvironment, requested)
    return keyEnvironment
  }
  if (requested !== undefined && !known.includes(requested)) throw unknownEnvironment(requested, known)
  return requested
}

/** Contexts are frozen and shared between requests (evaluation-context.ts memoises them per text): the
 *  copy with a key's environment filled in is made once per context and environment, not per request. */
const bound = new WeakMap<EvaluationContext, Map<string, EvaluationContext>>()

/** `context` as evaluated with a key bound to `keyEnvironment` (null: none) in a project with `known`
 *  environments: unchanged, or with the key's environment filled in; throws as environmentFor does. */
export function contextIn(keyEnvironment: string | null, context: EvaluationContext, known: readonly string[]): EvaluationContext {
  const requested = typeof context.environment === 'string' ? context.environment : undefined
  const environment = environmentFor(keyEnvironment, requested, known)
  if (environment === requested || environment === undefined) return context
  let copies = bound.get(context)
  if (copies === undefined) bound.set(context, (copies = new Map()))
  let copy = copies.get(environment)
  if (copy === undefined) copies.set(environment, (copy = Object.freeze({ ...context, environment })))
  return copy
}

/** An environment key's events are of its environment (environments.md §2): an item naming none gets it, an
 *  item naming another is refused (403 ENVIRONMENT_MISMATCH, nothing stored). */
export function eventsInKeyEnvironment<T extends { context: unknown }>(items: T[], keyEnvironment: string | null): T[] {
  if (keyEnvironment === null) return items
  return items.map((item) => {
    const context = item.context as Record<string, unknown> | null
    if (context === null || typeof context !== 'object' || Array.isArray(context)) return item // the service words the 400
    const requested = context.environment
    if (requested === undefined || requested === '') return { ...item, context: { ...context, environment: keyEnvironment } } as T
    if (requested !== keyEnvironment) throw environmentMismatch(keyEnvironment, String(requested))
    return item
  })
}
