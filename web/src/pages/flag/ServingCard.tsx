// "Serving now": per environment, whether the flag is on there, why (its own switch, or the main switch it
// follows) and what it serves; and the emergency stop, Turn off everywhere (one audited change, asked first,
// with an Undo that rolls back to the version before, if nobody changed the flag since).
import { useState } from 'react'
import { keys, type Flag } from '../../api'
import { lifecycleApi } from '../../lifecycle-api'
import { useApiMutation } from '../../mutations'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { ErrorMessage } from '../../components/ErrorMessage'
import { StatusPill } from '../../components/State'
import { onDespiteMainSwitch, servingByEnvironment } from './serving'

export function ServingCard({ flag, environments, canWrite }: { flag: Flag; environments: string[]; canWrite: boolean }) {
  const rows = servingByEnvironment(flag, environments)
  const anyOn = !flag.archived && rows.some((r) => r.on)
  const [asking, setAsking] = useState(false)
  /** the version before the last Turn off everywhere made here, and the version it wrote */
  const [undoable, setUndoable] = useState<{ before: number; after: number } | null>(null)
  const turnOff = useApiMutation(lifecycleApi.turnOff, [keys.flags], (res, v) => {
    setAsking(false)
    setUndoable({ before: v.current, after: res.flag.version })
  })
  const undo = useApiMutation(lifecycleApi.rollback, [keys.flags], () => setUndoable(null))
  const stillOn = onDespiteMainSwitch(flag)

  return (
    <section className="card serving-card" aria-labelledby="serving-title">
      <div className="card-head">
        <h2 className="card-title" id="serving-title">
          Serving now
        </h2>
        {canWrite && !flag.archived && (
          <button
            type="button"
            className="btn btn-danger-outline"
            disabled={!anyOn}
            onClick={() => (turnOff.reset(), setAsking(true))}
            title={anyOn ? undefined : 'Off in every environment already'}
          >
            Turn off everywhere
          </button>
        )}
      </div>
      {!flag.archived && !flag.enabled && stillOn.length > 0 && (
        <p className="alert alert-warning" role="status">
          The main switch is off, but {stillOn.join(', ')}{' '}
          {stillOn.length === 1 ? 'has its own switch, which is' : 'have their own switches, which are'} on: the flag is served there.
        </p>
      )}
      {flag.archived ? (
        <p className="muted">Archived: not evaluated in any environment (applications get “not found”) until restored.</p>
      ) : (
        <table className="serving-table">
          <caption className="sr-only">What the flag serves in each environment</caption>
          <thead>
            <tr>
              <th scope="col">Environment</th>
              <th scope="col">State</th>
              <th scope="col">Why</th>
              <th scope="col">Serves</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.environment} data-testid={`serving-${r.environment || 'none'}`}>
                <th scope="row" className="mono">
                  {r.environment || <span className="muted">no environment</span>}
                </th>
                <td>
                  <StatusPill on={r.on} />
                </td>
                <td className="small">{r.why}</td>
                <td className="small">{r.serves}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {(flag.active_from || flag.active_until) && (
        <p className="hint">An active window also applies: outside it every environment serves the off value.</p>
      )}
      {undoable && undoable.after === flag.version && (
        <div className="alert alert-success" role="status">
          Turned off everywhere (version {undoable.after}).{' '}
          <button
            type="button"
            className="btn btn-small"
            disabled={undo.isPending}
            onClick={() => undo.mutate({ key: flag.key, version: undoable.before, current: undoable.after })}
          >
            Undo
          </button>
        </div>
      )}
      <ErrorMessage error={undo.error} title="Could not undo (the flag was changed since? Its history can roll it back)" />
      {asking && (
        <ConfirmDialog
          title={`Turn “${flag.key}” off everywhere?`}
          confirmLabel="Turn off everywhere"
          onConfirm={() => turnOff.mutate({ key: flag.key, current: flag.version })}
          onCancel={() => setAsking(false)}
          pending={turnOff.isPending}
          error={turnOff.error}
        >
          <p>
            One change switches off the main switch
            {flag.environments && Object.keys(flag.environments).length > 0
              ? ` and the own switch of ${Object.keys(flag.environments).join(', ')}`
              : ''}
            : every environment serves the off value at once. Values, rules and environment values stay as they are, and Undo (or the
            history) brings the switches back.
          </p>
          <p className="muted small">
            Scheduled changes still run when due: cancel them under Scheduled changes if they would switch it on again.
          </p>
        </ConfirmDialog>
      )}
    </section>
  )
}
