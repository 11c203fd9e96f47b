// The sticky bar under an edit form: unsaved state, blocking problems, server errors, Save and Discard.
import { ErrorMessage } from './ErrorMessage'

interface Props {
  dirty: boolean
  problems: string[]
  pending: boolean
  error: unknown
  onDiscard: () => void
  /** why nothing can be saved at all (e.g. the document was deleted) */
  blocked?: string
  /** a protected environment is affected: the edit is proposed as a change request */
  proposing?: boolean
}

export function SaveBar({ dirty, problems, pending, error, onDiscard, blocked, proposing }: Props) {
  return (
    <div className={`save-bar${dirty ? ' dirty' : ''}`}>
      <ErrorMessage error={error} title="Could not save" />
      {problems.length > 0 && (
        <div className="alert alert-warning" role="status">
          <strong>Fix before saving:</strong>
          <ul className="issues">
            {problems.slice(0, 5).map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      )}
      <div className="save-bar-row">
        <span className="muted" aria-live="polite">
          {pending ? 'Saving…' : (blocked ?? (dirty ? 'You have unsaved changes' : 'All changes saved'))}
        </span>
        <div className="btn-group">
          <button type="button" className="btn" onClick={onDiscard} disabled={!dirty || pending}>
            Discard changes
          </button>
          <button type="submit" className="btn btn-primary" disabled={!dirty || problems.length > 0 || pending || !!blocked}>
            {pending ? 'Saving…' : proposing ? 'Propose change' : 'Save changes'}
          </button>
        </div>
      </div>
    </div>
  )
}
