// The end of a create/save form: the request's error, an optional Cancel, and the submit button that says
// when it is working.
import type { ReactNode } from 'react'
import { ErrorMessage } from './ErrorMessage'

interface Props {
  /** the mutation the form submits */
  mutation: { error: unknown; isPending: boolean }
  errorTitle: string
  label: string
  pendingLabel: string
  /** besides while pending */
  disabled?: boolean
  onCancel?: () => void
  /** shown before the buttons (e.g. a "Saved." status) */
  children?: ReactNode
}

export function FormActions({ mutation, errorTitle, label, pendingLabel, disabled, onCancel, children }: Props) {
  return (
    <>
      <ErrorMessage error={mutation.error} title={errorTitle} />
      <div className="form-actions">
        {children}
        {onCancel && (
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
        )}
        <button type="submit" className="btn btn-primary" disabled={disabled || mutation.isPending}>
          {mutation.isPending ? pendingLabel : label}
        </button>
      </div>
    </>
  )
}
