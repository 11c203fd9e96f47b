// One segment: its conditions (saved with If-Match), the flags that use it, delete (force when in use).
import { useState, type FormEvent } from 'react'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { ApiError, api, keys, type Segment } from '../api'
import { Link, navigate, pathFor } from '../router'
import { dateTime, relativeTime } from '../format'
import { useApiMutation } from '../mutations'
import { ConditionEditor, conditionToDraft, draftsToConditions, type ConditionDraft } from '../components/ConditionEditor'
import { ConfirmDialog } from '../components/ConfirmDialog'
import { changedFields, useVersionedSave } from '../components/ConflictDialog'
import { ErrorMessage } from '../components/ErrorMessage'
import { SaveBar } from '../components/SaveBar'
import { Empty, Loading, PageHeader } from '../components/State'
import { flagsUsingSegment, useFlagsForUsage } from './Segments'

type SegmentDoc = Segment & Record<string, unknown>

export function SegmentPage({ segmentKey }: { segmentKey: string }) {
  const qc = useQueryClient()
  const segments = useQuery({ queryKey: keys.segments, queryFn: api.segments })
  const flags = useFlagsForUsage()
  const segment = segments.data?.find((s) => s.key === segmentKey)
  const [deleting, setDeleting] = useState(false)
  const del = useApiMutation((force: boolean) => api.deleteSegment(segmentKey, force), [keys.segments, keys.flags], () => navigate('/segments'))

  if (segments.isLoading) return <Loading label="Loading segment…" />
  if (segments.isError) return <ErrorMessage error={segments.error} title="Could not load the segment" />
  if (!segment) {
    return (
      <Empty title={`Segment “${segmentKey}” was not found`}>
        <Link to="/segments">Back to segments</Link>
      </Empty>
    )
  }
  const users = flags.data ? flagsUsingSegment(flags.data, segment.key) : null
  const inUse = del.error instanceof ApiError && del.error.code === 'IN_USE'
  return (
    <>
      <PageHeader
        back={<Link to="/segments">← Segments</Link>}
        title={<span className="mono">{segment.key}</span>}
        subtitle={
          <>
            version {segment.version}
            {segment.updated_at && (
              <>
                {' '}
                · changed{' '}
                <time dateTime={segment.updated_at} title={dateTime(segment.updated_at)}>
                  {relativeTime(segment.updated_at)}
                </time>
              </>
            )}
          </>
        }
        actions={
          <button type="button" className="btn btn-danger-outline" onClick={() => (del.reset(), setDeleting(true))}>
            Delete segment
          </button>
        }
      />
      <div className="detail-grid">
        <div className="detail-main">
          <SegmentEditor segment={segment} refetch={async () => (await qc.fetchQuery({ queryKey: keys.segments, queryFn: api.segments, staleTime: 0 })).find((s) => s.key === segmentKey) as SegmentDoc | undefined} />
        </div>
        <aside className="detail-side">
          <section className="card">
            <h2 className="card-title">Used by flags</h2>
            {users === null ? (
              <p className="muted">{flags.isLoading ? 'Checking flags…' : 'This token cannot read flags, so usage is unknown.'}</p>
            ) : users.length ? (
              <ul className="link-list">
                {users.map((k) => (
                  <li key={k}>
                    <Link to={pathFor.flag(k)} className="mono">
                      {k}
                    </Link>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">No flag rule uses this segment.</p>
            )}
          </section>
        </aside>
      </div>
      {deleting && (
        <ConfirmDialog
          title={`Delete segment “${segment.key}”?`}
          confirmLabel="Delete segment"
          onConfirm={() => del.mutate(false)}
          onCancel={() => setDeleting(false)}
          pending={del.isPending}
          error={del.error}
          extra={
            inUse && (
              <button type="button" className="btn btn-danger-outline" onClick={() => del.mutate(true)}>
                Force delete
              </button>
            )
          }
        >
          <p>{users?.length ? `${users.length} flag rule(s) reference this segment; their segment conditions will never match after deletion.` : 'No flag uses this segment.'}</p>
        </ConfirmDialog>
      )}
    </>
  )
}

function SegmentEditor({ segment, refetch }: { segment: Segment; refetch: () => Promise<SegmentDoc | undefined> }) {
  const [base, setBase] = useState<Segment | null>(null)
  const [drafts, setDrafts] = useState<ConditionDraft[]>([])
  const built = draftsToConditions(drafts, 'Segment')
  const patch = base && built.ok ? changedFields({ conditions: base.conditions }, { conditions: built.conditions }) : {}
  const dirty = !built.ok || Object.keys(patch).length > 0
  if (!base || (segment.version !== base.version && !dirty)) {
    setBase(segment)
    setDrafts(segment.conditions.map(conditionToDraft))
  }
  const saver = useVersionedSave<SegmentDoc>({
    name: `Segment “${segment.key}”`,
    put: (p, version) => api.updateSegment(segment.key, p as { conditions: Segment['conditions'] }, version),
    fetchCurrent: refetch,
    invalidate: [keys.segments],
    onSaved: () => setBase(null),
    onReload: (current) => {
      if (!current) return navigate('/segments')
      setBase(current)
      setDrafts(current.conditions.map(conditionToDraft))
    },
  })
  if (!base) return null
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (built.ok && Object.keys(patch).length) saver.save(patch, base as SegmentDoc)
  }
  return (
    <form className="form" onSubmit={submit} aria-label="Edit segment">
      {segment.version !== base.version && (
        <div className="alert alert-warning" role="status">
          Someone saved version {segment.version} while you were editing. Saving will ask how to merge.
        </div>
      )}
      <section className="card">
        <h2 className="card-title">Conditions</h2>
        <p className="hint">A context is in the segment when every condition holds.</p>
        <ConditionEditor label="Segment" conditions={drafts} onChange={setDrafts} allowSegments={false} />
      </section>
      <SaveBar dirty={dirty} problems={built.ok ? [] : [built.error]} pending={saver.pending} error={saver.error} onDiscard={() => setDrafts(base.conditions.map(conditionToDraft))} />
      {saver.dialog}
    </form>
  )
}
