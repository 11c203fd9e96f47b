// Asks before a destructive action; shows the action's error in place.
import type { ReactNode } from 'react'
import { Dialog } from './Dialog'
import { ErrorMessage } from './ErrorMessage'

interface Props {
  title: string
  children: ReactNode
  confirmLabel: string
  onConfirm: () => void
  onCancel: () => void
  pending?: boolean
  error?: unknown
  danger?: boolean
  /** extra actions (for example "Force remove") shown before Cancel */
  extra?: ReactNode
}

export function ConfirmDialog({ title, children, confirmLabel, onConfirm, onCancel, pending, error, danger = true, extra }: Props) {
  return (
    <Dialog
      title={title}
      onClose={onCancel}
      footer={
        <>
          {extra}
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
          <button type="button" className={danger ? 'btn btn-danger' : 'btn btn-primary'} onClick={onConfirm} disabled={pending} autoFocus>
            {pending ? 'Working…' : confirmLabel}
          </button>
        </>
      }
    >
      {children}
      <ErrorMessage error={error} title="Could not complete" />
    </Dialog>
  )
}
