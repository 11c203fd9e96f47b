// The sidebar's live-updates indicator: whether changes made elsewhere show up here as they happen.
import { useLiveStatus, type LiveStatus as Status } from '../live'

const LABEL: Record<Exclude<Status, 'off'>, { text: string; title: string }> = {
  connecting: { text: 'Connecting…', title: 'Opening the change stream' },
  live: { text: 'Live', title: 'Changes made elsewhere appear here as they happen' },
  reconnecting: { text: 'Reconnecting…', title: 'The change stream was interrupted; what changed meanwhile is read again once it is back' },
}

export function LiveStatus() {
  const status = useLiveStatus()
  if (status === 'off') return null
  const { text, title } = LABEL[status]
  return (
    <span className={`live-status live-${status}`} title={title} data-testid="live-status">
      <span className="live-dot" aria-hidden="true" />
      <span className="sr-only">Live updates: </span>
      {text}
    </span>
  )
}
