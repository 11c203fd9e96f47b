// Scheduling a change to one flag: when (local time), and what: the flag on or off, one environment on or
// off, or any partial update as JSON (what PUT /flags/:key takes, or { environment, override }).
import { useId, useState, type FormEvent } from 'react'
import { keys, type Flag, type Schedule } from '../../api'
import { insightApi } from '../../insight-api'
import { isoToLocalInput, localInputToIso, parseJson } from '../../format'
import { useApiMutation } from '../../mutations'
import { Dialog } from '../../components/Dialog'
import { FormActions } from '../../components/FormActions'
import { JsonEditor } from '../../components/JsonEditor'
import { changeText } from './parts'

type Kind = 'on' | 'off' | 'json' | `env:${'on' | 'off'}:${string}`

/** The change a kind stands for. An environment's switch keeps that override's value (or variant) as it is now. */
function changeOf(kind: Kind, flag: Flag, jsonText: string): { change?: Schedule['change']; error?: string } {
  if (kind === 'on' || kind === 'off') return { change: { enabled: kind === 'on' } }
  if (kind === 'json') {
    const parsed = parseJson(jsonText)
    if (!parsed.ok) return {} // (the JSON editor says what is wrong)
    if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value))
      return { error: 'Enter a JSON object: the fields to change.' }
    return { change: parsed.value as Schedule['change'] }
  }
  const [, state, environment] = /^env:(on|off):(.*)$/.exec(kind)!
  return { change: { environment, override: { ...flag.environments?.[environment], enabled: state === 'on' } } }
}

/** A minute past the next full hour, as a starting point. */
const defaultAt = () => isoToLocalInput(new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 60_000).toISOString())

export function ScheduleForm({ flag, environments, onClose }: { flag: Flag; environments: string[]; onClose: () => void }) {
  const [at, setAt] = useState(defaultAt)
  const [kind, setKind] = useState<Kind>(flag.enabled ? 'off' : 'on')
  const [jsonText, setJsonText] = useState('{\n  "value": true\n}')
  const [note, setNote] = useState('')
  const create = useApiMutation(
    (input: Parameters<typeof insightApi.createSchedule>[1]) => insightApi.createSchedule(flag.key, input),
    [keys.schedules],
    onClose,
  )
  const { change, error } = changeOf(kind, flag, jsonText)
  const atIso = localInputToIso(at)
  const id = useId()

  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (change && atIso) create.mutate({ at: atIso, change, note: note.trim() || null })
  }
  return (
    <Dialog title={`Schedule a change to “${flag.key}”`} onClose={onClose}>
      <form onSubmit={submit} className="form">
        <div className="field">
          <label htmlFor={`${id}-at`}>When</label>
          <input id={`${id}-at`} type="datetime-local" step={1} value={at} onChange={(e) => setAt(e.target.value)} required />
          <span className="hint">
            Your local time ({Intl.DateTimeFormat().resolvedOptions().timeZone}); at most 365 days ahead. Applied within 2 seconds of it.
          </span>
        </div>
        <div className="field">
          <label htmlFor={`${id}-change`}>Change</label>
          <select id={`${id}-change`} value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
            <option value="on">Switch the flag on</option>
            <option value="off">Switch the flag off</option>
            {environments.flatMap((env) => [
              <option key={`${env}-on`} value={`env:on:${env}`}>
                Switch on in {env}
              </option>,
              <option key={`${env}-off`} value={`env:off:${env}`}>
                Switch off in {env}
              </option>,
            ])}
            <option value="json">Other change (JSON)…</option>
          </select>
        </div>
        {kind === 'json' && (
          <JsonEditor
            label="Change (JSON)"
            value={jsonText}
            onChange={setJsonText}
            rows={4}
            hint={
              'The fields to change, as PUT /flags/:key takes them (e.g. {"value": "b", "enabled": true}), ' +
              'or {"environment": "production", "override": {"enabled": false}}.'
            }
          />
        )}
        <label className="field">
          <span className="field-label">Note (optional)</span>
          <input value={note} onChange={(e) => setNote(e.target.value)} maxLength={500} placeholder="Why, for whoever reads the schedule" />
        </label>
        {change && <p className="muted small">Will apply: {changeText(change)}.</p>}
        {error && <p className="field-error">{error}</p>}
        <FormActions
          mutation={create}
          errorTitle="Could not schedule the change"
          label="Schedule change"
          pendingLabel="Scheduling…"
          disabled={!change || !atIso}
          onCancel={onClose}
        />
      </form>
    </Dialog>
  )
}
