// A field-by-field before/after comparison of two JSON documents (audit entries, edit conflicts).
import { useState } from 'react'
import type { Json } from '../api'
import { jsonEqual } from '../format'

type Flat = Map<string, Json>

function flatten(v: Json | undefined, path: string, out: Flat): Flat {
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length) {
    for (const [k, x] of Object.entries(v)) flatten(x, path ? `${path}.${k}` : k, out)
  } else if (Array.isArray(v) && v.length) {
    v.forEach((x, i) => flatten(x, `${path}[${i}]`, out))
  } else if (v !== undefined) {
    out.set(path || '(value)', v)
  }
  return out
}

export interface DiffRow {
  path: string
  before: Json | undefined
  after: Json | undefined
  kind: 'added' | 'removed' | 'changed' | 'same'
}

/** Flattened paths of both documents, in a stable order; `null` or absent documents count as empty. */
export function diffRows(before: Json | undefined, after: Json | undefined): DiffRow[] {
  const a = flatten(before ?? undefined, '', new Map())
  const b = flatten(after ?? undefined, '', new Map())
  const paths = [...a.keys()]
  for (const p of b.keys()) if (!a.has(p)) paths.push(p)
  return paths.map((path) => {
    const x = a.get(path)
    const y = b.get(path)
    const kind = !a.has(path) ? 'added' : !b.has(path) ? 'removed' : jsonEqual(x, y) ? 'same' : 'changed'
    return { path, before: x, after: y, kind }
  })
}

const show = (v: Json | undefined) => (v === undefined ? '' : JSON.stringify(v))

interface Props {
  before: Json | undefined
  after: Json | undefined
  beforeLabel?: string
  afterLabel?: string
  caption?: string
}

export function DiffView({ before, after, beforeLabel = 'Before', afterLabel = 'After', caption = 'Changes' }: Props) {
  const [showSame, setShowSame] = useState(false)
  const rows = diffRows(before, after)
  const changed = rows.filter((r) => r.kind !== 'same')
  const visible = showSame ? rows : changed
  return (
    <div className="diff">
      <div className="diff-toolbar">
        <span className="muted small">
          {changed.length === 0 ? 'No differences' : `${changed.length} field${changed.length === 1 ? '' : 's'} differ`}
        </span>
        {rows.length > changed.length && (
          <label className="checkbox small">
            <input type="checkbox" checked={showSame} onChange={(e) => setShowSame(e.target.checked)} />
            Show unchanged fields
          </label>
        )}
      </div>
      {visible.length > 0 && (
        <div className="table-wrap">
          <table className="table diff-table">
            <caption className="sr-only">{caption}</caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">{beforeLabel}</th>
                <th scope="col">{afterLabel}</th>
              </tr>
            </thead>
            <tbody>
              {visible.map((r) => (
                <tr key={r.path} className={`diff-${r.kind}`}>
                  <th scope="row">
                    <code>{r.path}</code>
                  </th>
                  <td className="diff-before" data-label={beforeLabel}>
                    <code>{show(r.before)}</code>
                  </td>
                  <td className="diff-after" data-label={afterLabel}>
                    <code>{show(r.after)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <details className="diff-raw">
        <summary>Full JSON</summary>
        <div className="diff-raw-cols">
          <div>
            <h4>{beforeLabel}</h4>
            <pre className="code">{before == null ? '—' : JSON.stringify(before, null, 2)}</pre>
          </div>
          <div>
            <h4>{afterLabel}</h4>
            <pre className="code">{after == null ? '—' : JSON.stringify(after, null, 2)}</pre>
          </div>
        </div>
      </details>
    </div>
  )
}
