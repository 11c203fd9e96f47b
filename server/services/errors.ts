// The one error type services throw; the HTTP layer turns it into `{ error, code, details? }`.

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message)
  }
}

export const validationError = (issues: { path: string; message: string }[]) =>
  new AppError(400, 'VALIDATION_ERROR', `Invalid request: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`, { issues })

export const notFound = (code: string, what: string) => new AppError(404, code, `${what} not found`)

export const versionConflict = (currentVersion: number) =>
  new AppError(409, 'CONFLICT', 'Version conflict', { current_version: currentVersion })
