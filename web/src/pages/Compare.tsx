// Compare environments (docs/as-code.md §3): each flag's and config's override in two environments side by
// side (identical, different with the diff, only in one), and Promote for one row or a selection: copy the
// left environment's override to the right one (or remove the right one's when the left has none).
import { useState } from 'react'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { asCodeApi, needsRequest, type CompareRow } from '../as-code-api'
import { navigate } from '../router'
import { useSession } from '../session'
import { ErrorMessage } from '../components/ErrorMessage'
import { Loading, PageHeader } from '../components/State'

const LABEL = { identical: 'identical', different: 'different', only_a: 'only in', only_b: 'only in' } as const

export function Compare() {
  const { can, project } = useSession()
  const client = useQueryClient()
  const envs = project.data?.environments ?? []
  const [a, setA] = useState<string | null>(null)
  const [b, setB] = useState<string | null>(null)
  const left = a ?? envs[envs.length - 2] ?? envs[0] ?? ''
  const right = b ?? envs[envs.length - 1] ?? ''
  const [selected, setSelected] = useState<Set<string>>(new Set())
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  /** the last promotion tried (offered as a change request when protection refuses it) */
  const [tried, setTried] = useState<{ from: string; to: string; flags?: string[]; configs?: string[] } | null>(null)
  const comparison = useQuery({
    queryKey: ['compare', left, right],
    queryFn: () => asCodeApi.compare(left, right),
    enabled: !!left && !!right && left !== right,
  })

  const promote = async (names: string[]) => {
    const flags = new Set((comparison.data?.flags ?? []).map((f) => f.key))
    setBusy(true)
    setError(null)
    try {
      const f = names.filter((n) => n.startsWith('flag:')).map((n) => n.slice(5))
      const c = names.filter((n) => n.startsWith('config:')).map((n) => n.slice(7))
      const body = { from: left, to: right, ...(f.length && { flags: f.filter((k) => flags.has(k)) }), ...(c.length && { configs: c }) }
      setTried(body)
      await asCodeApi.promote(body)
      setSelected(new Set())
      await client.invalidateQueries()
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  const propose = async () => {
    if (!tried) return
    setBusy(true)
    setError(null)
    try {
      const proposed = await asCodeApi.proposePromotion(tried)
      if (proposed.change_request) navigate(`/changes/${proposed.change_request.id}`, { force: true })
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  const mayPromote = (kind: 'flag' | 'config') => (kind === 'flag' ? can.writeFlags : can.writeConfigs)

  const rows = (kind: 'flag' | 'config', list: CompareRow[] | undefined) =>
    (list ?? []).map((r) => {
      const id = `${kind}:${r.key}`
      return (
        <tr key={id} data-testid={`compare-${id}`}>
          <td>
            <input
              type="checkbox"
              aria-label={`Select ${kind} ${r.key}`}
              disabled={r.status === 'identical' || !mayPromote(kind)}
              checked={selected.has(id)}
              onChange={(e) =>
                setSelected((s) => {
                  const n = new Set(s)
                  if (e.target.checked) n.add(id)
                  else n.delete(id)
                  return n
                })
              }
            />
          </td>
          <td>{kind}</td>
          <td className="mono">{r.key}</td>
          <td className={`status-${r.status}`}>
            {LABEL[r.status]}
            {r.status === 'only_a' ? ` ${left}` : r.status === 'only_b' ? ` ${right}` : ''}
            {r.diff && (
              <div className="mono small">{r.diff.map((d) => `${d.op} ${d.path} ${JSON.stringify(d.value) ?? ''}`).join('; ')}</div>
            )}
          </td>
          <td>
            {r.status !== 'identical' && mayPromote(kind) && (
              <button
                type="button"
                className="btn btn-small"
                disabled={busy}
                onClick={() => promote([id])}
                aria-label={`Promote ${kind} ${r.key}`}
              >
                Promote
              </button>
            )}
          </td>
        </tr>
      )
    })

  return (
    <div className="page">
      <PageHeader title="Compare environments" subtitle="Overrides side by side; Promote copies the left environment's to the right" />
      <div className="form-row">
        <label>
          From{' '}
          <select aria-label="From environment" value={left} onChange={(e) => setA(e.target.value)}>
            {envs.map((e) => (
              <option key={e}>{e}</option>
            ))}
          </select>
        </label>{' '}
        <label>
          To{' '}
          <select aria-label="To environment" value={right} onChange={(e) => setB(e.target.value)}>
            {envs.map((e) => (
              <option key={e}>{e}</option>
            ))}
          </select>
        </label>{' '}
        <button type="button" className="btn btn-primary" disabled={busy || selected.size === 0} onClick={() => promote([...selected])}>
          Promote selected ({selected.size})
        </button>
      </div>
      <ErrorMessage error={error ?? comparison.error} title="Could not compare or promote" />
      {tried && needsRequest(error) && (
        <div className="alert alert-info" role="note" aria-label="Propose instead">
          {tried.to} is protected: this promotion cannot be applied directly.{' '}
          <button type="button" className="btn btn-primary btn-small" disabled={busy} onClick={propose}>
            Propose
          </button>{' '}
          <span className="muted small">opens a change request with the same promotion.</span>
        </div>
      )}
      {comparison.isLoading ? (
        <Loading label="Comparing…" />
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th aria-label="Selected" />
              <th>Kind</th>
              <th>Key</th>
              <th>
                {left} → {right}
              </th>
              <th aria-label="Actions" />
            </tr>
          </thead>
          <tbody>
            {rows('flag', comparison.data?.flags)}
            {rows('config', comparison.data?.configs)}
          </tbody>
        </table>
      )}
    </div>
  )
}
