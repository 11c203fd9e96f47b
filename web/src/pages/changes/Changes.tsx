// The Changes inbox (docs/change-requests.md §5): requests awaiting my review, mine, scheduled, recent, and
// the changes applied through a protected environment without review (emergency off, break glass).
import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { crApi, crKeys, type Inbox } from '../../change-requests-api'
import { Link, pathFor } from '../../router'
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
  const [inbox, setInbox] = useState<Inbox | 'unreviewed'>('awaiting')
  const requests = inbox !== 'unreviewed'
  const query = useQuery({
    queryKey: crKeys.list(requests ? inbox : 'recent'),
    queryFn: () => crApi.list(requests ? inbox : 'recent'),
    refetchInterval: 10_000,
    enabled: requests,
  })
  return (
    <>
      <PageHeader title="Changes" subtitle="Change requests for protected environments" />
      <div className="toolbar">
        <div className="segmented" role="group" aria-label="Show">
          {TABS.map((t) => (
            <button
              key={t.inbox}
              type="button"
              className={inbox === t.inbox ? 'btn btn-small active' : 'btn btn-small'}
              aria-pressed={inbox === t.inbox}
              onClick={() => setInbox(t.inbox)}
            >
              {t.label}
            </button>
          ))}
          <button
            type="button"
            className={inbox === 'unreviewed' ? 'btn btn-small active' : 'btn btn-small'}
            aria-pressed={inbox === 'unreviewed'}
            onClick={() => setInbox('unreviewed')}
          >
            Applied without review
          </button>
        </div>
      </div>
      {!requests && <WithoutReview />}
      {requests && query.isLoading && <Loading label="Loading change requests…" />}
      {requests && <ErrorMessage error={query.error} title="Could not load change requests" />}
      {requests && query.data && query.data.change_requests.length === 0 && <Empty title="Nothing here" />}
      {requests && query.data && query.data.change_requests.length > 0 && (
        <ul className="cr-list" aria-label="Change requests">
          {query.data.change_requests.map((cr) => (
            <li key={cr.id} className="card cr-row">
              <Link to={`/changes/${cr.id}`}>{cr.title}</Link> <span className="chip">{cr.state}</span>{' '}
              <span className="muted small">
                by {cr.author.email ?? cr.author.name} · {cr.approvals}/{cr.approvals_required} approvals ·{' '}
                {cr.environments.join(', ') || 'no protected environment'} · changed {relativeTime(cr.updated_at)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  )
}

const linkOf = (type: string, key: string) =>
  type === 'flag' ? pathFor.flag(key) : type === 'config' ? pathFor.config(key) : pathFor.segment(key)

/** Changes made through a protected environment without a request: an emergency off (it only stopped
 *  serving) or a project admin's break glass (with their reason). */
function WithoutReview() {
  const query = useQuery({ queryKey: crKeys.withoutReview, queryFn: crApi.withoutReview, refetchInterval: 10_000 })
  if (query.isLoading) return <Loading label="Loading changes applied without review…" />
  if (query.error) return <ErrorMessage error={query.error} title="Could not load the changes applied without review" />
  if (!query.data?.length) return <Empty title="Nothing applied without review" />
  return (
    <ul className="cr-list" aria-label="Applied without review">
      {query.data.map((c) => (
        <li key={c.id} className="card cr-row">
          <span className="chip">applied without review</span> {c.resource_type}{' '}
          <Link to={linkOf(c.resource_type, c.resource_key)}>{c.resource_key}</Link>{' '}
          <span className="muted small">
            {c.reason === 'emergency_off' ? 'emergency off (it only stopped serving)' : <>break glass: “{c.bypass_reason}”</>} · by{' '}
            {c.actor} · {relativeTime(c.timestamp)}
          </span>
        </li>
      ))}
    </ul>
  )
}
