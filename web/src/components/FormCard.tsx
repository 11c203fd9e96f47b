// A card holding the form that adds to the list below it (a token, a webhook): its title, then the form.
// The form's own fields stay in the page; the card only submits without reloading.
import type { FormEvent, ReactNode } from 'react'

export function FormCard({ title, onSubmit, children }: { title: string; onSubmit: () => void; children: ReactNode }) {
  const submit = (e: FormEvent) => {
    e.preventDefault()
    onSubmit()
  }
  return (
    <section className="card">
      <h2 className="card-title">{title}</h2>
      <form className="form" onSubmit={submit}>
        {children}
      </form>
    </section>
  )
}
