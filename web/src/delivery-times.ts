// When a webhook's pending delivery goes out, in words (the Webhooks page). Pure.
import type { Webhook } from './api'
import { relativeTime } from './format'

/** When a pending delivery goes out: its own next attempt, held back while the webhook backs off or is
 *  paused; a time already past reads "due now" (the worker picks it up at its next pass), never "ago". */
export function nextTry(own: string | null | undefined, webhook: Webhook, now = Date.now()): string {
  const h = webhook.health
  if (h.status === 'paused') return 'waiting: the webhook is paused (resume it to send)'
  const times = [own, h.next_attempt_at].filter((t): t is string => !!t).map((t) => Date.parse(t))
  const at = times.length ? Math.max(...times) : NaN
  if (Number.isNaN(at) || at <= now) return 'next try: due now'
  const why = h.next_attempt_at && Date.parse(h.next_attempt_at) === at && h.status === 'failing' ? ' (the webhook is backing off)' : ''
  return `next try ${relativeTime(new Date(at).toISOString())}${why}`
}
