// Import / export (docs/as-code.md): download the project as a YAML or JSON document; upload or paste one,
// see the plan as a diff (every create, update and delete with its operations, and every error), then
// Apply exactly that plan (If-Match on the plan id: a change in between is refused, nothing is written).
import { useState, type ChangeEvent } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { asCodeApi, needsRequest, type ImportPlan, type PlanChange } from '../as-code-api'
import { navigate } from '../router'
import { useSession } from '../session'
import { ErrorMessage } from '../components/ErrorMessage'
import { PageHeader } from '../components/State'

const SIGN = { create: '+', update: '~', delete: '−' } as const
const show = (v: unknown) => (v === undefined ? '' : JSON.stringify(v))
/** "1 to create, 1 to update, 0 to delete, 0 unchanged" */
const planSummary = (s: ImportPlan['summary']) =>
  `${s.create} to create, ${s.update} to update, ${s.delete} to delete, ${s.unchanged} unchanged`

function ChangeRow({ change }: { change: PlanChange }) {
  return (
    <li className={`plan-change plan-${change.action}`} data-testid="plan-change">
      <div>
        <strong aria-hidden="true">{SIGN[change.action]}</strong> {change.action} {change.resource_type} <code>{change.key}</code>
        {change.current_version !== null && <span className="muted small"> (version {change.current_version})</span>}
      </div>
      {change.action === 'update' && (
        <table className="plan-diff">
          <tbody>
            {change.diff.map((op, i) => (
              <tr key={i}>
                <td className="mono">{op.op}</td>
                <td className="mono">{op.path}</td>
                <td className="mono">{show(op.value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </li>
  )
}

export function ImportExport() {
  const { can } = useSession()
  const client = useQueryClient()
  const [format, setFormat] = useState<'yaml' | 'json'>('yaml')
  const [exported, setExported] = useState<string | null>(null)
  const [text, setText] = useState('')
  const [prune, setPrune] = useState(false)
  const [plan, setPlan] = useState<ImportPlan | null>(null)
  const [applied, setApplied] = useState<ImportPlan | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const canImport = can.writeFlags || can.writeConfigs

  const run = async (fn: () => Promise<void>) => {
    setBusy(true)
    setError(null)
    try {
      await fn()
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  const edit = (value: string) => {
    setText(value)
    setPlan(null)
    setApplied(null)
  }
  const upload = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0]
    if (file) edit(await file.text())
  }
  const download = () => {
    if (exported === null) return
    const url = URL.createObjectURL(new Blob([exported], { type: format === 'json' ? 'application/json' : 'application/yaml' }))
    const a = document.createElement('a')
    a.href = url
    a.download = `flagship.${format}`
    a.click()
    URL.revokeObjectURL(url)
  }

  return (
    <div className="page">
      <PageHeader title="Import / export" subtitle="The project's flags, configs and segments as one YAML or JSON document" />
      <section className="card" aria-labelledby="export-title">
        <h2 id="export-title">Export</h2>
        <div className="form-row">
          <label>
            Format{' '}
            <select value={format} onChange={(e) => setFormat(e.target.value as 'yaml' | 'json')}>
              <option value="yaml">YAML</option>
              <option value="json">JSON</option>
            </select>
          </label>{' '}
          <button
            type="button"
            className="btn"
            disabled={busy}
            onClick={() =>
              run(async () =>
                setExported(
                  await asCodeApi.exportText(format, [
                    ...(can.readFlags ? ['segments', 'flags'] : []),
                    ...(can.readConfigs ? ['configs'] : []),
                  ]),
                ),
              )
            }
          >
            Export
          </button>{' '}
          {exported !== null && (
            <button type="button" className="btn" onClick={download}>
              Download
            </button>
          )}
        </div>
        {exported !== null && (
          <pre className="code-block" aria-label="Exported document">
            {exported}
          </pre>
        )}
      </section>

      {canImport && (
        <section className="card" aria-labelledby="import-title">
          <h2 id="import-title">Import</h2>
          <div className="form-row">
            <label>
              Upload a file <input type="file" accept=".yaml,.yml,.json" onChange={upload} />
            </label>
          </div>
          <label className="field">
            Document
            <textarea
              aria-label="Document"
              rows={12}
              className="mono"
              value={text}
              onChange={(e) => edit(e.target.value)}
              placeholder="flagship: 1"
            />
          </label>
          <label className="checkbox">
            <input type="checkbox" checked={prune} onChange={(e) => (setPrune(e.target.checked), setPlan(null))} /> Prune: also delete what
            the document does not list (of the kinds it has)
          </label>
          <div className="form-row">
            <button
              type="button"
              className="btn"
              disabled={busy || !text.trim()}
              onClick={() => run(async () => (setApplied(null), setPlan(await asCodeApi.plan(text, prune))))}
            >
              Plan
            </button>{' '}
            <button
              type="button"
              className="btn btn-primary"
              disabled={busy || !plan || plan.errors.length > 0 || plan.changes.length === 0}
              onClick={() =>
                run(async () => {
                  const done = await asCodeApi.apply(text, prune, plan!.plan_id)
                  setApplied(done)
                  setPlan(null)
                  await client.invalidateQueries()
                })
              }
            >
              Apply
            </button>
          </div>
          <ErrorMessage error={error} title="The server refused it" />
          {plan && needsRequest(error) && (
            <div className="alert alert-info" role="note" aria-label="Propose instead">
              A protected environment is affected: this plan cannot be applied directly.{' '}
              <button
                type="button"
                className="btn btn-primary btn-small"
                disabled={busy}
                onClick={() =>
                  run(async () => {
                    const proposed = await asCodeApi.propose(text, prune, plan.plan_id)
                    if (proposed.change_request) navigate(`/changes/${proposed.change_request.id}`, { force: true })
                  })
                }
              >
                Propose
              </button>{' '}
              <span className="muted small">opens a change request holding every change of this plan.</span>
            </div>
          )}
          {plan && (
            <div role="region" aria-label="Plan">
              <p data-testid="plan-summary">{planSummary(plan.summary)}</p>
              {plan.errors.length > 0 && (
                <ul className="plan-errors" aria-label="Errors">
                  {plan.errors.map((e, i) => (
                    <li key={i} className="error-text">
                      <code>{e.path}</code>
                      {e.line ? ` (line ${e.line})` : ''}: {e.message}
                    </li>
                  ))}
                </ul>
              )}
              <ul className="plan-changes">
                {plan.changes.map((c) => (
                  <ChangeRow key={`${c.resource_type}:${c.key}`} change={c} />
                ))}
              </ul>
            </div>
          )}
          {applied && (
            <p role="status" data-testid="applied">
              Applied: {applied.summary.create} created, {applied.summary.update} updated, {applied.summary.delete} deleted
              {applied.change_set ? ` (change set ${applied.change_set})` : ''}
            </p>
          )}
        </section>
      )}
    </div>
  )
}
