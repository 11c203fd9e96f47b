// Segment list (with the flags that use each segment) and creation.
import { useState, type FormEvent } from 'react'
import { useQuery } from '@tanstack/react-query'
import { api, keys, type Flag } from '../api'
import { Link, navigate, pathFor } from '../router'
import { useSession } from '../session'
import { flagQueries, segmentQueries, usePagedList } from '../queries'
import { plural } from '../format'
import { useApiMutation } from '../mutations'
import { describeCondition } from '../components/ConditionEditor'
import { DataTable, LastChangeCell } from '../components/DataTable'
import { Dialog } from '../components/Dialog'
import { FormActions } from '../components/FormActions'
import { SearchableList } from '../components/SearchableList'
import { Empty, PageHeader } from '../components/State'

/** Keys of the flags whose rules reference the segment with in_segment / not_in_segment. */
export function flagsUsingSegment(flags: Flag[], segmentKey: string): string[] {
  return flags
    .filter((f) => (f.targeting?.rules ?? []).some((r) => r.conditions.some((c) => (c.operator === 'in_segment' || c.operator === 'not_in_segment') && c.value === segmentKey)))
    .map((f) => f.key)
}

/** Every flag (usage is a question about all of them), when the token may read flags. */
export function useFlagsForUsage() {
  const { can } = useSession()
  return useQuery({ ...flagQueries.all(), enabled: can.readFlags })
}

export function Segments() {
  const list = usePagedList({
    queries: segmentQueries,
    matches: (s, q) => s.key.toLowerCase().includes(q),
  })
  const flags = useFlagsForUsage()
  const [creating, setCreating] = useState(false)

  return (
    <>
      <PageHeader
        title="Segments"
        subtitle={list.count !== undefined ? plural(list.count, 'segment') : 'Reusable groups of users for flag rules'}
        actions={
          <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
            New segment
          </button>
        }
      />
      <SearchableList
        list={list}
        noun={{ one: 'segment', many: 'segments' }}
        searchPlaceholder="Search segments…"
        empty={
          <Empty title="No segments yet">
            <p>A segment is a named list of conditions (for example “beta testers”). Flag rules use it with “is in segment”.</p>
            <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
              Create your first segment
            </button>
          </Empty>
        }
      >
        {(rows) => (
          <DataTable caption="Segments" columns={['Segment', 'Conditions', 'Used by', 'Last change']}>
            {rows.map((s) => {
              const users = flags.data ? flagsUsingSegment(flags.data, s.key) : null
              const conditions = s.conditions.map(describeCondition).join(' AND ')
              return (
                <tr key={s.key}>
                  <td data-label="Segment">
                    <Link to={pathFor.segment(s.key)} className="row-title">
                      {s.key}
                    </Link>
                  </td>
                  <td data-label="Conditions">
                    {s.conditions.length ? (
                      <span className="mono small truncate" title={conditions}>
                        {conditions}
                      </span>
                    ) : (
                      <span className="muted">matches everyone</span>
                    )}
                  </td>
                  <td data-label="Used by">{users === null ? <span className="muted">—</span> : users.length ? plural(users.length, 'flag') : <span className="muted">unused</span>}</td>
                  <LastChangeCell doc={s} />
                </tr>
              )
            })}
          </DataTable>
        )}
      </SearchableList>
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
          <span className="hint">You add its conditions on the next page. Until it has some, it matches everyone (no flag uses it yet).</span>
        </label>
        <FormActions mutation={create} errorTitle="Could not create the segment" label="Create segment" pendingLabel="Creating…" disabled={!key.trim()} onCancel={onClose} />
      </form>
    </Dialog>
  )
}
