// The audit log: filter by resource, action, actor and dates (kept in the URL, so a filtered view can be
// linked, reloaded and gone back to); open an entry's before/after diff.
import { useEffect, useState, type FormEvent } from 'react'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { RESOURCE_TYPES, type AuditAction, type AuditEntry, type AuditFilter } from '../api'
import { adminQueries } from '../queries'
import { Link, navigate, pathFor, useSearch } from '../router'
import { dateTime, jsonEqual } from '../format'
import { DataTable } from '../components/DataTable'
import { Dialog } from '../components/Dialog'
import { DiffView } from '../components/DiffView'
import { ListStates } from '../components/ListStates'
import { AnyOf } from '../components/Options'
import { RelativeTime } from '../components/RelativeTime'
import { Empty, PageHeader } from '../components/State'

const ACTIONS: AuditAction[] = ['create', 'update', 'delete', 'archive', 'restore', 'rollback']

interface FilterForm {
  resource_type: string
  resource_key: string
  action: string
  actor: string
  since: string
  until: string
}
const EMPTY: FilterForm = { resource_type: '', resource_key: '', action: '', actor: '', since: '', until: '' }

const FIELDS = Object.keys(EMPTY) as (keyof FilterForm)[]

/** The filters and page in the URL's query string (unknown parameters ignored). */
function fromSearch(search: string): { form: FilterForm; offset: number; limit: number } {
  const q = new URLSearchParams(search)
  const form = { ...EMPTY }
  for (const f of FIELDS) form[f] = q.get(f) ?? ''
  const num = (name: string, fallback: number) => {
    const n = Number(q.get(name))
    return Number.isInteger(n) && n > 0 ? n : fallback
  }
  return { form, offset: num('offset', 0), limit: num('limit', 50) }
}

function toSearch(form: FilterForm, offset: number, limit: number): string {
  const q = new URLSearchParams()
  for (const f of FIELDS) if (form[f].trim()) q.set(f, form[f].trim())
  if (offset) q.set('offset', String(offset))
  if (limit !== 50) q.set('limit', String(limit))
  const s = q.toString()
  return s ? `?${s}` : ''
}

/** An actor as people know it: the token's name with its prefix, else the prefix (or `cli`). */
export const actorLabel = (e: { actor: string; actor_name?: string | null }) => (e.actor_name ? `${e.actor_name} (${e.actor})` : e.actor)

/** Local calendar dates -> the API's ISO bounds (until is inclusive of its whole day). */
function toFilter(f: FilterForm, limit: number, offset: number): AuditFilter {
  const day = (d: string, plusDays = 0) => {
    if (!d) return undefined
    const [y, m, dd] = d.split('-').map(Number)
    return new Date(y, m - 1, dd + plusDays).toISOString()
  }
  return {
    resource_type: f.resource_type || undefined,
    resource_key: f.resource_key.trim() || undefined,
    action: f.action || undefined,
    actor: f.actor.trim() || undefined,
    since: day(f.since),
    until: day(f.until, 1),
    limit,
    offset,
  }
}

/** A member entry's person, from what the entry recorded (its key is the user's id). */
function memberOf(e: AuditEntry): { name?: string; email?: string } {
  const side = (v: unknown) => (v && typeof v === 'object' ? (v as { name?: unknown; email?: unknown }) : {})
  const pick = (k: 'name' | 'email') => [side(e.after)[k], side(e.before)[k]].find((v): v is string => typeof v === 'string' && v !== '')
  return { name: pick('name'), email: pick('email') }
}

function resourceLink(e: AuditEntry) {
  if (e.resource_type === 'member') {
    const { name, email } = memberOf(e)
    if (name || email) {
      return (
        <span title={e.resource_key}>
          <strong>{name ?? email}</strong> {name && email && <span className="muted small">{email}</span>}
        </span>
      )
    }
  }
  if (e.action === 'delete') return <span className="mono">{e.resource_key}</span>
  const to =
    e.resource_type === 'flag'
      ? pathFor.flag(e.resource_key)
      : e.resource_type === 'config'
        ? pathFor.config(e.resource_key)
        : e.resource_type === 'segment'
          ? pathFor.segment(e.resource_key)
          : null
  return to ? (
    <Link to={to} className="mono">
      {e.resource_key}
    </Link>
  ) : (
    <span className="mono">{e.resource_key}</span>
  )
}

const BOOKKEEPING = new Set(['version', 'updated_at', 'created_at'])

/** Top-level fields an update changed (for the list; the dialog shows the full diff). */
function changedKeys(e: AuditEntry): string[] {
  const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {})
  const a = obj(e.before)
  const b = obj(e.after)
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !BOOKKEEPING.has(k) && !jsonEqual(a[k], b[k]))
}

