// A JSON-aware textarea: parses as you type, shows the problem inline, names the value's type, formats.
import { useId } from 'react'
import { parseJson, valueType } from '../format'

interface Props {
  label: string
  value: string
  onChange: (text: string) => void
  rows?: number
  hint?: string
  readOnly?: boolean
  /** hide the visible label (it stays the accessible name) */
  hideLabel?: boolean
}

export function JsonEditor({ label, value, onChange, rows = 4, hint, readOnly, hideLabel }: Props) {
  const id = useId()
  const parsed = parseJson(value)
  const lines = Math.min(Math.max(rows, value.split('\n').length), 24)
  return (
    <div className="field json-editor">
      <div className="json-editor-head">
        <label htmlFor={id} className={hideLabel ? 'sr-only' : undefined}>
          {label}
        </label>
        <span className="json-editor-meta">
          {parsed.ok && <span className="badge">{valueType(parsed.value)}</span>}
          {!readOnly && parsed.ok && (
            <button type="button" className="btn-link small" onClick={() => onChange(JSON.stringify(parsed.value, null, 2))} aria-label={`Format ${label}`}>
              Format
            </button>
          )}
        </span>
      </div>
      <textarea
        id={id}
        className="mono"
        rows={lines}
        value={value}
        spellCheck={false}
        readOnly={readOnly}
        aria-invalid={!parsed.ok}
        aria-describedby={`${id}-msg`}
        onChange={(e) => onChange(e.target.value)}
      />
      <div id={`${id}-msg`} className={parsed.ok ? 'hint' : 'field-error'} aria-live="polite">
        {parsed.ok ? hint : parsed.error}
      </div>
    </div>
  )
}
