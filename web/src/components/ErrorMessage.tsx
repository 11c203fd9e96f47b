// Shows an API (or any) error in words: the message, the code, and each invalid field's path.
import { ApiError } from '../api'

export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message
  if (error instanceof Error) return error.message
  return String(error)
}

export function ErrorMessage({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null
  const api = error instanceof ApiError ? error : null
  const details = api?.details
  const extra = details && !api?.issues.length
    ? Object.entries(details).filter(([k]) => k !== 'issues')
    : []
  return (
    <div className="alert alert-error" role="alert">
      <strong>{title ?? 'Something went wrong'}:</strong> {describeError(error)}
      {api && api.status > 0 && <span className="muted small"> ({api.code}, HTTP {api.status})</span>}
      {api && api.issues.length > 0 && (
        <ul className="issues">
          {api.issues.map((i, n) => (
            <li key={n}>
              <code>{i.path || '(body)'}</code>: {i.message}
            </li>
          ))}
        </ul>
      )}
      {extra.length > 0 && (
        <ul className="issues">
          {extra.map(([k, v]) => (
            <li key={k}>
              {k.replace(/_/g, ' ')}: <code>{typeof v === 'string' ? v : JSON.stringify(v)}</code>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
