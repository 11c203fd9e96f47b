// Structured one-line JSON logs on stdout. Callers never pass secrets (token plaintext, webhook secrets).
export type Log = (msg: string, fields?: Record<string, unknown>, level?: 'info' | 'warn' | 'error') => void

export const log: Log = (msg, fields = {}, level = 'info') => {
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })
  if (level === 'info') console.log(line)
  else console.error(line)
}

/** An error as it may be logged. Drizzle's query errors carry the SQL and its parameters, which can hold a
 *  webhook secret or a token hash, so for those only the database's own error (code, message) is kept. */
export function errorForLog(e: unknown): Record<string, unknown> {
  if (!(e instanceof Error)) return { error: String(e) }
  if ('params' in e || 'query' in e) {
    const cause = e.cause as { code?: unknown; message?: unknown } | undefined
    return { error: 'database query failed', code: cause?.code, cause: typeof cause?.message === 'string' ? cause.message : undefined }
  }
  return { error: e.message, stack: e.stack }
}
