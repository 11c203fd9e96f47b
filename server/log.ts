// Structured one-line JSON logs on stdout. Callers never pass secrets (token plaintext, webhook secrets).
export type Log = (msg: string, fields?: Record<string, unknown>, level?: 'info' | 'warn' | 'error') => void

export const log: Log = (msg, fields = {}, level = 'info') => {
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })
  if (level === 'info') console.log(line)
  else console.error(line)
}
