// Time left until a moment, ticking every second: one shared timer for every countdown on screen, running
// only while one is shown.
import { useSyncExternalStore } from 'react'
import { dateTime } from '../format'

let now = Date.now()
const listeners = new Set<() => void>()
let timer: ReturnType<typeof setInterval> | undefined

function subscribe(listener: () => void) {
  listeners.add(listener)
  now = Date.now()
  timer ??= setInterval(() => {
    now = Date.now()
    listeners.forEach((l) => l())
  }, 1000)
  return () => {
    listeners.delete(listener)
    if (listeners.size === 0) {
      clearInterval(timer)
      timer = undefined
    }
  }
}

/** The current time, in milliseconds, updated every second while used. */
export const useNow = (): number => useSyncExternalStore(subscribe, () => now)

/** "in 2 d 3 h", "in 1 h 05 min", "in 4 min 09 s", "in 12 s"; "due now" once reached. */
export function countdownText(ms: number): string {
  if (ms <= 0) return 'due now'
  const total = Math.ceil(ms / 1000)
  const d = Math.floor(total / 86_400)
  const h = Math.floor((total % 86_400) / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = total % 60
  const two = (n: number) => String(n).padStart(2, '0')
  if (d) return `in ${d} d ${h} h`
  if (h) return `in ${h} h ${two(m)} min`
  if (m) return `in ${m} min ${two(s)} s`
  return `in ${s} s`
}

/** The time left until `at` (its full date and time in the tooltip and for assistive technology). */
export function Countdown({ at }: { at: string }) {
  const left = Date.parse(at) - useNow()
  return (
    <time dateTime={at} title={dateTime(at)} className={left <= 0 ? 'countdown due' : 'countdown'}>
      {countdownText(left)}
    </time>
  )
}
