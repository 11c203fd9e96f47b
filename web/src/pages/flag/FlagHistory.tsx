// A flag's history: its versions newest first (who, when, which change), the difference between a chosen
// version and the current one, read the way a rollback goes (from the current definition to that version's),
// brought into view when chosen, and a rollback to it (a new version equal to it, at the version shown).
import { useEffect, useRef, useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { keys, type Flag, type Json } from '../../api'
import { lifecycleApi } from '../../lifecycle-api'
import { dateTime } from '../../format'
import { ConfirmDialog, useConfirmAction } from '../../components/ConfirmDialog'
import { DiffView } from '../../components/DiffView'
import { ErrorMessage } from '../../components/ErrorMessage'
import { Loading } from '../../components/State'

/** The definition only (what a rollback restores), so the diff shows what would change. */
const definition = (f: Record<string, unknown>) => {
  const { version: _v, created_at: _c, updated_at: _u, key: _k, archived: _a, archived_at: _at, ...rest } = f
  return rest as Json
}

export function FlagHistory({ flag, canWrite }: { flag: Flag; canWrite: boolean }) {
  const history = useQuery({ queryKey: [...keys.flags, 'history', flag.key, flag.version], queryFn: () => lifecycleApi.history(flag.key) })
  const [chosen, setChosen] = useState<number | null>(null)
  const rollback = useConfirmAction(
    (version: number) => lifecycleApi.rollback({ key: flag.key, version, current: flag.version }),
    [keys.flags],
    () => setChosen(null),
  )
  const versions = history.data?.versions ?? []
  const picked = versions.find((v) => v.version === chosen)
  const diffRef = useRef<HTMLDivElement>(null)
  // The list sits beside (or, on narrow screens, far below) the editor: show the diff where it opens.
  useEffect(() => {
    if (chosen !== null) diffRef.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' })
  }, [chosen])
  return (
    <section className="card" aria-labelledby="history-title">
      <h2 className="card-title" id="history-title">
        History
      </h2>
      {history.isLoading ? (
        <Loading label="Loading history…" />
      ) : history.isError ? (
        <ErrorMessage error={history.error} title="Could not load the history" />
      ) : (
        <ol className="history-list">
          {versions.map((v) => (
            <li key={v.version} className={v.version === chosen ? 'history-row selected' : 'history-row'}>
              <button
                type="button"
                className="btn-link"
                aria-label={`Version ${v.version}`}
                onClick={() => setChosen(v.version === chosen ? null : v.version)}
              >
                v{v.version}
              </button>
              <span className="badge">{v.action}</span>
              <span className="small">{dateTime(v.at)}</span>
              <span className="muted small" title={v.actor}>
                {v.actor_name ? `${v.actor_name} (${v.actor})` : v.actor}
              </span>
              {v.version === flag.version && <span className="muted small">(current)</span>}
            </li>
          ))}
        </ol>
      )}
      {picked && picked.version !== flag.version && (
        <div className="history-diff" ref={diffRef} data-testid="history-diff">
          <h3>
            Rolling back to v{picked.version} would change: current (v{flag.version}) → v{picked.version}
          </h3>
          <DiffView
            before={definition(flag as unknown as Record<string, unknown>)}
            after={definition(picked.flag as Record<string, unknown>)}
            beforeLabel={`Now (v${flag.version})`}
            afterLabel={`v${picked.version}`}
            caption={`Current definition compared with version ${picked.version}`}
          />
          {canWrite && !flag.archived && (
            <button type="button" className="btn" onClick={() => rollback.ask(picked.version)}>
              Roll back to v{picked.version}
            </button>
          )}
        </div>
      )}
      {rollback.target !== null && (
        <ConfirmDialog title={`Roll back to version ${rollback.target}?`} confirmLabel="Roll back" {...rollback.dialogProps}>
          <p>
            Writes version {flag.version + 1} with the definition of version {rollback.target}. Applications get it at once; the history
            keeps every version.
          </p>
        </ConfirmDialog>
      )}
    </section>
  )
}
