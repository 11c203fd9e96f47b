// One flag: its header (state, type, version), its usage chart, the editor (or a read-only view), archive,
// restore and delete, the evaluation playground (on the draft), its history and its scheduled changes. Those
// parts live in pages/flag/.
import { useState } from 'react'
import { api, keys } from '../api'
import { insightApi } from '../insight-api'
import { Link, navigate } from '../router'
import { useSession } from '../session'
import { flagQueries, isNotFound, useResource } from '../queries'
import { valueType } from '../format'
import { ConfirmDialog, useConfirmAction } from '../components/ConfirmDialog'
import { VersionStamp } from '../components/DocumentEditor'
import { Loaded } from '../components/Loaded'
import { Loading, PageHeader, StatusPill } from '../components/State'
import { FlagEditor } from './flag/FlagEditor'
import { FlagReadOnly } from './flag/FlagReadOnly'
import { EnvironmentAccess } from './flag/EnvironmentAccess'
import { Playground } from './flag/Playground'
import { FlagSchedules } from './flag/FlagSchedules'
import { UsagePanel } from './flag/UsagePanel'
import { FlagHistory } from './flag/FlagHistory'
import { ServingCard } from './flag/ServingCard'
import { ReleasePlans } from './flag/ReleasePlans'
import type { FlagBody } from './flag/draft'

export function FlagPage({ flagKey }: { flagKey: string }) {
  const { can, project, person } = useSession()
  const { query, fetchCurrent } = useResource(flagQueries.detail(flagKey))
  const environments = project.data?.environments ?? []
  // Archive, delete, rollback and the flag's own fields affect every environment (teams.md §4).
  const writeAll = can.writeEverywhere
  const del = useConfirmAction(
    () => api.deleteFlag(flagKey),
    [keys.flags],
    () => navigate('/', { force: true }),
  )
  const archive = useConfirmAction(
    (f: { key: string; version: number; archived?: boolean }) => (f.archived ? insightApi.restoreFlag(f) : insightApi.archiveFlag(f)),
    [keys.flags],
  )
  const [draft, setDraft] = useState<FlagBody | null>(null)

  if (project.isLoading) return <Loading label="Loading flag…" />
  return (
    <Loaded query={query} what="flag" name={flagKey} back={{ to: '/', label: 'Back to flags' }}>
      {(flag) => (
        <>
          <PageHeader
            back={<Link to="/">← Flags</Link>}
            title={<span className="mono">{flag.key}</span>}
            subtitle={
              <>
                <StatusPill on={flag.enabled} /> <span className="badge">{valueType(flag.value)}</span> <VersionStamp doc={flag} />
              </>
            }
            actions={
              writeAll &&
              !isNotFound(query.error) && (
                <div className="btn-group">
                  <button type="button" className="btn" onClick={() => archive.ask(flag)}>
                    {flag.archived ? 'Restore flag' : 'Archive flag'}
                  </button>
                  <button type="button" className="btn btn-danger-outline" onClick={() => del.ask(flag.key)}>
                    Delete flag
                  </button>
                </div>
              )
            }
          />
          {flag.archived && (
            <p className="alert alert-warning" role="status">
              Archived {flag.archived_at ? `on ${new Date(flag.archived_at).toLocaleString()}` : ''}: not evaluated anywhere (applications
              get “not found”) and read-only until restored.
            </p>
          )}
          {(flag.description || flag.tags?.length || flag.owner) && (
            <p className="flag-about">
              {flag.description && <span>{flag.description}</span>}
              {flag.tags?.map((t) => (
                <span key={t} className="chip">
                  {t}
                </span>
              ))}
              {flag.owner && <span className="muted small">Owner: {flag.owner}</span>}
            </p>
          )}
          {/* On a phone the editor comes first (styles/switches.css orders these). */}
          <div className="flag-page">
            <ServingCard flag={flag} environments={environments} canWrite={writeAll} />
            <div className="insight-grid">
              <UsagePanel flagKey={flag.key} environments={environments} />
              <FlagSchedules flag={flag} environments={environments} />
              {!flag.archived && <ReleasePlans flag={flag} environments={environments} />}
            </div>
            <div className="detail-grid">
              <div className="detail-main">
                {!can.writeFlags || flag.archived ? (
                  <FlagReadOnly
                    flag={flag}
                    note={
                      person
                        ? 'Read-only: your role can read flags but not change them or propose changes; ' +
                          'a project admin can change your role under Members.'
                        : undefined
                    }
                  />
                ) : writeAll ? (
                  <FlagEditor
                    flag={flag}
                    environments={environments}
                    fetchCurrent={fetchCurrent}
                    deleted={isNotFound(query.error)}
                    onDraft={setDraft}
                  />
                ) : (
                  <>
                    <EnvironmentAccess flag={flag} environments={environments} writeEnv={can.writeEnv} />
                    <FlagReadOnly flag={flag} note={null} />
                  </>
                )}
              </div>
              <aside className="detail-side">
                {!flag.archived && <Playground flagKey={flag.key} environments={environments} draft={writeAll ? draft : undefined} />}
                <FlagHistory flag={flag} canWrite={writeAll} />
              </aside>
            </div>
          </div>
          {archive.target !== null && (
            <ConfirmDialog
              title={flag.archived ? `Restore flag “${flag.key}”?` : `Archive flag “${flag.key}”?`}
              confirmLabel={flag.archived ? 'Restore flag' : 'Archive flag'}
              danger={!flag.archived}
              {...archive.dialogProps}
            >
              <p>
                {flag.archived
                  ? 'Applications evaluate it again at once, as it was when archived.'
                  : 'Applications get “not found” for it from now on; it keeps its key and history and can be restored.'}
              </p>
            </ConfirmDialog>
          )}
          {del.target !== null && (
            <ConfirmDialog title={`Delete flag “${flag.key}”?`} confirmLabel="Delete flag" {...del.dialogProps}>
              <p>
                Applications evaluating this flag will get “not found” from now on. This cannot be undone (the audit log keeps its last
                state).
              </p>
            </ConfirmDialog>
          )}
        </>
      )}
    </Loaded>
  )
}
