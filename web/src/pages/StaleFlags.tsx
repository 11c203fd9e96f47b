// The stale flags (GET /flags?stale=true, live ones only): each with why it is stale and when it was last
// evaluated, and a one-click Archive. An archived flag leaves the list; the notice it leaves can undo it.
import { useState } from 'react'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { keys, type ListedFlag, type PageParams } from '../api'
import { insightApi } from '../insight-api'
import { staleQueries } from '../queries'
import { pathFor } from '../router'
import { useSession } from '../session'
import { plural } from '../format'
import { useApiMutation } from '../mutations'
import { DataTable, KeyCell, LastChangeCell } from '../components/DataTable'
import { ErrorMessage } from '../components/ErrorMessage'
import { ListStates } from '../components/ListStates'
import { Empty, PageHeader } from '../components/State'
import { FlagTabs } from './flags/FlagTabs'
import { LastEvaluatedCell } from './flags/UsageCells'

const REASONS: Record<string, string> = {
  'never evaluated': 'Never evaluated since it was created',
  'not evaluated recently': 'Not evaluated recently',
  'serves one variant': 'Serves the same variant to everyone, unchanged',
}

export function StaleFlags() {
  const { can } = useSession()
  const [page, setPage] = useState<PageParams>({ offset: 0, limit: 25 })
  const query = useQuery({ ...staleQueries.page(page), placeholderData: keepPreviousData })
  // the last flag archived or restored here, at the version that made (for Undo)
  const [done, setDone] = useState<{ key: string; version: number; archived: boolean } | null>(null)
  const archive = useApiMutation(insightApi.archiveFlag, [keys.flags], (r) =>
    setDone({ key: r.key, version: r.flag.version, archived: true }),
  )
  const restore = useApiMutation(insightApi.restoreFlag, [keys.flags], (r) =>
    setDone({ key: r.key, version: r.flag.version, archived: false }),
  )
  const busy = (key: string) => archive.isPending && archive.variables?.key === key

  return (
    <>
      <PageHeader title="Flags" subtitle={query.data ? plural(query.data.total, 'stale flag') : 'Flags nobody needs any more'} />
      <FlagTabs current="/stale" />
      <p className="muted">
        A flag is stale when it has not been evaluated for <code>STALE_AFTER_DAYS</code> (30 days by default), or has served one variant to
        everyone and not changed for that long.
      </p>
      {done && (
        <div className="alert alert-info" role="status">
          {done.archived ? 'Archived' : 'Restored'} <strong className="mono">{done.key}</strong>.{' '}
          {done.archived && can.writeFlags && (
            <button type="button" className="btn-link" onClick={() => restore.mutate(done)} disabled={restore.isPending}>
              Undo
            </button>
          )}
        </div>
      )}
      <ErrorMessage error={archive.error} title="Could not archive the flag" />
      <ErrorMessage error={restore.error} title="Could not restore the flag" />
      <ListStates
        query={query}
        what="the stale flags"
        loadingLabel="Loading stale flags…"
        none={(data) => data.items.length === 0}
        empty={<Empty title="No stale flags">Every flag has been evaluated recently and serves more than one variant.</Empty>}
        paging={{ page, total: (data) => data.total, onChange: setPage, label: 'Stale flag pages' }}
      >
        {({ items }) => (
          <DataTable
            caption="Stale flags"
            className="stale-table"
            columns={[
              'Flag',
              'Why',
              'Last evaluated',
              'Last change',
              ...(can.writeFlags ? [{ label: 'Actions', hidden: true as const }] : []),
            ]}
          >
            {items.map((f: ListedFlag) => (
              <tr key={f.key}>
                <KeyCell label="Flag" to={pathFor.flag(f.key)} name={f.key} />
                <td data-label="Why">{REASONS[f.stale_reason ?? ''] ?? f.stale_reason}</td>
                <LastEvaluatedCell flag={f} />
                <LastChangeCell doc={f} />
                {can.writeFlags && (
                  <td className="cell-actions">
                    <button
                      type="button"
                      className="btn btn-small"
                      aria-label={`Archive ${f.key}`}
                      disabled={busy(f.key)}
                      onClick={() => archive.mutate(f)}
                    >
                      {busy(f.key) ? 'Archiving…' : 'Archive'}
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </DataTable>
        )}
      </ListStates>
    </>
  )
}
