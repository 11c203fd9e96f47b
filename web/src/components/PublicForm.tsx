// The pieces of the pages reached without signing in (sign-in, first-run setup, an invitation, a password
// reset): the branded card they sit in, and a submit that says when it is working.
import { useState, type FormEvent, type ReactNode } from 'react'
import { ErrorMessage } from './ErrorMessage'

export function PublicCard({ title, intro, children }: { title: string; intro?: ReactNode; children: ReactNode }) {
  return (
    <main className="center-page">
      <div className="card signin">
        <div className="brand brand-large">
          <span className="brand-mark" aria-hidden="true">
            ⚑
          </span>
          <span className="brand-name">Flagship</span>
        </div>
        <h1>{title}</h1>
        {intro && <p className="muted">{intro}</p>}
        {children}
      </div>
    </main>
  )
}

/** Submits once at a time and keeps the error to show. `action` does the whole of it (request, then what
 *  follows): these pages have no query cache to invalidate, only a place to go next. */
export function useSubmit(action: () => Promise<unknown>) {
  const [error, setError] = useState<unknown>(null)
  const [pending, setPending] = useState(false)
  const submit = async (e: FormEvent) => {
    e.preventDefault()
    setPending(true)
    setError(null)
    try {
      await action()
    } catch (err) {
      setError(err)
    } finally {
      setPending(false)
    }
  }
  return { submit, error, pending }
}

/** The form's end: its error, then the full-width submit button. */
export function SubmitRow({
  error,
  errorTitle,
  pending,
  label,
  pendingLabel,
}: {
  error: unknown
  errorTitle: string
  pending: boolean
  label: string
  pendingLabel: string
}) {
  return (
    <>
      <ErrorMessage error={error} title={errorTitle} />
      <button type="submit" className="btn btn-primary btn-block" disabled={pending}>
        {pending ? pendingLabel : label}
      </button>
    </>
  )
}
