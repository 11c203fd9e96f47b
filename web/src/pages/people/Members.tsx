// A project's members (project admins): each one's role and the environment grid (per environment:
// the role's own right, or viewer / editor), and invitations to the project by email.
import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { useSession } from '../../session'
import { dateTime } from '../../format'
import { useApiMutation } from '../../mutations'
import { PROJECT_ROLES, teamsApi, teamsKeys, type EnvironmentGrants, type Invitation, type Member, type ProjectRole } from '../../teams-api'
import { ConfirmDialog, useConfirmAction } from '../../components/ConfirmDialog'
import { CopyField } from '../../components/CopyButton'
import { DataTable } from '../../components/DataTable'
import { ErrorMessage } from '../../components/ErrorMessage'
import { Field, SelectField } from '../../components/Field'
import { ListSection } from '../../components/ListStates'
import { Options } from '../../components/Options'
import { Empty, PageHeader } from '../../components/State'

export function Members() {
  const { project, person, can } = useSession()
  const members = useQuery({ queryKey: teamsKeys.members, queryFn: teamsApi.members })
  const environments = project.data?.environments ?? []
  return (
    <>
      <PageHeader title="Members" subtitle={`Who can work on ${project.data?.name ?? 'this project'}, and where they may change things.`} />
      <ListSection query={members} noun={{ one: 'member', many: 'members' }} counted={false} empty={<Empty title="No members yet" />}>
        {(rows) => (
          <DataTable
            caption="Project members"
            columns={['Person', 'Role', ...environments.map((e) => `In ${e}`), { label: 'Actions', hidden: true }]}
          >
            {rows.map((m) => (
              <MemberRow key={m.user.id} member={m} environments={environments} self={m.user.id === person?.user.id} />
            ))}
          </DataTable>
        )}
      </ListSection>
      {can.instanceAdmin && members.data && <AddMember memberIds={new Set(members.data.map((m) => m.user.id))} />}
      <Invitations />
    </>
  )
}

/** Instance admins add someone who already has an account (everyone else is invited by email). */
function AddMember({ memberIds }: { memberIds: Set<string> }) {
  const users = useQuery({ queryKey: teamsKeys.users, queryFn: teamsApi.users })
  const candidates = (users.data ?? []).filter((u) => !memberIds.has(u.id) && !u.disabled)
  const [userId, setUserId] = useState('')
  const [role, setRole] = useState<ProjectRole>('viewer')
  const add = useApiMutation(
    () => teamsApi.putMember(userId, { role }),
    [teamsKeys.members],
    () => setUserId(''),
  )
  if (!candidates.length) return null
  return (
    <section className="card" aria-labelledby="add-member-title">
      <h2 className="card-title" id="add-member-title">
        Add a member
      </h2>
      <form className="form row-fields" onSubmit={(e) => (e.preventDefault(), add.mutate(undefined))} aria-label="Add a member">
        <SelectField id="add-member-user" label="Person" value={userId} onChange={(e) => setUserId(e.target.value)}>
          <option value="">Choose…</option>
          {candidates.map((u) => (
            <option key={u.id} value={u.id}>
              {u.name} ({u.email})
            </option>
          ))}
        </SelectField>
        <RoleField id="add-member-role" label="Role in this project" value={role} onChange={setRole} />
        <button type="submit" className="btn btn-primary" disabled={!userId || add.isPending}>
          Add member
        </button>
      </form>
      <ErrorMessage error={add.error} title="Not added" />
    </section>
  )
}

/** The role a form gives someone in this project (adding a member, inviting one). */
function RoleField({
  id,
  label,
  value,
  onChange,
}: {
  id: string
  label: string
  value: ProjectRole
  onChange: (role: ProjectRole) => void
}) {
  return (
    <SelectField id={id} label={label} value={value} onChange={(e) => onChange(e.target.value as ProjectRole)}>
      <Options values={PROJECT_ROLES} />
    </SelectField>
  )
}

