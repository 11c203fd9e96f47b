// Segment list (with the flags that use each segment) and creation.
import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { api, keys, type Flag } from '../api'
import { navigate, pathFor } from '../router'
import { useSession } from '../session'
import { flagQueries, segmentQueries, usePagedList } from '../queries'
import { plural } from '../format'
import { useApiMutation } from '../mutations'
import { describeCondition } from '../components/ConditionEditor'
import { CreateDialog, KeyField } from '../components/CreateDialog'
import { DataTable, KeyCell, LastChangeCell } from '../components/DataTable'
import { ListPage } from '../components/ListPage'

/** Keys of the flags whose rules reference the segment with in_segment / not_in_segment. */
export function flagsUsingSegment(flags: Flag[], segmentKey: string): string[] {
  return flags
    .filter((f) =>
      (f.targeting?.rules ?? []).some((r) =>
        r.conditions.some((c) => (c.operator === 'in_segment' || c.operator === 'not_in_segment') && c.value === segmentKey),
      ),
    )
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
  return (
    <ListPage
      title="Segments"
      noun={{ one: 'segment', many: 'segments' }}
      about="Reusable groups of users for flag rules"
      list={list}
      searchPlaceholder="Search segments…"
      canCreate
      emptyText={<p>A segment is a named list of conditions (for example “beta testers”). Flag rules use it with “is in segment”.</p>}
      createDialog={(close) => <CreateSegmentDialog onClose={close} />}
    >
      {(rows) => (
        <DataTable caption="Segments" columns={['Segment', 'Conditions', 'Used by', 'Last change']}>
          {rows.map((s) => {
            const users = flags.data ? flagsUsingSegment(flags.data, s.key) : null
            const conditions = s.conditions.map(describeCondition).join(' AND ')
            return (
              <tr key={s.key}>
                <KeyCell label="Segment" to={pathFor.segment(s.key)} name={s.key} />
                <td data-label="Conditions">
                  {s.conditions.length ? (
                    <span className="mono small truncate" title={conditions}>
                      {conditions}
                    </span>
                  ) : (
                    <span className="muted">matches everyone</span>
                  )}
                </td>
                <td data-label="Used by">
                  {users === null ? (
                    <span className="muted">—</span>
                  ) : users.length ? (
                    plural(users.length, 'flag')
                  ) : (
                    <span className="muted">unused</span>
                  )}
                </td>
                <LastChangeCell doc={s} />
              </tr>
            )
          })}
        </DataTable>
      )}
    </ListPage>
  )
}

function CreateSegmentDialog({ onClose }: { onClose: () => void }) {
  const [key, setKey] = useState('')
  const create = useApiMutation(api.createSegment, [keys.segments], (res) => navigate(pathFor.segment(res.key)))
  return (
    <CreateDialog
      noun="segment"
      mutation={create}
      onClose={onClose}
      disabled={!key.trim()}
      onSubmit={() => create.mutate({ key: key.trim(), conditions: [] })}
    >
      <KeyField
        value={key}
        onChange={setKey}
        placeholder="beta-testers"
        hint="You add its conditions on the next page. Until it has some, it matches everyone (no flag uses it yet)."
      />
    </CreateDialog>
  )
}
