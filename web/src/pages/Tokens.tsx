// Access tokens: create (plaintext shown once), list by prefix, revoke by hash.
import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { api, keys, PERMISSIONS, type Permission, type Token } from '../api'
import { adminQueries } from '../queries'
import { useSession } from '../session'
import { dateTime, localInputToIso, relativeTime } from '../format'
import { useApiMutation } from '../mutations'
import { ConfirmDialog, useConfirmAction } from '../components/ConfirmDialog'
import { CopyField } from '../components/CopyButton'
import { DataTable } from '../components/DataTable'
import { EnvironmentKeyFieldset, useEnvironmentKeyChoice } from '../components/EnvironmentKeyChoice'
import { FormActions } from '../components/FormActions'
import { FormCard } from '../components/FormCard'
import { ListSection } from '../components/ListStates'
import { RelativeTime } from '../components/RelativeTime'
import { Empty, PageHeader } from '../components/State'

const PERMISSION_TEXT: Record<Permission, string> = {
  'read:flags': 'Evaluate and list flags',
  'write:flags': 'Create, change and delete flags and segments',
  'read:configs': 'Read and list configs',
  'write:configs': 'Create, change and delete configs',
  relay: 'Feed a relay: verify keys, read everything it serves, forward usage',
  '*': 'Everything, including tokens, webhooks, audit log and settings',
  client: 'Client key: evaluate flags and configs marked "Available to client keys" only (safe in a page or an app)',
}

export function Tokens() {
  const { me, project } = useSession()
  const ownPrefix = (me.data as { token_prefix?: string } | undefined)?.token_prefix
  const tokens = useQuery(adminQueries.tokens())
  const [created, setCreated] = useState<{ token: string; name: string } | null>(null)
  const revoke = useConfirmAction((t: Token) => api.deleteToken(t.hash), [keys.tokens])
  const revoking = revoke.target

  return (
    <>
      <PageHeader
        title="Access tokens"
        subtitle="Tokens let applications and people call the API. Only their prefixes are stored in readable form."
      />
      {created && (
        <section className="card callout" aria-labelledby="new-token-title">
          <h2 className="card-title" id="new-token-title">
            New token “{created.name}”
          </h2>
          <p>
            <strong>Copy it now — it will not be shown again.</strong>
          </p>
          <CopyField value={created.token} label="New token" copyLabel="Copy token" selectOnFocus />
          <button type="button" className="btn btn-small" onClick={() => setCreated(null)}>
            Done, I saved it
          </button>
        </section>
      )}
      <CreateToken
        projectId={project.data?.id ?? (me.data as { project_id?: string } | undefined)?.project_id ?? ''}
        environments={project.data?.environments ?? []}
        onCreated={setCreated}
      />
      <ListSection query={tokens} noun={{ one: 'token', many: 'tokens' }} empty={<Empty title="No tokens" />}>
        {(rows) => (
          <DataTable
            caption="Tokens"
            columns={['Name', 'Permissions', 'Environment', 'Created', 'Expires', 'Last used', { label: 'Actions', hidden: true }]}
          >
            {rows.map((t) => {
              const expired = !!t.expires_at && Date.parse(t.expires_at) <= Date.now()
              const mine = t.token_prefix === ownPrefix
              return (
                <tr key={t.hash}>
                  <td data-label="Name">
                    <strong>{t.name}</strong> {mine && <span className="badge badge-accent">this session</span>}
                    <div className="muted small mono">{t.token_prefix}…</div>
                  </td>
                  <td data-label="Permissions">
                    <ul className="chips">
                      {t.permissions.map((p) => (
                        <li key={p} className="chip">
                          {p}
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td data-label="Environment">
                    {t.environment ? <span className="badge">{t.environment}</span> : <span className="muted">any</span>}
                  </td>
                  <td data-label="Created">
                    <RelativeTime at={t.created_at} />
                  </td>
                  <td data-label="Expires">
                    {t.expires_at ? (
                      <span className={expired ? 'badge badge-warn' : undefined} title={dateTime(t.expires_at)}>
                        {expired ? 'expired' : relativeTime(t.expires_at)}
                      </span>
                    ) : (
                      <span className="muted">never</span>
                    )}
                  </td>
                  <td data-label="Last used">{t.last_used_at ? relativeTime(t.last_used_at) : <span className="muted">never</span>}</td>
                  <td data-label="Actions" className="cell-actions">
                    <button
                      type="button"
                      className="btn btn-small btn-danger-outline"
                      aria-label={`Revoke token ${t.name} (${t.token_prefix})`}
                      onClick={() => revoke.ask(t)}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              )
            })}
          </DataTable>
        )}
      </ListSection>
      {revoking && (
        <ConfirmDialog title={`Revoke token “${revoking.name}”?`} confirmLabel="Revoke token" {...revoke.dialogProps}>
          <p>
            Anything using <code>{revoking.token_prefix}…</code> stops working immediately.
          </p>
          {revoking.token_prefix === ownPrefix && (
            <p className="alert alert-warning">This is the token you are signed in with: you will be signed out.</p>
          )}
        </ConfirmDialog>
      )}
    </>
  )
}

function CreateToken({
  projectId,
  environments,
  onCreated,
}: {
  projectId: string
  environments: string[]
  onCreated: (t: { token: string; name: string }) => void
}) {
  const [name, setName] = useState('')
  const [permissions, setPermissions] = useState<Permission[]>(['read:flags'])
  const [expires, setExpires] = useState('')
  const environmentKey = useEnvironmentKeyChoice(environments, permissions)
  const create = useApiMutation(api.createToken, [keys.tokens], (res, vars) => {
    onCreated({ token: res.token, name: vars.name })
    setName('')
    setExpires('')
  })
  const submit = () => {
    const expires_at = localInputToIso(expires)
    create.mutate({
      name: name.trim(),
      project_id: projectId,
      permissions,
      ...(expires_at ? { expires_at } : {}),
      ...environmentKey.body,
    })
  }
  // A client key holds the client permission only.
  const toggle = (p: Permission, on: boolean) =>
    setPermissions(
      on ? (p === 'client' ? ['client'] : [...permissions.filter((x) => x !== 'client'), p]) : permissions.filter((x) => x !== p),
    )
  return (
    <FormCard title="Create a token" onSubmit={submit}>
      <div className="row-fields">
        <label className="field">
          <span className="field-label">Name</span>
          <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} placeholder="web frontend (production)" />
        </label>
        <label className="field">
          <span className="field-label">Expires (optional)</span>
          <input type="datetime-local" value={expires} onChange={(e) => setExpires(e.target.value)} />
        </label>
      </div>
      <fieldset className="fieldset">
        <legend>Permissions</legend>
        <div className="checkbox-grid">
          {PERMISSIONS.map((p) => (
            <label key={p} className="checkbox checkbox-card">
              <input type="checkbox" checked={permissions.includes(p)} onChange={(e) => toggle(p, e.target.checked)} />
              <span>
                <code>{p}</code>
                <span className="muted small block">{PERMISSION_TEXT[p]}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      <EnvironmentKeyFieldset choice={environmentKey} name="token-environment" />
      <FormActions
        mutation={create}
        errorTitle="Could not create the token"
        label="Create token"
        pendingLabel="Creating…"
        disabled={!name.trim() || permissions.length === 0}
      />
    </FormCard>
  )
}
