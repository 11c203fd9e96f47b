// Every user of the instance (instance owners and admins): instance role, disable or enable, a one-time
// password-reset link, delete. The server keeps at least one active owner (409 LAST_OWNER).
import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { useSession } from '../../session'
import { relativeTime } from '../../format'
import { useApiMutation } from '../../mutations'
import { INSTANCE_ROLES, teamsApi, teamsKeys, type InstanceRole, type User } from '../../teams-api'
import { CopyField } from '../../components/CopyButton'
import { DataTable } from '../../components/DataTable'
import { ErrorMessage } from '../../components/ErrorMessage'
import { ListStates } from '../../components/ListStates'
import { Options } from '../../components/Options'
import { PageHeader } from '../../components/State'

export function Users() {
  const users = useQuery({ queryKey: teamsKeys.users, queryFn: teamsApi.users })
  const [reset, setReset] = useState<{ email: string; url: string } | null>(null)
  return (
    <>
      <PageHeader title="Users" subtitle="Everyone who can sign in to this Flagship." />
      {reset && (
        <div className="card callout" role="status">
          <p>
            <strong>Password-reset link for {reset.email}</strong> (works once, for 24 hours):
          </p>
          <CopyField value={reset.url} label="Password-reset link" copyLabel="Copy link" />
        </div>
      )}
      <ListStates query={users} what="users">
        {(rows) => (
          <DataTable caption="Users" columns={['Person', 'Instance role', 'Sign-in', 'Last sign-in', { label: 'Actions', hidden: true }]}>
            {rows.map((u) => (
              <UserRow key={u.id} user={u} onReset={setReset} />
            ))}
          </DataTable>
        )}
      </ListStates>
    </>
  )
}

function UserRow({ user, onReset }: { user: User; onReset: (r: { email: string; url: string }) => void }) {
  const { person } = useSession()
  const patch = useApiMutation(
    (body: { instance_role?: InstanceRole; disabled?: boolean }) => teamsApi.patchUser(user.id, body),
    [teamsKeys.users],
  )
  const remove = useApiMutation(() => teamsApi.deleteUser(user.id), [teamsKeys.users])
  const reset = useApiMutation(
    () => teamsApi.resetPassword(user.id),
    [],
    (r) => onReset({ email: user.email, url: r.url }),
  )
  const self = person?.user.id === user.id
  const who = user.name || user.email
  return (
    <tr className={user.disabled ? 'row-muted' : undefined}>
      <td data-label="Person">
        <strong>{who}</strong> <span className="muted small">{user.email}</span>{' '}
        {user.disabled && <span className="badge badge-warn">disabled</span>}
        <ErrorMessage error={patch.error ?? remove.error ?? reset.error} title="Not changed" />
      </td>
      <td data-label="Instance role">
        <select
          aria-label={`Instance role of ${who}`}
          value={user.instance_role}
          disabled={patch.isPending}
          onChange={(e) => patch.mutate({ instance_role: e.target.value as InstanceRole })}
        >
          <Options values={INSTANCE_ROLES} />
        </select>
      </td>
      <td data-label="Sign-in">
        {[user.has_password && 'password', user.has_totp && '2FA', user.sso && 'SSO'].filter(Boolean).join(', ') || '—'}
      </td>
      <td data-label="Last sign-in">{user.last_login_at ? relativeTime(user.last_login_at) : 'never'}</td>
      <td>
        {!self && (
          <div className="btn-group">
            <button
              type="button"
              className="btn btn-small"
              onClick={() => patch.mutate({ disabled: !user.disabled })}
              aria-label={`${user.disabled ? 'Enable' : 'Disable'} ${who}`}
            >
              {user.disabled ? 'Enable' : 'Disable'}
            </button>
            <button
              type="button"
              className="btn btn-small"
              onClick={() => reset.mutate(undefined)}
              aria-label={`Password-reset link for ${who}`}
            >
              Reset link
            </button>
            <button
              type="button"
              className="btn btn-small btn-danger-outline"
              onClick={() => window.confirm(`Delete ${user.email}? This cannot be undone.`) && remove.mutate(undefined)}
              aria-label={`Delete ${who}`}
            >
              Delete
            </button>
          </div>
        )}
      </td>
    </tr>
  )
}
