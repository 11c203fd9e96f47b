// Shows an API (or any) error in words: the message, the code, and each invalid field said the way the
// editor shows it ("Rule 1, condition 2: value …", not `targeting.rules[0].conditions[1].value`).
import { ApiError } from '../api'
import { placeOf } from '../../../server/engine/issue-labels'
import { BreakGlass, useMayBreakGlass } from './BreakGlass'

/** One issue as a sentence: the server already names rules and conditions in its messages; anything else
 *  (a schema error at a raw path) is named here the same way. */
export function issueText(issue: { path: string; message: string }): string {
  const where = placeOf(issue.path)
  if (where && issue.message.startsWith(where.place)) return issue.message
  if (where) return `${where.place}: ${where.field ? `${where.field} ` : ''}${issue.message}`
  const field = issue.path.replace(/_/g, ' ').replace(/\./g, ' ')
  return field ? `${field[0]!.toUpperCase()}${field.slice(1)}: ${issue.message}` : issue.message
}

export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message
  if (error instanceof Error) return error.message
  return String(error)
}

export function ErrorMessage({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null
  const api = error instanceof ApiError ? error : null
  const details = api?.details
  const extra =
    details && !api?.issues.length
      ? // A detail the message already says (a refused webhook URL's reason) is not said twice.
        Object.entries(details).filter(([k, v]) => k !== 'issues' && !(typeof v === 'string' && describeError(error).includes(v)))
      : []
  return (
    <div className="alert alert-error" role="alert">
      <strong>{title ?? 'Something went wrong'}:</strong> {describeError(error)}
      {api && api.status > 0 && (
        <span className="muted small">
          {' '}
          ({api.code}, HTTP {api.status})
        </span>
      )}
      {api && api.issues.length > 0 && (
        <ul className="issues">
          {api.issues.map((i, n) => (
            <li key={n}>{issueText(i)}</li>
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
      {api?.bypass && <BypassOffer run={api.bypass} />}
    </div>
  )
}

/** A change blocked by protection: a project admin's session is offered to apply it without review. */
function BypassOffer({ run }: { run: (reason: string) => Promise<unknown> }) {
  return useMayBreakGlass() ? <BreakGlass run={run} /> : null
}
