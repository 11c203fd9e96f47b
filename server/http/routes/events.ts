// POST /api/v1/events (docs/experiments.md §1): track and exposure events from applications and SDKs, 1 to
// 1,000 per request, stored durably (all or none) before the 202. Evaluation-class rate limit and CORS, like
// the evaluation routes (the same token sends both); its own per-token event budget (EVENTS_PER_MINUTE).
import { t } from 'elysia'
import { MAX_EVENTS_PER_REQUEST, type EventItem } from '../../services/experiment-events'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import { environmentMismatch } from '../key-environment'
import * as S from '../../schemas'
import { guard, jsonBody, routeModule } from './common'

export const eventRoutes = ({ services }: Pick<AppDeps, 'services'>) =>
  routeModule('events')
    .post('/api/v1/events', async ({ request, body, set }) => {
      const { actor, token } = callerOf(request)
      const result = await services.events.ingest(actor, inKeyEnvironment(body.events as EventItem[], token.environment))
      set.status = 202
      return result
    }, {
      ...guard('read:flags', 'experiments', 'Send track and exposure events (all stored, or none: 400 names the bad item)'),
      ...jsonBody(t.Object({ events: t.Array(t.Union([S.TrackEvent, S.ExposureEvent]), { minItems: 1, maxItems: MAX_EVENTS_PER_REQUEST }) }, { title: 'EventBatch' })),
      response: { 202: t.Object({ accepted: t.Integer({ description: 'the events stored' }) }), ...S.errors(400, 401, 403, 413, 415, 429) },
    })

/** An environment key's events are of its environment (environments.md §2): an item naming none gets it, an
 *  item naming another is refused (403 ENVIRONMENT_MISMATCH, nothing stored). */
function inKeyEnvironment(items: EventItem[], keyEnvironment: string | null): EventItem[] {
  if (keyEnvironment === null) return items
  return items.map((item) => {
    const context = item.context as Record<string, unknown> | null
    if (context === null || typeof context !== 'object' || Array.isArray(context)) return item // the service words the 400
    const requested = context.environment
    if (requested === undefined || requested === '') return { ...item, context: { ...context, environment: keyEnvironment } } as EventItem
    if (requested !== keyEnvironment) throw environmentMismatch(keyEnvironment, String(requested))
    return item
  })
}
