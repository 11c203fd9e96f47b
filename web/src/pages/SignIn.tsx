// Sign-in: email and password (then a two-factor code when the account has one), the single sign-on
// button when the service has a provider, and an API token for automation (checked with GET /me, kept in
// sessionStorage only). On an instance without any user yet it offers the first-run setup instead.
import { useEffect, useState } from 'react'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { ApiError, api, tokenStore } from '../api'
import { Link, navigate } from '../router'
import { takeEndedReason, useToken } from '../session'
import { teamsApi, teamsKeys } from '../teams-api'
import { Field } from '../components/Field'
import { PublicCard, SubmitRow, useSubmit } from '../components/PublicForm'
import { safeReturnTo } from '../../../server/identity/oidc-return-to'

/** What the callback's `sso_error` means, in words (the server never puts its reasons in the URL). */
const SSO_ERRORS: Record<string, string> = {
  state: 'The single sign-on answer did not match a sign-in started in this browser, or it was used already or too late. Try again.',
  provider: 'The identity provider did not sign you in.',
  verification: 'The identity provider’s answer could not be verified.',
  unavailable: 'The identity provider could not be reached. Try again later.',
  domain: 'Your email address’s domain may not sign in here.',
  unverified: 'Your identity provider did not confirm your email address, so it cannot be linked to an existing account.',
  no_account: 'There is no account for you here. Ask an administrator for an invitation.',
  disabled: 'Your account is disabled.',
  invitation: 'The invitation is used up, expired, or for another email address.',
  throttled: 'Too many sign-in attempts from your address. Wait a minute and try again.',
  account: 'Your identity provider’s profile (email or name) cannot be used for an account here.',
}

export const ssoStartUrl = (returnTo: string, invitation?: string) =>
  `/api/v1/auth/oidc/start?${new URLSearchParams({ return_to: returnTo, ...(invitation && { invitation }) })}`

export function SignIn() {
  const qc = useQueryClient()
  const existing = useToken()
  const methods = useQuery({ queryKey: teamsKeys.methods, queryFn: teamsApi.methods, retry: false })
  const [ended] = useState(takeEndedReason)
  const params = new URLSearchParams(window.location.search)
  const ssoError = params.get('sso_error')
  const returnTo = params.get('return_to') ?? '/'

  useEffect(() => {
    if (existing) navigate('/', { replace: true })
  }, [existing])

  const signedIn = () => {
    qc.clear()
    navigate(safeReturnTo(returnTo), { replace: true, force: true })
  }
  const m = methods.data
  // Before users exist (or if the service predates them), the token is the way in.
  const people = !!m && !m.setup_needed

  return (
    <PublicCard title="Sign in to the console">
      {ended && (
        <div className="alert alert-info" role="status">
          {ended}
        </div>
      )}
      {ssoError && (
        <div className="alert alert-error" role="alert">
          <strong>Single sign-on failed.</strong> {SSO_ERRORS[ssoError] ?? 'Try again.'}
        </div>
      )}
      {m?.setup_needed && (
        <div className="alert alert-info" role="status">
          No one has set up this Flagship yet. <Link to="/setup">Set up the first owner account</Link> with the setup code from the
          service’s log.
        </div>
      )}
      {people && <PasswordForm onSignedIn={signedIn} />}
      {people && m.oidc.length > 0 && (
        <div className="sso-buttons">
          {m.oidc.map((p) => (
            <a key={p.id} className="btn btn-block" href={ssoStartUrl(returnTo)}>
              Continue with {p.name}
            </a>
          ))}
        </div>
      )}
      {methods.isLoading ? null : people ? (
        <details className="token-signin">
          <summary>Use an API token</summary>
          <TokenForm onSignedIn={signedIn} submitLabel="Sign in with token" />
        </details>
      ) : (
        <TokenForm onSignedIn={signedIn} submitLabel="Sign in" />
      )}
    </PublicCard>
  )
}

function PasswordForm({ onSignedIn }: { onSignedIn: () => void }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [totp, setTotp] = useState('')
  const [needTotp, setNeedTotp] = useState(false)
  const { submit, error, pending } = useSubmit(async () => {
    try {
      await teamsApi.login({ email: email.trim(), password, ...(needTotp && { totp: totp.trim() }) })
    } catch (err) {
      // the account has two factors: ask for the code (not an error), then send both
      if (err instanceof ApiError && err.code === 'TOTP_REQUIRED' && !needTotp) return setNeedTotp(true)
      throw err
    }
    onSignedIn()
  })

  return (
    <form className="form" onSubmit={submit} aria-label="Sign in with your account" noValidate>
      <Field
        id="signin-email"
        label="Email"
        type="email"
        autoComplete="username"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        autoFocus
        required
      />
      <Field
        id="signin-password"
        label="Password"
        type="password"
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        required
      />
      {needTotp && (
        <Field
          id="signin-totp"
          label="Two-factor code"
          inputMode="numeric"
          autoComplete="one-time-code"
          value={totp}
          onChange={(e) => setTotp(e.target.value)}
          autoFocus
          className="mono"
          hint="The 6-digit code from your authenticator app, or one of your recovery codes."
        />
      )}
      <SubmitRow error={error} errorTitle="Sign-in failed" pending={pending} label="Sign in" pendingLabel="Signing in…" />
    </form>
  )
}

function TokenForm({ onSignedIn, submitLabel }: { onSignedIn: () => void; submitLabel: string }) {
  const [token, setToken] = useState('')
  const [show, setShow] = useState(false)
  const { submit, error, pending } = useSubmit(async () => {
    const t = token.trim()
    if (!t) throw new Error('Paste an access token first.')
    await api.me(t)
    tokenStore.set(t)
    onSignedIn()
  })

  return (
    <form className="form" onSubmit={submit} aria-label="API token sign-in" noValidate>
      <p className="muted">Paste an access token. It stays in this browser tab only and is forgotten when you close it.</p>
      <div className="field">
        <label htmlFor="signin-token">Access token</label>
        <div className="input-row">
          <input
            id="signin-token"
            type={show ? 'text' : 'password'}
            autoComplete="off"
            spellCheck={false}
            placeholder="ff_xxxx_…"
            value={token}
            onChange={(e) => setToken(e.target.value)}
            className="mono"
          />
          <button type="button" className="btn" onClick={() => setShow(!show)} aria-pressed={show}>
            {show ? 'Hide' : 'Show'}
          </button>
        </div>
      </div>
      <SubmitRow error={error} errorTitle="Sign-in failed" pending={pending} label={submitLabel} pendingLabel="Checking…" />
      <p className="muted small">
        The first admin token is printed once when the service starts on an empty database, or create one on the server with{' '}
        <code>npm run cli -- tokens create --project default --name admin --permissions '*'</code>.
      </p>
    </form>
  )
}
