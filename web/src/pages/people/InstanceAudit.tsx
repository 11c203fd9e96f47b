// The instance audit log (instance owners and admins): sign-ins and their failures, single sign-on,
// sign-outs, users, invitations and projects, newest first, filtered by action, kind, person and dates.
// Entries about a user name the person (their name and email from the user list), not the user's id.
import { useState, type FormEvent } from 'react'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { teamsApi, teamsKeys, type InstanceAuditEntry, type InstanceAuditFilter, type User } from '../../teams-api'
import { dateTime } from '../../format'
import { DataTable } from '../../components/DataTable'
import { ListStates } from '../../components/ListStates'
import { AnyOf } from '../../components/Options'
import { RelativeTime } from '../../components/RelativeTime'
import { Empty, PageHeader } from '../../components/State'

/** What the service records (identity/, routes/projects.ts); the filter also takes any other word typed. */
const ACTIONS = [
  'sign_in',
  'sign_in_failed',
  'sign_out',
  'setup',
  'link_identity',
  'sso_grants',
  'password_change',
  'password_reset',
  'password_reset_link',
  'totp_begin',
  'totp_enable',
  'totp_disable',
  'create',
  'update',
  'delete',
  'accept',
] as const
const KINDS = ['session', 'user', 'invitation', 'project', 'member'] as const

interface FilterForm {
  action: string
  resource_type: string
  actor: string
  since: string
  until: string
}
const EMPTY: FilterForm = { action: '', resource_type: '', actor: '', since: '', until: '' }
const PAGE = 50

/** Local calendar dates -> the API's ISO bounds (until takes its whole day). */
function toFilter(f: FilterForm, offset: number): InstanceAuditFilter {
  const day = (d: string, plusDays = 0) => {
    if (!d) return undefined
    const [y, m, dd] = d.split('-').map(Number)
    return new Date(y!, m! - 1, dd! + plusDays).toISOString()
  }
  return {
    action: f.action || undefined,
    resource_type: f.resource_type || undefined,
    actor: f.actor.trim() || undefined,
    since: day(f.since),
    until: day(f.until, 1),
    limit: PAGE,
    offset,
  }
}

export function InstanceAudit() {
  const [form, setForm] = useState<FilterForm>(EMPTY)
  const [applied, setApplied] = useState<{ form: FilterForm; offset: number }>({ form: EMPTY, offset: 0 })
  const filter = toFilter(applied.form, applied.offset)
  const audit = useQuery({
    queryKey: teamsKeys.instanceAudit(filter),
    queryFn: () => teamsApi.instanceAudit(filter),
    placeholderData: keepPreviousData,
  })
  const users = useQuery({ queryKey: teamsKeys.users, queryFn: teamsApi.users })
  const byId = new Map((users.data ?? []).map((u) => [u.id, u]))
  const set = (p: Partial<FilterForm>) => setForm({ ...form, ...p })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    setApplied({ form, offset: 0 })
  }
  const filtered = JSON.stringify(applied.form) !== JSON.stringify(EMPTY)
  return (
    <>
      <PageHeader
        title="Instance audit log"
        subtitle="Sign-ins (and failed ones), single sign-on, sign-outs, users, invitations and projects. Newest first."
      />
      <form className="card filters" onSubmit={submit} aria-label="Instance audit filters">
        <AnyOf label="Action" value={form.action} values={ACTIONS} onChange={(action) => set({ action })} />
        <AnyOf label="Kind" value={form.resource_type} values={KINDS} onChange={(resource_type) => set({ resource_type })} />
        <label className="field">
          <span className="field-label">Person (email)</span>
          <input value={form.actor} onChange={(e) => set({ actor: e.target.value })} placeholder="someone@example.com" />
        </label>
        <label className="field">
          <span className="field-label">Since</span>
          <input type="date" value={form.since} onChange={(e) => set({ since: e.target.value })} />
        </label>
        <label className="field">
          <span className="field-label">Until</span>
          <input type="date" value={form.until} onChange={(e) => set({ until: e.target.value })} />
        </label>
        <div className="filters-actions btn-group">
          <button type="submit" className="btn btn-primary">
            Apply filters
          </button>
          <button type="button" className="btn" onClick={() => (setForm(EMPTY), setApplied({ form: EMPTY, offset: 0 }))}>
            Reset
          </button>
        </div>
      </form>
      <ListStates
        query={audit}
        what="the instance audit log"
        none={(data) => !data.entries.length}
        empty={<Empty title={filtered ? 'No entries match these filters' : 'Nothing recorded yet'} />}
        paging={{
          page: { offset: applied.offset, limit: PAGE },
          total: (data) => data.total,
          onChange: (p) => setApplied({ ...applied, offset: p.offset }),
          label: 'Instance audit pages',
        }}
      >
        {({ entries }) => (
          <DataTable
            caption="Instance audit entries"
            className={audit.isPlaceholderData ? 'loading' : undefined}
            columns={['When', 'Action', 'About', 'Who', 'Address']}
          >
            {entries.map((e) => (
              <tr key={e.id}>
                <td data-label="When">
                  <RelativeTime at={e.timestamp} />
                  <div className="muted small">{dateTime(e.timestamp)}</div>
                </td>
                <td data-label="Action">
                  <span className="badge">{e.action}</span>
                </td>
                <td data-label="About">
                  <span className="muted small">{e.resource_type}</span> <About entry={e} user={byId.get(e.resource_key)} />
                </td>
                <td data-label="Who">
                  {e.actor_type !== 'user' && <span className="badge">{e.actor_type}</span>} <span className="small">{e.actor}</span>
                </td>
                <td data-label="Address" className="mono small">
                  {e.ip ?? '—'}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </ListStates>
    </>
  )
}

/** What an entry is about: a user by name and email (their id only when the user is gone), else its key and
 *  what the entry says of it (a project's slug, an invited email, a sign-in's method). */
function About({ entry, user }: { entry: InstanceAuditEntry; user: User | undefined }) {
  const details = entry.details && typeof entry.details === 'object' ? (entry.details as Record<string, unknown>) : {}
  if (user) {
    return (
      <span title={entry.resource_key}>
        <strong>{user.name || user.email}</strong> <span className="muted small">{user.email}</span>
      </span>
    )
  }
  const said = ['email', 'slug', 'method', 'reason'].map((k) => details[k]).filter((v): v is string => typeof v === 'string')
  return <span>{said.length ? <strong>{said.join(' · ')}</strong> : <code className="small">{entry.resource_key}</code>}</span>
}