export function Audit() {
  const search = useSearch()
  const { form: applied, offset, limit } = fromSearch(search)
  const [form, setForm] = useState<FilterForm>(applied)
  // Back and forward (or a link) change the URL: the form shows the filters applied.
  useEffect(() => setForm(fromSearch(search).form), [search])
  const [open, setOpen] = useState<AuditEntry | null>(null)
  const page = { offset, limit }
  const go = (f: FilterForm, o: number, l: number) => navigate(`/audit${toSearch(f, o, l)}`)
  const filter = toFilter(applied, page.limit, page.offset)
  const audit = useQuery({ ...adminQueries.audit(filter), placeholderData: keepPreviousData })
  const set = (p: Partial<FilterForm>) => setForm({ ...form, ...p })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    go(form, 0, page.limit)
  }
  const filtered = JSON.stringify(applied) !== JSON.stringify(EMPTY)

  return (
    <>
      <PageHeader title="Audit log" subtitle="Every change, who made it, and what it changed. Newest first." />
      <form className="card filters" onSubmit={submit} aria-label="Audit filters">
        <AnyOf
          label="Resource type"
          value={form.resource_type}
          values={RESOURCE_TYPES}
          onChange={(resource_type) => set({ resource_type })}
        />
        <label className="field">
          <span className="field-label">Resource key</span>
          <input value={form.resource_key} onChange={(e) => set({ resource_key: e.target.value })} className="mono" />
        </label>
        <AnyOf label="Action" value={form.action} values={ACTIONS} onChange={(action) => set({ action })} />
        <label className="field">
          <span className="field-label">Actor</span>
          <input
            value={form.actor}
            onChange={(e) => set({ actor: e.target.value })}
            placeholder="ff_defa_AbCd or someone@example.com"
            className="mono"
          />
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
          <button
            type="button"
            className="btn"
            onClick={() => {
              setForm(EMPTY)
              go(EMPTY, 0, page.limit)
            }}
          >
            Reset
          </button>
        </div>
      </form>
      <ListStates
        query={audit}
        what="the audit log"
        none={(data) => !data.entries.length}
        empty={<Empty title={filtered ? 'No entries match these filters' : 'No changes recorded yet'} />}
        paging={{ page, total: (data) => data.total, onChange: (p) => go(applied, p.offset, p.limit), label: 'Audit pages' }}
      >
        {({ entries }) => (
          <DataTable
            caption="Audit entries"
            className={audit.isPlaceholderData ? 'loading' : undefined}
            columns={['When', 'Action', 'Resource', 'Actor', { label: 'Details', hidden: true }]}
          >
            {entries.map((e, i) => (
              <tr key={e.id ?? `${e.timestamp}-${i}`}>
                <td data-label="When">
                  <RelativeTime at={e.timestamp} />
                  <div className="muted small">{dateTime(e.timestamp)}</div>
                </td>
                <td data-label="Action">
                  <span className={`badge action-${e.action}`}>{e.action}</span>
                </td>
                <td data-label="Resource">
                  <span className="muted small">{e.resource_type}</span> {resourceLink(e)}
                  {e.action === 'update' && changedKeys(e).length > 0 && (
                    <div className="muted small">changed {changedKeys(e).join(', ')}</div>
                  )}
                </td>
                <td data-label="Actor">
                  <Actor entry={e} />
                </td>
                <td data-label="Details" className="cell-actions">
                  <button
                    type="button"
                    className="btn btn-small"
                    onClick={() => setOpen(e)}
                    aria-label={`View changes: ${e.action} ${e.resource_type} ${e.resource_key}`}
                  >
                    View changes
                  </button>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </ListStates>
      {open && (
        <Dialog title={`${open.action} ${open.resource_type} “${open.resource_key}”`} onClose={() => setOpen(null)} wide>
          <p className="muted">
            {dateTime(open.timestamp)} by <Actor entry={open} />
          </p>
          <DiffView before={open.before} after={open.after} caption="Entry changes" />
        </Dialog>
      )}
    </>
  )
}

/** Who made a change: a person (their email, and how: a session or a personal token's prefix), or a
 *  token, the CLI, a schedule or a change request. */
function Actor({ entry }: { entry: AuditEntry }) {
  const { actor_type: type, credential } = entry as AuditEntry & { actor_type?: string; credential?: string | null }
  if (type === 'user') {
    return (
      <span>
        <span className="badge">person</span> <span className="small">{entry.actor}</span>{' '}
        {credential && <span className="muted small">({credential === 'session' ? 'console' : <code>{credential}</code>})</span>}
      </span>
    )
  }
  const name = (entry as AuditEntry & { actor_name?: string | null }).actor_name
  return (
    <span>
      {type && type !== 'token' && <span className="badge">{type.replace('_', ' ')}</span>}{' '}
      {name ? (
        <>
          {name} <code className="small">({entry.actor})</code>
        </>
      ) : (
        <code className="small">{entry.actor}</code>
      )}
    </span>
  )
}
