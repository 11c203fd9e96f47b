// One change request (docs/change-requests.md §5): per-item diffs, a stale banner when what it changes moved
// on, the review timeline, Approve / Reject / Comment, Apply and Cancel. The server decides who may do what;
// its refusals (self-approval, missing rights, stale bases) are shown as they come.
import { useState } from 'react'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { crApi, crKeys, staleItemsOf, type ChangeRequest } from '../../change-requests-api'
import type { Json } from '../../api'
import { useApiMutation } from '../../mutations'
import { Link, pathFor } from '../../router'
import { dateTime, relativeTime } from '../../format'
import { DiffView } from '../../components/DiffView'
import { ErrorMessage } from '../../components/ErrorMessage'
import { Loading, PageHeader } from '../../components/State'
import { useSession } from '../../session'

/** What an item changes, without the bookkeeping every write moves (version, timestamps): a diff lists those
 *  as changes otherwise. */
const STAMPS = new Set(['version', 'created_at', 'updated_at'])
export function withoutStamps(doc: unknown): Json {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return doc as Json
  return Object.fromEntries(Object.entries(doc).filter(([k]) => !STAMPS.has(k))) as Json
}

const itemLink = (i: ChangeRequest['items'][number]) =>
  i.resource_type === 'flag' ? pathFor.flag(i.key) : i.resource_type === 'config' ? pathFor.config(i.key) : pathFor.segment(i.key)

export function ChangeRequestPage({ id }: { id: string }) {
  const query = useQuery({ queryKey: crKeys.one(id), queryFn: () => crApi.get(id), refetchInterval: 5_000 })
  if (query.isLoading) return <Loading label="Loading the change request…" />
  if (!query.data) return <ErrorMessage error={query.error} title="Could not load the change request" />
  return <RequestView cr={query.data} />
}

