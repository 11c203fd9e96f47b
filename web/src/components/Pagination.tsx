// Previous/next paging with a page-size picker.
import { Options } from './Options'

export const PAGE_SIZES = [25, 50, 100] as const

interface Props {
  offset: number
  limit: number
  total: number
  onChange: (offset: number, limit: number) => void
  label?: string
}

export function Pagination({ offset, limit, total, onChange, label = 'Pagination' }: Props) {
  if (total === 0) return null
  const from = offset + 1
  const to = Math.min(offset + limit, total)
  return (
    <nav className="pagination" aria-label={label}>
      <span className="muted">
        {from}–{to} of {total}
      </span>
      <label className="inline-field">
        <span>Per page</span>
        <select value={limit} onChange={(e) => onChange(0, Number(e.target.value))}>
          <Options values={PAGE_SIZES} />
        </select>
      </label>
      <div className="btn-group">
        <button
          type="button"
          className="btn btn-small"
          disabled={offset === 0}
          onClick={() => onChange(Math.max(0, offset - limit), limit)}
        >
          Previous
        </button>
        <button type="button" className="btn btn-small" disabled={to >= total} onClick={() => onChange(offset + limit, limit)}>
          Next
        </button>
      </div>
    </nav>
  )
}
