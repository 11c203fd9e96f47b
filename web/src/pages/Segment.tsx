// One segment: its conditions (saved with If-Match), the flags that use it, delete (force when in use). A
// segment without conditions matches every context, so saving one takes an explicit confirmation.
import { useState } from 'react'
import { ApiError, api, keys, type Condition, type Segment } from '../api'
import { Link, navigate, pathFor } from '../router'
import { isNotFound, segmentQueries, useResource } from '../queries'
import { ConditionEditor, conditionToDraft, draftsToConditions, type ConditionDraft } from '../components/ConditionEditor'
import { ConfirmDialog, useConfirmAction } from '../components/ConfirmDialog'
import { DocumentForm, VersionStamp, useDocumentEditor, type Built } from '../components/DocumentEditor'
import { Loaded } from '../components/Loaded'
import { PageHeader } from '../components/State'
import { flagsUsingSegment, useFlagsForUsage } from './Segments'

export function SegmentPage({ segmentKey }: { segmentKey: string }) {
  const { query, fetchCurrent } = useResource(segmentQueries.detail(segmentKey))
  const flags = useFlagsForUsage()
  const del = useConfirmAction(
    (_: string, force: boolean) => api.deleteSegment(segmentKey, force),
    [keys.segments, keys.flags],
    () => navigate('/segments', { force: true }),
  )
  const inUse = del.error instanceof ApiError && del.error.code === 'IN_USE'

  return (
    <Loaded query={query} what="segment" name={segmentKey} back={{ to: '/segments', label: 'Back to segments' }}>
      {(segment) => {
        const users = flags.data ? flagsUsingSegment(flags.data, segment.key) : null
        return (
          <>
            <PageHeader
              back={<Link to="/segments">← Segments</Link>}
              title={<span className="mono">{segment.key}</span>}
              subtitle={<VersionStamp doc={segment} />}
              actions={
                !isNotFound(query.error) && (
                  <button type="button" className="btn btn-danger-outline" onClick={() => del.ask(segment.key)}>
                    Delete segment
                  </button>
                )
              }
            />
            <div className="detail-grid">
              <div className="detail-main">
                <SegmentEditor segment={segment} fetchCurrent={fetchCurrent} deleted={isNotFound(query.error)} />
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
            {del.target !== null && (
              <ConfirmDialog
                title={`Delete segment “${segment.key}”?`}
                confirmLabel="Delete segment"
                {...del.dialogProps}
                extra={
                  inUse && (
                    <button type="button" className="btn btn-danger-outline" onClick={del.force}>
                      Force delete
                    </button>
                  )
                }
              >
                <p>
                  {users?.length
                    ? `${users.length} flag rule(s) reference this segment; their segment conditions will never match after deletion.`
                    : 'No flag uses this segment.'}
                </p>
              </ConfirmDialog>
            )}
          </>
        )
      }}
    </Loaded>
  )
}

const segmentBody = (s: Segment) => ({ conditions: s.conditions })

const EMPTY_PROBLEM = 'A segment without conditions matches every context: confirm below to save it empty.'

function buildSegment(drafts: ConditionDraft[], emptyConfirmed: boolean): Built<{ conditions: Condition[] }> {
  const built = draftsToConditions(drafts, 'Segment')
  if (!built.ok) return { ok: false, problems: [built.error] }
  if (built.conditions.length === 0 && !emptyConfirmed) return { ok: false, problems: [EMPTY_PROBLEM] }
  return { ok: true, body: { conditions: built.conditions } }
}

function SegmentEditor({
  segment,
  fetchCurrent,
  deleted,
}: {
  segment: Segment
  fetchCurrent: () => Promise<Segment | undefined>
  deleted: boolean
}) {
  const [emptyConfirmed, setEmptyConfirmed] = useState(false)
  const { draft, setDraft, form } = useDocumentEditor({
    resource: { type: 'segment', key: segment.key },
    doc: segment,
    deleted,
    name: `Segment “${segment.key}”`,
    toDraft: (s: Segment) => s.conditions.map(conditionToDraft),
    // Asked when a save would take the last condition away (a new segment starts empty: nothing to ask).
    build: (drafts: ConditionDraft[], stored: Segment) => buildSegment(drafts, emptyConfirmed || stored.conditions.length === 0),
    bodyOf: segmentBody,
    put: async (p, version) => (await api.updateSegment(segment.key, p as { conditions: Condition[] }, version)).segment,
    fetchCurrent,
    invalidate: [keys.segments],
    listPath: '/segments',
  })
  if (!draft) return null
  return (
    <DocumentForm form={form} label="Edit segment">
      <section className="card">
        <h2 className="card-title">Conditions</h2>
        <p className="hint">A context is in the segment when every condition holds.</p>
        <ConditionEditor label="Segment" conditions={draft} onChange={setDraft} allowSegments={false} />
        {draft.length === 0 && (
          <div className="alert alert-warning" role="status">
            <p>
              <strong>No conditions: this segment matches everyone.</strong> Every flag rule that uses it applies to every context.
            </p>
            {segment.conditions.length > 0 && (
              <label className="checkbox">
                <input type="checkbox" checked={emptyConfirmed} onChange={(e) => setEmptyConfirmed(e.target.checked)} />
                Save it without conditions (it matches everyone)
              </label>
            )}
          </div>
        )}
      </section>
    </DocumentForm>
  )
}
