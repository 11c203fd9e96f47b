// Segment list (with the flags that use each segment) and creation.
import { useMemo, useState, type FormEvent } from 'react'
import { useQuery } from '@tanstack/react-query'
import { api, keys, type Flag } from '../api'
import { Link, navigate, pathFor } from '../router'
import { useSession } from '../session'
import { dateTime, plural, relativeTime } from '../format'
import { useApiMutation } from '../mutations'
import { describeCondition } from '../components/ConditionEditor'
import { Dialog } from '../components/Dialog'
import { ErrorMessage } from '../components/ErrorMessage'
import { Empty, Loading, PageHeader } from '../components/State'

/** Keys of the flags whose rules reference the segment with in_segment / not_in_segment. */
export function flagsUsingSegment(flags: Flag[], segmentKey: string): string[] {
  return flags
    .filter((f) => (f.targeting?.rules ?? []).some((r) => r.conditions.some((c) => (c.operator === 'in_segment' || c.operator === 'not_in_segment') && c.value === segmentKey)))
    .map((f) => f.key)
}

export function useFlagsForUsage() {
  const { can } = useSession()
  return useQuery({ queryKey: keys.flags, queryFn: api.flags, enabled: can.readFlags })
}

export function Segments() {
  const segments = useQuery({ queryKey: keys.segments, queryFn: api.segments })
  const flags = useFlagsForUsage()
  const [search, setSearch] = useState('')
  const [creating, setCreating] = useState(false)
  const filtered = useMemo(() => (segments.data ?? []).filter((s) => s.key.toLowerCase().includes(search.trim().toLowerCase())), [segments.data, search])

  return (
    <>
      <PageHeader
        title="Segments"
        subtitle={segments.data ? plural(segments.data.length, 'segment') : 'Reusable groups of users for flag rules'}
        actions={
          <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
            New segment
          </button>
        }
      />
      <div className="toolbar">
        <label className="field search">
          <span className="sr-only">Search segments</span>
          <input type="search" placeholder="Search segments…" aria-label="Search segments" value={search} onChange={(e) => setSearch(e.target.value)} />
        </label>
      </div>
      {segments.isLoading ? (
        <Loading label="Loading segments…" />
      ) : segments.isError ? (
        <ErrorMessage error={segments.error} title="Could not load segments" />
      ) : !segments.data?.length ? (
        <Empty title="No segments yet">
          <p>A segment is a named list of conditions (for example “beta testers”). Flag rules use it with “is in segment”.</p>
          <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
            Create your first segment
          </button>
        </Empty>
      ) : !filtered.length ? (
        <Empty title={`No segments match “${search}”`} />
      ) : (
        <div className="table-wrap">
          <table className="table responsive">
            <caption className="sr-only">Segments</caption>
            <thead>
              <tr>
                <th scope="col">Segment</th>
                <th scope="col">Conditions</th>
                <th scope="col">Used by</th>
                <th scope="col">Last change</th>
              </tr>
            </thead>
            <tbody>
              {filtered.map((s) => {
                const users = flags.data ? flagsUsingSegment(flags.data, s.key) : null
                return (
                  <tr key={s.key}>
                    <td data-label="Segment">
                      <Link to={pathFor.segment(s.key)} className="row-title">
                        {s.key}
                      </Link>
                    </td>
                    <td data-label="Conditions">
                      {s.conditions.length ? (
                        <span className="mono small truncate" title={s.conditions.map(describeCondition).join(' AND ')}>
                          {s.conditions.map(describeCondition).join(' AND ')}
                        </span>
                      ) : (
                        <span className="muted">matches everyone</span>
                      )}
                    </td>
                    <td data-label="Used by">{users === null ? <span className="muted">—</span> : users.length ? plural(users.length, 'flag') : <span className="muted">unused</span>}</td>
                    <td data-label="Last change">
                      {s.updated_at ? (
                        <time dateTime={s.updated_at} title={dateTime(s.updated_at)}>
                          {relativeTime(s.updated_at)}
                        </time>
                      ) : (
                        '—'
                      )}
                      <div className="muted small">v{s.version}</div>
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
      )}
      {creating && <CreateSegmentDialog onClose={() => setCreating(false)} />}
    </>
  )
}

function CreateSegmentDialog({ onClose }: { onClose: () => void }) {
  const [key, setKey] = useState('')
  const create = useApiMutation(api.createSegment, [keys.segments], (res) => navigate(pathFor.segment(res.key)))
  const submit = (e: FormEvent) => {
    e.preventDefault()
    create.mutate({ key: key.trim(), conditions: [] })
  }
  return (
    <Dialog title="New segment" onClose={onClose}>
      <form onSubmit={submit} className="form">
        <label className="field">
          <span className="field-label">Key</span>
          <input value={key} onChange={(e) => setKey(e.target.value)} required placeholder="beta-testers" autoFocus className="mono" />
          <span className="hint">You add its conditions on the next page.</span>
        </label>
        <ErrorMessage error={create.error} title="Could not create the segment" />
        <div className="form-actions">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={!key.trim() || create.isPending}>
            {create.isPending ? 'Creating…' : 'Create segment'}
          </button>
        </div>
      </form>
    </Dialog>
  )
}
