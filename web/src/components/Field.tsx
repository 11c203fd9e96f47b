// A labelled form control with its label above (the people and sign-in forms): the label names the control
// through `htmlFor`, so tests and screen readers find it by its words.
import type { InputHTMLAttributes, SelectHTMLAttributes } from 'react'

export function Field({ id, label, hint, ...input }: { id: string; label: string; hint?: string } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} {...input} />
      {hint && <p className="hint">{hint}</p>}
    </div>
  )
}

export function SelectField({ id, label, children, ...select }: { id: string; label: string } & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} {...select}>
        {children}
      </select>
    </div>
  )
}
