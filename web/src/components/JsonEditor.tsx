// A JSON-aware textarea: parses as you type, shows the problem inline, names the value's type, formats.
// A problem is shown once there is something to complain about: never for an untouched empty field (it
// is not wrong yet), never for an empty optional one (empty is its answer), and never before any typing.
import { useId, useState } from 'react'
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
  /** empty is a valid answer (an override left to the flag's value, say): no error for it */
  optional?: boolean
}

export function JsonEditor({ label, value, onChange, rows = 4, hint, readOnly, hideLabel, optional }: Props) {
  const id = useId()
  const [typed, setTyped] = useState(false)
  const parsed = parseJson(value)
  const empty = !value.trim()
  const problem = !parsed.ok && !(empty && (optional || !typed)) ? parsed.error : undefined
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
            <button
              type="button"
              className="btn-link small"
              onClick={() => onChange(JSON.stringify(parsed.value, null, 2))}
              aria-label={`Format ${label}`}
            >
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
        aria-invalid={problem !== undefined}
        aria-describedby={`${id}-msg`}
        onChange={(e) => {
          setTyped(true)
          onChange(e.target.value)
        }}
      />
      <div id={`${id}-msg`} className={problem === undefined ? 'hint' : 'field-error'} aria-live="polite">
        {problem ?? hint}
      </div>
    </div>
  )
}
