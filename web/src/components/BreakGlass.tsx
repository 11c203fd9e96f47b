// Break glass (docs/change-requests.md §1): a project admin, signed in, may apply a change that protection
// blocks without review, with a reason (10-500 characters) sent as Flagship-Bypass-Reason. The change is
// audited with the reason and announced (change_request.bypassed). Shown to project admins' sessions only;
// the server refuses everyone else anyway.
import { useState } from 'react'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useSession } from '../session'

export const REASON_MIN = 10
export const REASON_MAX = 500
// A header carries Latin-1 text only (the browser refuses anything else before sending).
const LATIN1 = /^[\u0020-\u007e\u00a0-\u00ff]*$/

export function reasonIssue(reason: string): string | null {
  const text = reason.trim()
  if (text.length < REASON_MIN || text.length > REASON_MAX)
    return `A reason of ${REASON_MIN} to ${REASON_MAX} characters is required (${text.length} now)`
  if (!LATIN1.test(text)) return 'The reason can hold letters, digits and punctuation of Western European languages only'
  return null
}

/** Whether the signed-in person may break the glass (a project admin's session). */
export function useMayBreakGlass(): boolean {
  const { person, can } = useSession()
  return !!person && can.admin
}

/** "Apply without review", asking for the reason first; `run` sends the change with it. */
export function BreakGlass({ run, onDone }: { run: (reason: string) => Promise<unknown>; onDone?: () => void }) {
  const qc = useQueryClient()
  const [asking, setAsking] = useState(false)
  const [reason, setReason] = useState('')
  const apply = useMutation({
    mutationFn: () => run(reason.trim()),
    onSuccess: async () => {
      // What it changed may be shown anywhere (lists, editors, inboxes): everything is read again.
      await qc.invalidateQueries()
      onDone?.()
    },
  })
  const issue = reasonIssue(reason)
  if (apply.isSuccess)
    return (
      <p className="alert alert-success" role="status">
        Applied without review. The audit log keeps your reason.
      </p>
    )
  if (!asking) {
    return (
      <div className="break-glass">
        <button type="button" className="btn btn-danger-outline btn-small" onClick={() => setAsking(true)}>
          Apply without review
        </button>
        <span className="muted small"> As a project admin you may skip review in an emergency; the reason is audited and announced.</span>
      </div>
    )
  }
  return (
    <div className="break-glass" role="group" aria-label="Apply without review">
      <label className="field">
        <span className="field-label">
          Reason (required, {REASON_MIN}-{REASON_MAX} characters)
        </span>
        <textarea
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          rows={2}
          maxLength={REASON_MAX}
          aria-label="Reason for applying without review"
        />
      </label>
      {reason && issue && <p className="field-error">{issue}</p>}
      <div className="btn-group">
        <button type="button" className="btn" onClick={() => setAsking(false)}>
          Back
        </button>
        <button type="button" className="btn btn-danger" disabled={!!issue || apply.isPending} onClick={() => apply.mutate()}>
          {apply.isPending ? 'Applying…' : 'Apply without review now'}
        </button>
      </div>
      {apply.error && (
        <div className="alert alert-error" role="alert">
          <strong>Could not apply without review:</strong> {apply.error.message}
        </div>
      )}
    </div>
  )
}
