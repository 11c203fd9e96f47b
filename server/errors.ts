// The one error type services throw; the HTTP layer turns it into `{ error, code, details? }`.
import { placeOf } from './engine/issue-labels'

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    /** response headers the refusal needs (Retry-After of a throttled sign-in) */
    readonly headers?: Record<string, string>,
  ) {
    super(message)
  }
}

/** A message that already says where (labelIssue's "Rule 1, condition 2: …") is not prefixed with its path. */
const sayWhere = (i: { path: string; message: string }) =>
  !i.path || placeOf(i.path)?.place === i.message.split(':')[0] ? i.message : `${i.path}: ${i.message}`

/** The kinds of refusal, and the one place each becomes an HTTP status: services name the kind (the
 *  constructors below), never the number. */
export const STATUS = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  conflict: 409,
  gone: 410,
  rateLimited: 429,
  unavailable: 503,
} as const
export type ErrorKind = keyof typeof STATUS

type Details = Record<string, unknown>

export const validationError = (issues: { path: string; message: string }[]) =>
  new AppError(STATUS.invalid, 'VALIDATION_ERROR', `Invalid request: ${issues.map(sayWhere).join('; ')}`, { issues })

/** A request refused as malformed or unacceptable, under a code of its own (CONFIRMATION_REQUIRED, …). */
export const invalid = (code: string, message: string, details?: Details) => new AppError(STATUS.invalid, code, message, details)

export const unauthorized = (code: string, message: string, details?: Details) => new AppError(STATUS.unauthorized, code, message, details)

/** The caller may not do this (FORBIDDEN, ENVIRONMENT_FORBIDDEN, SELF_APPROVAL, …). */
export const forbidden = (code: string, message: string, details?: Details) => new AppError(STATUS.forbidden, code, message, details)

export const notFound = (code: string, what: string) => new AppError(STATUS.notFound, code, `${what} not found`)

/** Not found, said otherwise than "<what> not found" (several keys at once, with details). */
export const notFoundWith = (code: string, message: string, details?: Details) => new AppError(STATUS.notFound, code, message, details)

/** The request clashes with the current state (CONFLICT, PLAN_OUTDATED, NOT_APPROVED, …). */
export const conflict = (code: string, message: string, details?: Details) => new AppError(STATUS.conflict, code, message, details)

export const versionConflict = (currentVersion: number) => conflict('CONFLICT', 'Version conflict', { current_version: currentVersion })

/** Something else still needs what would be deleted or changed (IN_USE, METRIC_IN_USE). */
export const inUse = (message: string, details?: Details, code = 'IN_USE') => conflict(code, message, details)

/** A resource of that name or key exists already. */
export const alreadyExists = (message: string, details?: Details) => conflict('ALREADY_EXISTS', message, details)

/** A bounded collection is full (a project's tokens, webhooks, schedules, …). */
export const limitReached = (message: string, details?: Details) => conflict('LIMIT_REACHED', message, details)

/** The resource's state does not allow it (an experiment that is not a draft, a change request that is closed). */
export const invalidState = (message: string, details?: Details) => conflict('INVALID_STATE', message, details)

/** What the request refers to was used, withdrawn or has expired. */
export const gone = (code: string, message: string) => new AppError(STATUS.gone, code, message)

/** A budget the caller controls is spent: retry after `retryAfter` seconds (details and the Retry-After header). */
export const rateLimited = (code: string, message: string, retryAfter: number) =>
  new AppError(STATUS.rateLimited, code, message, { retry_after: retryAfter }, { 'Retry-After': String(retryAfter) })
