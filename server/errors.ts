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
const sayWhere = (i: { path: string; message: string }) => (!i.path || placeOf(i.path)?.place === i.message.split(':')[0] ? i.message : `${i.path}: ${i.message}`)

export const validationError = (issues: { path: string; message: string }[]) =>
  new AppError(400, 'VALIDATION_ERROR', `Invalid request: ${issues.map(sayWhere).join('; ')}`, { issues })

export const notFound = (code: string, what: string) => new AppError(404, code, `${what} not found`)

export const versionConflict = (currentVersion: number) =>
  new AppError(409, 'CONFLICT', 'Version conflict', { current_version: currentVersion })
