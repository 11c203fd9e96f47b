// What the flag page's schedule list and the Upcoming page share: a scheduled change said in words, its
// status (with the countdown while pending), and cancelling one after asking.
import { keys, type Json, type Schedule } from '../../api'
import { insightApi } from '../../insight-api'
import { dateTime, preview, relativeTime } from '../../format'
import { ConfirmDialog, useConfirmAction } from '../../components/ConfirmDialog'
import { Countdown } from '../../components/Countdown'
import { useSession } from '../../session'

const onOff = (on: boolean) => (on ? 'on' : 'off')
const sentence = (parts: string[]) => {
  const s = parts.join('; ')
  return s ? s[0].toUpperCase() + s.slice(1) : 'No change'
}

/** Fields a client may echo back in an update, which the server ignores. */
const IGNORED = new Set(['key', 'version', 'created_at', 'updated_at'])
const fieldName = (f: string) => f.replace(/_/g, ' ')

/** "Switch on; value → "b"", "production: switch off": what the change will do to the flag. */
export function changeText(change: Schedule['change']): string {
  if ('override' in change && change.override && typeof change.environment === 'string') {
    const { enabled, value, variant } = change.override
    const parts = [
      `switch ${onOff(enabled)}`,
      ...(variant !== undefined ? [`variant ${variant}`] : []),
      ...(value !== undefined ? [`value → ${preview(value, 32)}`] : []),
    ]
    return `${change.environment}: ${sentence(parts).toLowerCase()}`
  }
  const parts: string[] = []
  for (const [field, v] of Object.entries(change as Record<string, unknown>)) {
    if (v === undefined || IGNORED.has(field)) continue
    if (field === 'enabled') parts.push(`switch ${onOff(v === true)}`)
    else if (v === null) parts.push(`clear ${fieldName(field)}`)
    else if (field === 'targeting') parts.push('replace targeting')
    else if (field === 'environments') parts.push(`set overrides of ${Object.keys(v).join(', ') || 'no environment'}`)
    else if (field === 'active_from' || field === 'active_until') parts.push(`${fieldName(field)} ${dateTime(String(v))}`)
    else parts.push(`${fieldName(field)} → ${preview(v as Json, 32)}`)
  }
  return sentence(parts)
}

/** The status badge; a failed schedule says why, an applied one which version it made. */
export function ScheduleStatus({ schedule: s }: { schedule: Schedule }) {
  return (
    <span className="schedule-status">
      <span className={`badge status-${s.status}`}>{s.status}</span>
      {s.status === 'applied' && s.result_version !== null && <span className="muted small"> v{s.result_version}</span>}
      {s.status !== 'pending' && s.finished_at && (
        <span className="muted small" title={dateTime(s.finished_at)}>
          {' '}
          {relativeTime(s.finished_at)}
        </span>
      )}
      {s.error && <span className="schedule-error small">{s.error.message}</span>}
    </span>
  )
}

/** When it is (or was) due: the countdown while pending, the date otherwise. */
export function ScheduleWhen({ schedule: s }: { schedule: Schedule }) {
  return (
    <span className="schedule-when">
      <span>{dateTime(s.at)}</span>
      {s.status === 'pending' && (
        <span className="small">
          <Countdown at={s.at} />
        </span>
      )}
    </span>
  )
}

/** A Cancel button per pending schedule and the question it asks; `dialog` goes once on the page. A token
 *  without write:flags sees no button (the server would refuse it). */
export function useCancelSchedule() {
  const { can } = useSession()
  const cancel = useConfirmAction((s: Schedule) => insightApi.cancelSchedule(s.id), [keys.schedules])
  return {
    button: (s: Schedule) =>
      can.writeFlags &&
      s.status === 'pending' && (
        <button
          type="button"
          className="btn btn-small btn-danger-outline"
          aria-label={`Cancel the change to ${s.flag_key} at ${dateTime(s.at)}`}
          onClick={() => cancel.ask(s)}
        >
          Cancel
        </button>
      ),
    dialog: cancel.target !== null && (
      <ConfirmDialog title="Cancel this scheduled change?" confirmLabel="Cancel the change" cancelLabel="Keep it" {...cancel.dialogProps}>
        <p>
          “{changeText(cancel.target.change)}” on <strong className="mono">{cancel.target.flag_key}</strong>, due{' '}
          {dateTime(cancel.target.at)}, will not be applied. The flag stays as it is.
        </p>
      </ConfirmDialog>
    ),
  }
}
