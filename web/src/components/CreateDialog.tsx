// The dialog that creates a list's resource: "New …", its fields, and Create/Cancel with the request's error.
// A created resource opens its own page (the caller's mutation navigates), so the dialog never closes itself.
import type { FormEvent, InputHTMLAttributes, ReactNode } from 'react'
import { Dialog } from './Dialog'
import { FormActions } from './FormActions'

interface Props {
  /** what is created, e.g. "flag" */
  noun: string
  mutation: { error: unknown; isPending: boolean }
  /** called on submit, unless the form is `disabled` */
  onSubmit: () => void
  /** e.g. while the key is empty */
  disabled: boolean
  onClose: () => void
  children: ReactNode
}

export function CreateDialog({ noun, mutation, onSubmit, disabled, onClose, children }: Props) {
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (!disabled) onSubmit()
  }
  return (
    <Dialog title={`New ${noun}`} onClose={onClose}>
      <form onSubmit={submit} className="form">
        {children}
        <FormActions
          mutation={mutation}
          errorTitle={`Could not create the ${noun}`}
          label={`Create ${noun}`}
          pendingLabel="Creating…"
          disabled={disabled}
          onCancel={onClose}
        />
      </form>
    </Dialog>
  )
}

/** The new resource's key: required, autofocused, monospaced; the hint says what is allowed or what comes next. */
export function KeyField({
  value,
  onChange,
  hint,
  ...input
}: { value: string; onChange: (key: string) => void; hint?: string } & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'>) {
  return (
    <label className="field">
      <span className="field-label">Key</span>
      <input value={value} onChange={(e) => onChange(e.target.value)} required autoFocus className="mono" {...input} />
      {hint && <span className="hint">{hint}</span>}
    </label>
  )
}
