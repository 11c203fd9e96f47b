// The pages reached without signing in besides sign-in itself: the first-run setup (the setup code from
// the service's log makes the first owner), accepting an invitation (/invite/<token>: a password, or
// single sign-on with the invitation's email), and a password-reset link from an admin (/reset/<token>).
import { useState, type ChangeEvent, type FormEvent, type InputHTMLAttributes, type ReactNode } from 'react'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { navigate } from '../../router'
import { teamsApi, teamsKeys } from '../../teams-api'
import { ErrorMessage } from '../../components/ErrorMessage'
import { ssoStartUrl } from '../SignIn'

function Card({ title, intro, children }: { title: string; intro: ReactNode; children: ReactNode }) {
  return (
    <main className="center-page">
      <div className="card signin">
        <div className="brand brand-large">
          <span className="brand-mark" aria-hidden="true">⚑</span>
          <span className="brand-name">Flagship</span>
        </div>
        <h1>{title}</h1>
        <p className="muted">{intro}</p>
        {children}
      </div>
    </main>
  )
}

function Field({ id, label, hint, ...input }: { id: string; label: string; hint?: string } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} {...input} />
      {hint && <p className="hint">{hint}</p>}
    </div>
  )
}

/** Submits once at a time and keeps the error to show. */
function useSubmit(action: () => Promise<unknown>, done: () => void) {
  const [error, setError] = useState<unknown>(null)
  const [pending, setPending] = useState(false)
  const submit = async (e: FormEvent) => {
    e.preventDefault()
    setPending(true)
    setError(null)
    try {
      await action()
      done()
    } catch (err) {
      setError(err)
    } finally {
      setPending(false)
    }
  }
  return { submit, error, pending }
}

export function Setup() {
  const qc = useQueryClient()
  const [f, setF] = useState({ setup_code: '', name: '', email: '', password: '' })
  const set = (k: keyof typeof f) => (e: ChangeEvent<HTMLInputElement>) => setF({ ...f, [k]: e.target.value })
  const methods = useQuery({ queryKey: teamsKeys.methods, queryFn: teamsApi.methods, retry: false })
  const { submit, error, pending } = useSubmit(
    () => teamsApi.setup({ ...f, setup_code: f.setup_code.trim(), email: f.email.trim() }),
    () => {
      qc.clear()
      navigate('/', { replace: true, force: true })
    },
  )
  if (methods.data && !methods.data.setup_needed) {
    return (
      <Card title="Already set up" intro="This Flagship has its first owner already.">
        <a className="btn btn-primary btn-block" href="/signin">Go to sign-in</a>
      </Card>
    )
  }
  return (
    <Card title="Set up Flagship" intro="Create the first owner account. The setup code is printed in the service’s log on its first start (or is the SETUP_CODE it was given).">
      <form className="form" onSubmit={submit} aria-label="First-run setup" noValidate>
        <Field id="setup-code" label="Setup code" value={f.setup_code} onChange={set('setup_code')} autoComplete="off" className="mono" autoFocus />
        <Field id="setup-name" label="Your name" value={f.name} onChange={set('name')} autoComplete="name" />
        <Field id="setup-email" label="Email" type="email" value={f.email} onChange={set('email')} autoComplete="username" />
        <Field id="setup-password" label="Password" type="password" value={f.password} onChange={set('password')} autoComplete="new-password" hint="At least 12 characters, not your email." />
        <ErrorMessage error={error} title="Setup failed" />
        <button type="submit" className="btn btn-primary btn-block" disabled={pending}>
          {pending ? 'Creating…' : 'Create owner account'}
        </button>
      </form>
    </Card>
  )
}

export function AcceptInvitation({ token }: { token: string }) {
  const qc = useQueryClient()
  const [name, setName] = useState('')
  const [password, setPassword] = useState('')
  const methods = useQuery({ queryKey: teamsKeys.methods, queryFn: teamsApi.methods, retry: false })
  const { submit, error, pending } = useSubmit(
    () => teamsApi.acceptInvitation({ token, name: name.trim(), password }),
    () => {
      qc.clear()
      navigate('/', { replace: true, force: true })
    },
  )
  const sso = methods.data?.oidc ?? []
  return (
    <Card title="Accept your invitation" intro="Choose your name and a password to join. The invitation works once.">
      <form className="form" onSubmit={submit} aria-label="Accept invitation" noValidate>
        <Field id="invite-name" label="Your name" value={name} onChange={(e) => setName(e.target.value)} autoComplete="name" autoFocus />
        <Field id="invite-password" label="Password" type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" hint="At least 12 characters, not your email." />
        <ErrorMessage error={error} title="Could not accept the invitation" />
        <button type="submit" className="btn btn-primary btn-block" disabled={pending}>
          {pending ? 'Joining…' : 'Join'}
        </button>
      </form>
      {sso.map((p) => (
        <a key={p.id} className="btn btn-block" href={ssoStartUrl('/', token)}>
          Join with {p.name}
        </a>
      ))}
    </Card>
  )
}

export function ResetPassword({ token }: { token: string }) {
  const [password, setPassword] = useState('')
  const [done, setDone] = useState(false)
  const { submit, error, pending } = useSubmit(() => teamsApi.usePasswordReset({ token, password }), () => setDone(true))
  if (done) {
    return (
      <Card title="Password set" intro="Your new password works now; every earlier session of yours was signed out.">
        <a className="btn btn-primary btn-block" href="/signin">Go to sign-in</a>
      </Card>
    )
  }
  return (
    <Card title="Set a new password" intro="An administrator sent you this link. It works once, for 24 hours.">
      <form className="form" onSubmit={submit} aria-label="Set a new password" noValidate>
        <Field id="reset-password" label="New password" type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" autoFocus hint="At least 12 characters, not your email." />
        <ErrorMessage error={error} title="Password not set" />
        <button type="submit" className="btn btn-primary btn-block" disabled={pending}>
          {pending ? 'Saving…' : 'Set password'}
        </button>
      </form>
    </Card>
  )
}