function MemberRow({ member, environments, self }: { member: Member; environments: string[]; self: boolean }) {
  const [role, setRole] = useState<ProjectRole>(member.role)
  const [grants, setGrants] = useState<EnvironmentGrants>(member.environments ?? {})
  const save = useApiMutation(() => teamsApi.putMember(member.user.id, { role, environments: grants }), [teamsKeys.members])
  const remove = useApiMutation(() => teamsApi.removeMember(member.user.id), [teamsKeys.members])
  const dirty = role !== member.role || JSON.stringify(grants) !== JSON.stringify(member.environments ?? {})
  const who = member.user.name || member.user.email
  return (
    <tr>
      <td data-label="Person">
        <strong>{who}</strong> <span className="muted small">{member.user.email}</span>{' '}
        {member.via === 'sso' && <span className="badge">from SSO group</span>}
        <ErrorMessage error={save.error ?? remove.error} title="Not saved" />
      </td>
      <td data-label="Role">
        <select aria-label={`Role of ${who}`} value={role} onChange={(e) => setRole(e.target.value as ProjectRole)}>
          <Options values={PROJECT_ROLES} />
        </select>
      </td>
      {environments.map((env) => (
        <td key={env} data-label={`In ${env}`}>
          <select
            aria-label={`${who} in ${env}`}
            value={grants[env] ?? ''}
            disabled={role === 'admin'}
            onChange={(e) => {
              const next = { ...grants }
              if (e.target.value) next[env] = e.target.value as 'viewer' | 'editor'
              else delete next[env]
              setGrants(next)
            }}
          >
            <option value="">as role</option>
            <option value="viewer">viewer</option>
            <option value="editor">editor</option>
          </select>
        </td>
      ))}
      <td>
        <div className="btn-group">
          <button
            type="button"
            className="btn btn-small btn-primary"
            disabled={!dirty || save.isPending}
            onClick={() => save.mutate(undefined)}
          >
            Save
          </button>
          {!self && (
            <button
              type="button"
              className="btn btn-small btn-danger-outline"
              disabled={remove.isPending}
              onClick={() => remove.mutate(undefined)}
              aria-label={`Remove ${who}`}
            >
              Remove
            </button>
          )}
        </div>
      </td>
    </tr>
  )
}

function Invitations() {
  const { project } = useSession()
  const invitations = useQuery({ queryKey: teamsKeys.invitations, queryFn: teamsApi.invitations })
  const [email, setEmail] = useState('')
  const [role, setRole] = useState<ProjectRole>('editor')
  const [created, setCreated] = useState<{ url: string; email: string } | null>(null)
  const invite = useApiMutation(
    () => teamsApi.invite({ email: email.trim(), projects: [{ project: project.data?.id ?? '', role }] }),
    [teamsKeys.invitations],
    (r) => {
      setCreated({ url: r.url, email: email.trim() })
      setEmail('')
    },
  )
  const revoke = useConfirmAction((i: Invitation) => teamsApi.revokeInvitation(i.id), [teamsKeys.invitations])
  // Open: neither accepted nor expired (the list answers every invitation, accepted ones included).
  const open = (invitations.data ?? []).filter((i) => !i.accepted_at && Date.parse(i.expires_at) > Date.now())
  return (
    <section className="card" aria-labelledby="invite-title">
      <h2 className="card-title" id="invite-title">
        Invitations
      </h2>
      {created && (
        <div className="callout" role="status">
          <p>
            <strong>Send this link to {created.email}.</strong> It is shown once, works once, and expires in 7 days.
          </p>
          <CopyField value={created.url} label="Invitation link" copyLabel="Copy link" />
        </div>
      )}
      <form className="form row-fields" onSubmit={(e) => (e.preventDefault(), invite.mutate(undefined))} aria-label="Invite someone">
        <Field id="invite-email" label="Email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} />
        <RoleField id="invite-role" label="Role" value={role} onChange={setRole} />
        <button type="submit" className="btn btn-primary" disabled={invite.isPending || !email.trim()}>
          Invite
        </button>
      </form>
      <ErrorMessage error={invite.error} title="Not invited" />
      {open.length > 0 && (
        <DataTable caption="Open invitations" columns={['Email', 'Expires', { label: 'Actions', hidden: true }]}>
          {open.map((i) => (
            <tr key={i.id}>
              <td data-label="Email">{i.email}</td>
              <td data-label="Expires">{dateTime(i.expires_at)}</td>
              <td>
                <button
                  type="button"
                  className="btn btn-small btn-danger-outline"
                  onClick={() => revoke.ask(i)}
                  aria-label={`Revoke the invitation of ${i.email}`}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {revoke.target && (
        <ConfirmDialog title={`Revoke the invitation of ${revoke.target.email}?`} confirmLabel="Revoke invitation" {...revoke.dialogProps}>
          <p>The link sent to {revoke.target.email} stops working at once. You can invite them again later.</p>
        </ConfirmDialog>
      )}
      <ErrorMessage error={invitations.error} title="Invitations" />
    </section>
  )
}
