// The Changes inbox (docs/change-requests.md §5): requests awaiting my review, mine, scheduled, recent.
import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { crApi, crKeys, type Inbox } from '../../change-requests-api'
import { Link } from '../../router'
import { relativeTime } from '../../format'
import { ErrorMessage } from '../../components/ErrorMessage'
import { Empty, Loading, PageHeader } from '../../components/State'

const TABS: { inbox: Inbox; label: string }[] = [
  { inbox: 'awaiting', label: 'Awaiting my review' },
  { inbox: 'mine', label: 'Mine' },
  { inbox: 'scheduled', label: 'Scheduled' },
  { inbox: 'recent', label: 'Recent' },
]

/** How many requests await the signed-in person's review, kept fresh for the navigation's badge. */
export const awaitingCountQuery = () => ({
  queryKey: crKeys.awaitingCount,
  queryFn: async () => (await crApi.list('awaiting', 1)).total,
  refetchInterval: 10_000,
})

export function Changes() {
  const [inbox, setInbox] = useState<Inbox>('awaiting')
  const query = useQuery({ queryKey: crKeys.list(inbox), queryFn: () => crApi.list(inbox), refetchInterval: 10_000 })
  return (
    <>
      <PageHeader title="Changes" subtitle="Change requests for protected environments" />
      <div className="toolbar">
        <div className="segmented" role="group" aria-label="Show">
          {TABS.map((t) => (
            <button key={t.inbox} type="button" className={inbox === t.inbox ? 'btn btn-small active' : 'btn btn-small'} aria-pressed={inbox === t.inbox} onClick={() => setInbox(t.inbox)}>
              {t.label}
            </button>
          ))}
        </div>
      </div>
      {query.isLoading && <Loading label="Loading change requests…" />}
      <ErrorMessage error={query.error} title="Could not load change requests" />
      {query.data && query.data.change_requests.length === 0 && <Empty title="Nothing here" />}
      {query.data && query.data.change_requests.length > 0 && (
        <ul className="cr-list" aria-label="Change requests">
          {query.data.change_requests.map((cr) => (
            <li key={cr.id} className="card cr-row">
              <Link to={`/changes/${cr.id}`}>{cr.title}</Link>{' '}
              <span className="chip">{cr.state}</span>{' '}
              <span className="muted small">
                by {cr.author.email ?? cr.author.name} · {cr.approvals}/{cr.approvals_required} approvals · {cr.environments.join(', ') || 'no protected environment'} · changed {relativeTime(cr.updated_at)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  )
}
