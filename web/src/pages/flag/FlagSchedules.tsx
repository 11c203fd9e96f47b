// A flag's scheduled changes, beside its editor: pending ones first with a countdown, then the history;
// scheduling a new one and cancelling a pending one for tokens that may change flags.
import { useId, useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import type { Flag } from '../../api'
import { scheduleQueries } from '../../queries'
import { useSession } from '../../session'
import { Link } from '../../router'
import { ErrorMessage } from '../../components/ErrorMessage'
import { Loading } from '../../components/State'
import { ScheduleForm } from '../schedules/ScheduleForm'
import { changeText, ScheduleStatus, ScheduleWhen, useCancelSchedule } from '../schedules/parts'

export function FlagSchedules({ flag, environments }: { flag: Flag; environments: string[] }) {
  const { can } = useSession()
  const query = useQuery(scheduleQueries.flag(flag.key))
  const [creating, setCreating] = useState(false)
  const cancel = useCancelSchedule()
  const titleId = useId()
  const schedules = query.data?.schedules ?? []

  return (
    <section className="card schedules-card" aria-labelledby={titleId}>
      <div className="card-head">
        <h2 className="card-title" id={titleId}>
          Scheduled changes
        </h2>
        <Link to="/schedules" className="small">
          All upcoming
        </Link>
      </div>
      {query.isPending ? (
        <Loading label="Loading schedules…" />
      ) : query.isError ? (
        <ErrorMessage error={query.error} title="Could not load the schedules" />
      ) : schedules.length === 0 ? (
        <p className="muted">Nothing scheduled for this flag.</p>
      ) : (
        <ul className="schedule-list" aria-label={`Scheduled changes to ${flag.key}`}>
          {schedules.map((s) => (
            <li key={s.id} className={`schedule-item schedule-${s.status}`}>
              <div className="schedule-item-head">
                <ScheduleWhen schedule={s} />
                {can.writeFlags && cancel.button(s)}
              </div>
              <div className="schedule-change">{changeText(s.change)}</div>
              {s.note && <div className="schedule-note">{s.note}</div>}
              <ScheduleStatus schedule={s} />
            </li>
          ))}
        </ul>
      )}
      {can.writeFlags && (
        <button type="button" className="btn" onClick={() => setCreating(true)}>
          Schedule a change
        </button>
      )}
      {creating && <ScheduleForm flag={flag} environments={environments} onClose={() => setCreating(false)} />}
      {cancel.dialog}
    </section>
  )
}
