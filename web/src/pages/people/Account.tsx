// The signed-in person's own account: password, two-factor sign-in (with a QR code for the authenticator
// app), where they are signed in (sessions, each revocable), and personal access tokens.
import { useEffect, useState, type FormEvent } from 'react'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import QRCode from 'qrcode'
import { keys, PERMISSIONS, type Permission } from '../../api'
import { useSession } from '../../session'
import { dateTime, relativeTime } from '../../format'
import { useApiMutation } from '../../mutations'
import { teamsApi, teamsKeys } from '../../teams-api'
import { CopyButton, CopyField } from '../../components/CopyButton'
import { DataTable } from '../../components/DataTable'
import { EnvironmentKeyFieldset, useEnvironmentKeyChoice } from '../../components/EnvironmentKeyChoice'
import { ErrorMessage } from '../../components/ErrorMessage'
import { Field, SelectField } from '../../components/Field'
import { ListStates } from '../../components/ListStates'
import { Loading, PageHeader } from '../../components/State'

export function Account() {
  const { person } = useSession()
  if (!person) return <p className="muted">The account page is for people signed in with a password or single sign-on.</p>
  return (
    <>
      <PageHeader title="Account" subtitle={`${person.user.name} · ${person.user.email} · instance role ${person.user.instance_role}`} />
      {person.user.has_password && <PasswordCard />}
      <TwoFactorCard enabled={person.user.has_totp} />
      <SessionsCard />
      <PersonalTokensCard />
    </>
  )
}

function PasswordCard() {
  const qc = useQueryClient()
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const change = useApiMutation(
    () => teamsApi.changePassword({ current_password: current, new_password: next }),
    [teamsKeys.sessions],
    () => {
      setCurrent('')
      setNext('')
      void qc.invalidateQueries({ queryKey: keys.me })
    },
  )
  const submit = (e: FormEvent) => {
    e.preventDefault()
    change.mutate(undefined)
  }
  return (
    <section className="card" aria-labelledby="password-title">
      <h2 className="card-title" id="password-title">
        Password
      </h2>
      <form className="form" onSubmit={submit} aria-label="Change password" noValidate>
        <Field
          id="pw-current"
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
        />
        <Field
          id="pw-new"
          label="New password"
          type="password"
          autoComplete="new-password"
          value={next}
          onChange={(e) => setNext(e.target.value)}
          hint="At least 12 characters, not your email. Your other sessions end when it changes."
        />
        <ErrorMessage error={change.error} title="Password not changed" />
        {change.isSuccess && (
          <p className="alert alert-success" role="status">
            Password changed. Your other sessions were signed out.
          </p>
        )}
        <button type="submit" className="btn btn-primary" disabled={change.isPending}>
          Change password
        </button>
      </form>
    </section>
  )
}