function RequestView({ cr }: { cr: ChangeRequest }) {
  const qc = useQueryClient()
  const { person } = useSession()
  // The author never approves their own request (by any credential); reviews are made by people.
  const own = !!person && cr.author.id === person.user.id
  const whyNoReview = !person
    ? 'Reviews are made by people: sign in with your account to approve or reject.'
    : own
      ? 'You wrote this request: someone else must approve it (four eyes).'
      : null
  const [comment, setComment] = useState('')
  const done = (next: ChangeRequest) => {
    qc.setQueryData(crKeys.one(cr.id), next)
    setComment('')
  }
  const invalidate = [crKeys.all]
  const review = useApiMutation(
    (decision: 'approve' | 'reject' | 'comment') =>
      crApi.review(cr.id, { decision, revision: cr.revision, ...(comment.trim() && { comment: comment.trim() }) }),
    invalidate,
    done,
  )
  const apply = useApiMutation(() => crApi.apply(cr.id, cr.revision), invalidate, done)
  const cancel = useApiMutation(() => crApi.cancel(cr.id), invalidate, done)
  const stale = staleItemsOf(cr)
  const open = cr.state === 'open' || cr.state === 'approved' || cr.state === 'scheduled'
  const busy = review.isPending || apply.isPending || cancel.isPending

  return (
    <>
      <PageHeader
        title={cr.title}
        back={<Link to="/changes">← Changes</Link>}
        subtitle={
          <>
            <span className="chip" aria-label="State">
              {cr.state}
            </span>{' '}
            by {cr.author.email ?? cr.author.name} · revision {cr.revision} ·{' '}
            <span aria-label="Approvals">
              {cr.approvals} of {cr.approvals_required} approvals
            </span>
            {cr.environments.length > 0 && <> · protects {cr.environments.join(', ')}</>}
            {cr.apply_at && (
              <>
                {' '}
                · applies at <time dateTime={cr.apply_at}>{dateTime(cr.apply_at)}</time>
              </>
            )}
          </>
        }
      />
      {cr.description && <p className="card">{cr.description}</p>}
      {open && stale.length > 0 && (
        <div className="alert alert-warning" role="alert" aria-label="Stale">
          <strong>Changed underneath:</strong> this request can no longer be applied as written. The author must edit it (approvals are then
          needed again).
          <ul className="issues">
            {stale.map((i) => (
              <li key={`${i.resource_type}:${i.key}`}>
                {i.resource_type} <code>{i.key}</code>: written against version {i.base_version ?? 'none'}, now{' '}
                {i.current_version ?? 'deleted'}
              </li>
            ))}
          </ul>
        </div>
      )}
      {cr.error && (
        <div className="alert alert-error" role="alert">
          Failed: {cr.error.code} — {cr.error.message}
        </div>
      )}

      {cr.items.map((item, n) => (
        <section key={n} className="card" aria-label={`Item ${n + 1}`}>
          <h2 className="card-title">
            {item.action.replace('_', ' ')} {item.resource_type} <Link to={itemLink(item)}>{item.key}</Link>
            {item.environment && (
              <>
                {' '}
                in <code>{item.environment}</code>
              </>
            )}
          </h2>
          <DiffView before={withoutStamps(item.before)} after={withoutStamps(item.after)} caption={`Item ${n + 1} changes`} />
        </section>
      ))}

      <section className="card" aria-label="Reviews">
        <h2 className="card-title">Reviews</h2>
        {cr.reviews.length === 0 && <p className="muted">No reviews yet.</p>}
        <ol className="timeline">
          {cr.reviews.map((r, n) => (
            <li key={n}>
              <strong>{r.reviewer.email ?? r.reviewer.name}</strong>{' '}
              {r.decision === 'approve' ? 'approved' : r.decision === 'reject' ? 'rejected' : 'commented'} revision {r.revision}{' '}
              <time className="muted small" dateTime={r.at}>
                {relativeTime(r.at)}
              </time>
              {r.comment && <p>{r.comment}</p>}
            </li>
          ))}
        </ol>
        {open && !person && whyNoReview && (
          <p className="hint" role="note" aria-label="Why no approval">
            {whyNoReview}
          </p>
        )}
        {open && person && (
          <>
            <label className="field">
              <span className="field-label">Comment</span>
              <textarea value={comment} onChange={(e) => setComment(e.target.value)} rows={2} />
            </label>
            {whyNoReview && (
              <p className="hint" role="note" aria-label="Why no approval">
                {whyNoReview}
              </p>
            )}
            <div className="btn-group">
              {!whyNoReview && (
                <button type="button" className="btn btn-primary" disabled={busy} onClick={() => review.mutate('approve')}>
                  Approve
                </button>
              )}
              {!whyNoReview && (
                <button type="button" className="btn btn-danger-outline" disabled={busy} onClick={() => review.mutate('reject')}>
                  Reject
                </button>
              )}
              <button type="button" className="btn" disabled={busy || !comment.trim()} onClick={() => review.mutate('comment')}>
                Comment
              </button>
            </div>
            <ErrorMessage error={review.error} title="Could not review" />
          </>
        )}
      </section>

      {open && (
        <section className="card" aria-label="Apply">
          <div className="btn-group">
            <button
              type="button"
              className="btn btn-primary"
              disabled={busy || cr.state === 'open' || stale.length > 0}
              onClick={() => apply.mutate(undefined)}
            >
              Apply now
            </button>
            <button type="button" className="btn btn-danger-outline" disabled={busy} onClick={() => cancel.mutate(undefined)}>
              Cancel request
            </button>
          </div>
          <ErrorMessage error={apply.error} title="Could not apply" />
          <ErrorMessage error={cancel.error} title="Could not cancel" />
        </section>
      )}
      {cr.state === 'applied' && cr.applied_at && (
        <p className="alert alert-success" role="status">
          Applied <time dateTime={cr.applied_at}>{relativeTime(cr.applied_at)}</time>
          {cr.approvers?.length ? <>, approved by {cr.approvers.map((a) => a.email ?? a.name).join(', ')}</> : null}.
        </p>
      )}
    </>
  )
}
