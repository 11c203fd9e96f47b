// Asks before a destructive action; shows the action's error in place.
import { useState, type ReactNode } from 'react'
import type { QueryKey } from '@tanstack/react-query'
import { useApiMutation } from '../mutations'
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
  /** the dismissing button's label, when "Cancel" would be ambiguous (cancelling a scheduled change) */
  cancelLabel?: string
}

export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
  pending,
  error,
  danger = true,
  extra,
  cancelLabel = 'Cancel',
}: Props) {
  return (
    <Dialog
      title={title}
      onClose={onCancel}
      footer={
        <>
          {extra}
          <button type="button" className="btn" onClick={onCancel}>
            {cancelLabel}
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

/** The state behind a ConfirmDialog: what is about to be acted on (a row, a key), and the action itself.
 *  `ask(target)` opens it; spread `dialogProps` into the dialog; `force()` re-runs with force (IN_USE). */
export function useConfirmAction<T>(
  run: (target: T, force: boolean) => Promise<unknown>,
  invalidate: readonly QueryKey[],
  onDone?: () => void,
) {
  const [target, setTarget] = useState<T | null>(null)
  const mutation = useApiMutation(
    (v: { target: T; force: boolean }) => run(v.target, v.force),
    invalidate,
    () => {
      setTarget(null)
      onDone?.()
    },
  )
  const go = (force: boolean) => target !== null && mutation.mutate({ target, force })
  return {
    target,
    ask: (t: T) => {
      mutation.reset()
      setTarget(t)
    },
    force: () => go(true),
    error: mutation.error,
    dialogProps: { onConfirm: () => go(false), onCancel: () => setTarget(null), pending: mutation.isPending, error: mutation.error },
  }
}
