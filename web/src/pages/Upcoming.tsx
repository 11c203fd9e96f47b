// The project's scheduled changes: pending ones, soonest first, each with a countdown (or all of them,
// latest first after the pending ones), and Cancel for tokens that may change flags.
import { useState } from 'react'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import type { PageParams, ScheduleStatus as Status } from '../api'
import { scheduleQueries } from '../queries'
import { Link, pathFor } from '../router'
import { useSession } from '../session'
import { plural } from '../format'
import { DataTable } from '../components/DataTable'
import { ListStates } from '../components/ListStates'
import { Empty, PageHeader } from '../components/State'
import { changeText, ScheduleStatus, ScheduleWhen, useCancelSchedule } from './schedules/parts'

const FILTERS: { status: Status | undefined; label: string }[] = [
  { status: 'pending', label: 'Pending' },
  { status: undefined, label: 'All' },
]

export function Upcoming() {
  const { can } = useSession()
  const [status, setStatus] = useState<Status | undefined>('pending')
  const [page, setPage] = useState<PageParams>({ offset: 0, limit: 25 })
  const query = useQuery({ ...scheduleQueries.project(status, page), placeholderData: keepPreviousData })
  const cancel = useCancelSchedule()

  return (
    <>
      <PageHeader
        title="Upcoming changes"
        subtitle={
          query.data ? plural(query.data.total, status === 'pending' ? 'pending change' : 'scheduled change') : 'Scheduled changes to flags'
        }
      />
      <div className="toolbar">
        <div className="segmented" role="group" aria-label="Show">
          {FILTERS.map((f) => (
            <button
              key={f.label}
              type="button"
              className={status === f.status ? 'btn btn-small active' : 'btn btn-small'}
              aria-pressed={status === f.status}
              onClick={() => {
                setStatus(f.status)
                setPage((p) => ({ ...p, offset: 0 }))
              }}
            >
              {f.label}
            </button>
          ))}
        </div>
      </div>
      <ListStates
        query={query}
        what="the scheduled changes"
        loadingLabel="Loading scheduled changes…"
        none={(data) => data.schedules.length === 0}
        empty={
          <Empty title={status === 'pending' ? 'Nothing scheduled' : 'No scheduled changes yet'}>
            Schedule a change from a flag’s page.
          </Empty>
        }
        paging={{ page, total: (data) => data.total, onChange: setPage, label: 'Schedule pages' }}
      >
        {({ schedules: rows }) => (
          <DataTable
            caption="Scheduled changes"
            className="schedules-table"
            columns={[
              'When',
              'Flag',
              'Change',
              'Status',
              'Note',
              'By',
              ...(can.writeFlags ? [{ label: 'Actions', hidden: true as const }] : []),
            ]}
          >
            {rows.map((s) => (
              <tr key={s.id}>
                <td data-label="When">
                  <ScheduleWhen schedule={s} />
                </td>
                <td data-label="Flag">
                  <Link to={pathFor.flag(s.flag_key)} className="row-title mono">
                    {s.flag_key}
                  </Link>
                </td>
                <td data-label="Change">{changeText(s.change)}</td>
                <td data-label="Status">
                  <ScheduleStatus schedule={s} />
                </td>
                <td data-label="Note">{s.note ?? <span className="muted">—</span>}</td>
                <td data-label="By">
                  <code className="small">{s.created_by}</code>
                </td>
                {can.writeFlags && <td className="cell-actions">{cancel.button(s)}</td>}
              </tr>
            ))}
          </DataTable>
        )}
      </ListStates>
      {cancel.dialog}
    </>
  )
}
