// The pages reached without signing in besides sign-in itself: the first-run setup (the setup code from
// the service's log makes the first owner), accepting an invitation (/invite/<token>: a password, or
// single sign-on with the invitation's email), and a password-reset link from an admin (/reset/<token>).
import { Fragment, useState, type ChangeEvent } from 'react'
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query'
import { navigate } from '../../router'
import { teamsApi, teamsKeys, type InvitationPreview } from '../../teams-api'
import { dateTime } from '../../format'
import { ApiError } from '../../api'
import { Field } from '../../components/Field'
import { PublicCard, SubmitRow, useSubmit } from '../../components/PublicForm'
import { ssoStartUrl } from '../SignIn'

/** Signed in by the form just sent (its session cookie): nothing cached from before belongs to this person. */
function signedIn(qc: QueryClient) {
  qc.clear()
  navigate('/', { replace: true, force: true })
}

/** Nothing left to do here: what happened, and the way to sign-in. */
function SignInNext({ title, intro }: { title: string; intro: string }) {
  return (
    <PublicCard title={title} intro={intro}>
      <a className="btn btn-primary btn-block" href="/signin">
        Go to sign-in
      </a>
    </PublicCard>
  )
}

export function Setup() {
  const qc = useQueryClient()
  const [f, setF] = useState({ setup_code: '', name: '', email: '', password: '' })
  const set = (k: keyof typeof f) => (e: ChangeEvent<HTMLInputElement>) => setF({ ...f, [k]: e.target.value })
  const methods = useQuery({ queryKey: teamsKeys.methods, queryFn: teamsApi.methods, retry: false })
  const { submit, error, pending } = useSubmit(async () => {
    await teamsApi.setup({ ...f, setup_code: f.setup_code.trim(), email: f.email.trim() })
    signedIn(qc)
  })
  if (methods.data && !methods.data.setup_needed) {
    return <SignInNext title="Already set up" intro="This Flagship has its first owner already." />
  }
  return (
    <PublicCard
      title="Set up Flagship"
      intro={
        'Create the first owner account. The setup code is printed in the service’s log on its first start ' +
        '(or is the SETUP_CODE it was given).'
      }
    >
      <form className="form" onSubmit={submit} aria-label="First-run setup" noValidate>
        <Field
          id="setup-code"
          label="Setup code"
          value={f.setup_code}
          onChange={set('setup_code')}
          autoComplete="off"
          className="mono"
          autoFocus
        />
        <Field id="setup-name" label="Your name" value={f.name} onChange={set('name')} autoComplete="name" />
        <Field id="setup-email" label="Email" type="email" value={f.email} onChange={set('email')} autoComplete="username" />
        <Field
          id="setup-password"
          label="Password"
          type="password"
          value={f.password}
          onChange={set('password')}
          autoComplete="new-password"
          hint="At least 12 characters, not your email."
        />
        <SubmitRow error={error} errorTitle="Setup failed" pending={pending} label="Create owner account" pendingLabel="Creating…" />
      </form>
    </PublicCard>
  )
}

export function AcceptInvitation({ token }: { token: string }) {
  const qc = useQueryClient()
  const [name, setName] = useState('')
  const [password, setPassword] = useState('')
  const methods = useQuery({ queryKey: teamsKeys.methods, queryFn: teamsApi.methods, retry: false })
  const { submit, error, pending } = useSubmit(async () => {
    await teamsApi.acceptInvitation({ token, name: name.trim(), password })
    signedIn(qc)
  })
  const invitation = useQuery({ queryKey: ['invitation-preview', token], queryFn: () => teamsApi.lookupInvitation(token), retry: false })
  const sso = methods.data?.oidc ?? []
  // Gone (used, withdrawn, expired or never issued): nothing to fill in. Anything else (a throttled or failed
  // lookup) keeps the form, which says what went wrong when sent.
  if (invitation.error instanceof ApiError && invitation.error.code === 'INVITATION_GONE') {
    return (
      <SignInNext
        title="Invitation not valid"
        intro="This invitation was used, withdrawn or has expired. Ask whoever invited you for a new one, or sign in if you already joined."
      />
    )
  }
  return (
    <PublicCard title="Accept your invitation" intro="Choose your name and a password to join. The invitation works once.">
      {invitation.data && <InvitationSummary invitation={invitation.data} />}
      <form className="form" onSubmit={submit} aria-label="Accept invitation" noValidate>
        <Field id="invite-name" label="Your name" value={name} onChange={(e) => setName(e.target.value)} autoComplete="name" autoFocus />
        <Field
          id="invite-password"
          label="Password"
          type="password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          autoComplete="new-password"
          hint="At least 12 characters, not your email."
        />
        <SubmitRow error={error} errorTitle="Could not accept the invitation" pending={pending} label="Join" pendingLabel="Joining…" />
      </form>
      {sso.map((p) => (
        <a key={p.id} className="btn btn-block" href={ssoStartUrl('/', token)}>
          Join with {p.name}
        </a>
      ))}
    </PublicCard>
  )
}

/** Who the invitation is for and what it grants, so the invitee knows what they are joining. */
function InvitationSummary({ invitation }: { invitation: InvitationPreview }) {
  return (
    <dl className="invitation-summary" aria-label="This invitation">
      <dt>Email</dt>
      <dd>{invitation.email}</dd>
      {invitation.projects.map((p) => (
        <Fragment key={p.id}>
          <dt>Project</dt>
          <dd>
            {p.name} <span className="muted">({p.slug})</span> as {p.role}
          </dd>
        </Fragment>
      ))}
      {invitation.instance_role !== 'member' && (
        <>
          <dt>Instance role</dt>
          <dd>{invitation.instance_role}</dd>
        </>
      )}
      <dt>Expires</dt>
      <dd>{dateTime(invitation.expires_at)}</dd>
    </dl>
  )
}

export function ResetPassword({ token }: { token: string }) {
  const [password, setPassword] = useState('')
  const [done, setDone] = useState(false)
  const { submit, error, pending } = useSubmit(async () => {
    await teamsApi.usePasswordReset({ token, password })
    setDone(true)
  })
  if (done) {
    return <SignInNext title="Password set" intro="Your new password works now; every earlier session of yours was signed out." />
  }
  return (
    <PublicCard title="Set a new password" intro="An administrator sent you this link. It works once, for 24 hours.">
      <form className="form" onSubmit={submit} aria-label="Set a new password" noValidate>
        <Field
          id="reset-password"
          label="New password"
          type="password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          autoComplete="new-password"
          autoFocus
          hint="At least 12 characters, not your email."
        />
        <SubmitRow error={error} errorTitle="Password not set" pending={pending} label="Set password" pendingLabel="Saving…" />
      </form>
    </PublicCard>
  )
}
