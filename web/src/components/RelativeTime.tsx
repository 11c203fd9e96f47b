// A moment said the way lists say it ("3 minutes ago"), with the exact date and time on hover and in the
// markup (<time dateTime>), for those who need it.
import { dateTime, relativeTime } from '../format'

export function RelativeTime({ at }: { at: string }) {
  return (
    <time dateTime={at} title={dateTime(at)}>
      {relativeTime(at)}
    </time>
  )
}