function TwoFactorCard({ enabled }: { enabled: boolean }) {
  const qc = useQueryClient()
  const [pending, setPending] = useState<{ secret: string; otpauth_url: string } | null>(null)
  const [qr, setQr] = useState<string | null>(null)
  const [code, setCode] = useState('')
  const [recovery, setRecovery] = useState<string[] | null>(null)
  const refreshMe = () => qc.invalidateQueries({ queryKey: keys.me })
  const start = useApiMutation(
    () => teamsApi.startTotp(),
    [],
    (p) => setPending(p),
  )
  const confirm = useApiMutation(
    () => teamsApi.confirmTotp(code.trim()),
    [],
    (r) => {
      setRecovery(r.recovery_codes)
      setPending(null)
      setCode('')
      void refreshMe()
    },
  )
  const disable = useApiMutation(
    () => teamsApi.disableTotp(code.trim()),
    [],
    () => {
      setCode('')
      void refreshMe()
    },
  )
  useEffect(() => {
    if (!pending) return setQr(null)
    let live = true
    void QRCode.toDataURL(pending.otpauth_url, { margin: 1, width: 200 }).then((url) => live && setQr(url))
    return () => {
      live = false
    }
  }, [pending])

  return (
    <section className="card" aria-labelledby="totp-title">
      <h2 className="card-title" id="totp-title">
        Two-factor sign-in
      </h2>
      {recovery && (
        <div className="callout" role="status">
          <p>
            <strong>Two-factor sign-in is on. Save these recovery codes now — they are shown once.</strong> Each works once when you have no
            authenticator at hand.
          </p>
          <ul className="recovery-codes mono" aria-label="Recovery codes">
            {recovery.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
          <CopyButton text={recovery.join('\n')} label="Copy codes" />
        </div>
      )}
      {enabled && !pending ? (
        <form className="form" onSubmit={(e) => (e.preventDefault(), disable.mutate(undefined))} aria-label="Turn off two-factor sign-in">
          <p>
            <span className="badge badge-ok">On</span> Sign-in asks for a code from your authenticator app.
          </p>
          <Field
            id="totp-off-code"
            label="Current code to turn it off"
            inputMode="numeric"
            autoComplete="one-time-code"
            value={code}
            onChange={(e) => setCode(e.target.value)}
            className="mono"
          />
          <ErrorMessage error={disable.error} title="Two-factor sign-in stays on" />
          <button type="submit" className="btn btn-danger-outline" disabled={disable.isPending}>
            Turn off two-factor sign-in
          </button>
        </form>
      ) : pending ? (
        <form className="form" onSubmit={(e) => (e.preventDefault(), confirm.mutate(undefined))} aria-label="Confirm two-factor sign-in">
          <p>Scan this code with your authenticator app, then enter the code it shows.</p>
          {qr ? (
            <img src={qr} width={200} height={200} alt="QR code for your authenticator app" />
          ) : (
            <Loading label="Drawing the QR code…" />
          )}
          <p className="small">
            Or enter this key by hand: <code aria-label="Two-factor secret">{pending.secret}</code>
          </p>
          <Field
            id="totp-code"
            label="Code from the app"
            inputMode="numeric"
            autoComplete="one-time-code"
            value={code}
            onChange={(e) => setCode(e.target.value)}
            className="mono"
          />
          <ErrorMessage error={confirm.error} title="Code not accepted" />
          <div className="btn-group">
            <button type="submit" className="btn btn-primary" disabled={confirm.isPending}>
              Turn on
            </button>
            <button type="button" className="btn" onClick={() => setPending(null)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <>
          <p className="muted">Off: sign-in needs only your password.</p>
          <ErrorMessage error={start.error} title="Could not start" />
          <button type="button" className="btn" onClick={() => start.mutate(undefined)} disabled={start.isPending}>
            Set up two-factor sign-in
          </button>
        </>
      )}
    </section>
  )
}

function SessionsCard() {
  const sessions = useQuery({ queryKey: teamsKeys.sessions, queryFn: teamsApi.sessions })
  const revoke = useApiMutation((id: string) => teamsApi.revokeSession(id), [teamsKeys.sessions])
  return (
    <section className="card" aria-labelledby="sessions-title">
      <h2 className="card-title" id="sessions-title">
        Where you are signed in
      </h2>
      <ListStates query={sessions} what="sessions">
        {(rows) => (
          <DataTable
            caption="Your sessions"
            columns={['Browser', 'Address', 'Signed in', 'Last active', { label: 'Actions', hidden: true }]}
          >
            {rows.map((s) => (
              <tr key={s.id}>
                <td data-label="Browser">
                  {s.user_agent ?? 'unknown'} {s.current && <span className="badge">this browser</span>}
                </td>
                <td data-label="Address">{s.ip ?? '—'}</td>
                <td data-label="Signed in">{dateTime(s.created_at)}</td>
                <td data-label="Last active">{relativeTime(s.last_seen_at)}</td>
                <td>
                  {!s.current && (
                    <button
                      type="button"
                      className="btn btn-small btn-danger-outline"
                      onClick={() => revoke.mutate(s.id)}
                      disabled={revoke.isPending}
                    >
                      Sign out
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </ListStates>
      <ErrorMessage error={revoke.error} title="Could not end the session" />
    </section>
  )
}

function PersonalTokensCard() {
  const { person } = useSession()
  const tokens = useQuery({ queryKey: teamsKeys.myTokens, queryFn: teamsApi.myTokens })
  const [name, setName] = useState('')
  const [project, setProject] = useState(person?.project?.slug ?? person?.projects[0]?.slug ?? '')
  const [permissions, setPermissions] = useState<Permission[]>(['read:flags'])
  const [days, setDays] = useState('90')
  const [created, setCreated] = useState<string | null>(null)
  // The chosen project's environments: an environment key is bound to one of them.
  const chosen = useQuery({
    queryKey: teamsKeys.projectBySlug(project),
    queryFn: () => teamsApi.projectBySlug(project),
    enabled: !!project,
  })
  const environmentKey = useEnvironmentKeyChoice(chosen.data?.environments ?? [], permissions)
  const create = useApiMutation(
    () =>
      teamsApi.createMyToken({
        name: name.trim(),
        project,
        permissions,
        ...environmentKey.body,
        expires_at: new Date(Date.now() + Number(days) * 86_400_000).toISOString(),
      }),
    [teamsKeys.myTokens],
    (r) => {
      setCreated(r.token)
      setName('')
    },
  )
  const remove = useApiMutation((id: string) => teamsApi.deleteMyToken(id), [teamsKeys.myTokens])
  const toggle = (p: Permission) => setPermissions(permissions.includes(p) ? permissions.filter((x) => x !== p) : [...permissions, p])

  return (
    <section className="card" aria-labelledby="my-tokens-title">
      <h2 className="card-title" id="my-tokens-title">
        Personal access tokens
      </h2>
      <p className="hint">A personal token can do at most what you can do in its project, and stops working when you lose that right.</p>
      {created && (
        <div className="callout" role="status">
          <p>
            <strong>Copy your new token now — it will not be shown again.</strong>
          </p>
          <CopyField value={created} label="New personal token" copyLabel="Copy token" />
        </div>
      )}
      <form className="form" onSubmit={(e) => (e.preventDefault(), create.mutate(undefined))} aria-label="Create a personal token">
        <div className="row-fields">
          <Field id="pat-name" label="Name" value={name} onChange={(e) => setName(e.target.value)} />
          <SelectField id="pat-project" label="Project" value={project} onChange={(e) => setProject(e.target.value)}>
            {person?.projects.map((p) => (
              <option key={p.id} value={p.slug}>
                {p.name}
              </option>
            ))}
          </SelectField>
          <Field
            id="pat-days"
            label="Expires in (days)"
            type="number"
            min={1}
            max={365}
            value={days}
            onChange={(e) => setDays(e.target.value)}
          />
        </div>
        <fieldset className="field">
          <legend>Permissions</legend>
          {/* Client keys are for pages and apps: a project admin makes them on the Tokens page. */}
          {PERMISSIONS.filter((p) => p !== 'client').map((p) => (
            <label key={p} className="checkbox">
              <input type="checkbox" checked={permissions.includes(p)} onChange={() => toggle(p)} /> <code>{p}</code>
            </label>
          ))}
        </fieldset>
        <EnvironmentKeyFieldset choice={environmentKey} name="pat-environment" />
        <ErrorMessage error={create.error} title="Token not created" />
        <button type="submit" className="btn btn-primary" disabled={create.isPending || !name.trim() || !project}>
          Create personal token
        </button>
      </form>
      {tokens.isError ? (
        <ErrorMessage error={tokens.error} title="Could not load your tokens" />
      ) : tokens.data?.length ? (
        <DataTable
          caption="Your personal tokens"
          columns={['Name', 'Prefix', 'Project', 'Permissions', 'Environment', 'Expires', { label: 'Actions', hidden: true }]}
        >
          {tokens.data.map((t) => (
            <tr key={t.id ?? t.hash ?? t.token_prefix}>
              <td data-label="Name">{t.name}</td>
              <td data-label="Prefix">
                <code>{t.token_prefix}</code>
              </td>
              <td data-label="Project">{t.project ?? t.project_id}</td>
              <td data-label="Permissions">{t.permissions.join(', ')}</td>
              <td data-label="Environment">{t.environment ?? <span className="muted">any</span>}</td>
              <td data-label="Expires">{t.expires_at ? dateTime(t.expires_at) : 'never'}</td>
              <td>
                <button
                  type="button"
                  className="btn btn-small btn-danger-outline"
                  onClick={() => remove.mutate(t.id ?? t.hash ?? '')}
                  disabled={remove.isPending}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <ErrorMessage error={remove.error} title="Could not revoke" />
    </section>
  )
}
