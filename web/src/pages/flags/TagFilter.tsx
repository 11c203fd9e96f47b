// Tag filter chips above the flag list: the chosen tags (every one must match, removable) and the tags seen
// on the flags shown, one click to add.
export function TagFilter({ selected, onChange, seen }: { selected: string[]; onChange: (tags: string[]) => void; seen: string[] }) {
  const offered = [...new Set(seen)].filter((t) => !selected.includes(t)).sort()
  if (!selected.length && !offered.length) return null
  return (
    <div className="tag-filter" role="group" aria-label="Filter by tag">
      {selected.map((t) => (
        <button
          key={t}
          type="button"
          className="chip chip-selected"
          aria-pressed="true"
          aria-label={`Stop filtering by tag ${t}`}
          onClick={() => onChange(selected.filter((x) => x !== t))}
        >
          {t} ×
        </button>
      ))}
      {offered.map((t) => (
        <button key={t} type="button" className="chip chip-button" aria-pressed="false" onClick={() => onChange([...selected, t])}>
          {t}
        </button>
      ))}
      {selected.length > 0 && (
        <button type="button" className="btn-link small" onClick={() => onChange([])}>
          Clear tags
        </button>
      )}
    </div>
  )
}
