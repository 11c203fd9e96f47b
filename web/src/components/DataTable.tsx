// The console's table: scrolls sideways when wide, turns into labelled cards on narrow screens (`data-label`
// on each cell), and has a caption for assistive technology.
import type { ReactNode } from 'react'
import { Link } from '../router'
import { RelativeTime } from './RelativeTime'

/** a column heading; `hidden` ones (e.g. "Actions") are read out but not shown */
export type Column = string | { label: string; hidden: true }

interface Props {
  caption: string
  columns: Column[]
  className?: string
  children: ReactNode
}

export function DataTable({ caption, columns, className, children }: Props) {
  return (
    <div className="table-wrap">
      <table className={className ? `table responsive ${className}` : 'table responsive'}>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) =>
              typeof c === 'string' ? (
                <th key={c} scope="col">
                  {c}
                </th>
              ) : (
                <th key={c.label} scope="col">
                  <span className="sr-only">{c.label}</span>
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  )
}

/** A list row's "Last change" cell: when, and the version it made. */
export function LastChangeCell({ doc }: { doc: { version: number; updated_at: string } }) {
  return (
    <td data-label="Last change">
      <RelativeTime at={doc.updated_at} />
      <div className="muted small">v{doc.version}</div>
    </td>
  )
}

/** A list row's first cell: the resource's key, linking to its page; `children` stand under it. */
export function KeyCell({ label, to, name, children }: { label: string; to: string; name: string; children?: ReactNode }) {
  return (
    <td data-label={label}>
      <Link to={to} className="row-title">
        {name}
      </Link>
      {children}
    </td>
  )
}
