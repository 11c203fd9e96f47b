// POST /api/v1/events (docs/experiments.md §1): track and exposure events from applications and SDKs, 1 to
// 1,000 per request, stored durably (all or none) before the 202. Evaluation-class rate limit and CORS, like
// the evaluation routes (the same token sends both); its own per-token event budget (EVENTS_PER_MINUTE).
import { t } from 'elysia'
import { MAX_EVENTS_PER_REQUEST, type EventItem } from '../../services/experiment-events'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import { eventsInKeyEnvironment } from '../key-environment'
import { batchIdOf } from '../relay-batch'
import * as S from '../../schemas'
import { guard, jsonBody, routeModule } from './common'
import { withRateClass } from '../route-contract'

/** The answer to an accepted batch (a relay's resent batch: `duplicate`, nothing stored again). */
export const EventsAccepted = t.Object({
  accepted: t.Integer({ description: 'the events stored' }),
  duplicate: t.Optional(t.Boolean({ description: "true: a relay's batch (Flagship-Batch-Id) already stored, nothing was added" })),
})
export const EventBatch = t.Object(
  { events: t.Array(t.Union([S.TrackEvent, S.ExposureEvent]), { minItems: 1, maxItems: MAX_EVENTS_PER_REQUEST }) },
  { title: 'EventBatch' },
)

export const eventRoutes = ({ services }: Pick<AppDeps, 'services'>) =>
  routeModule('events').post(
    '/api/v1/events',
    async ({ request, body, set }) => {
      const caller = callerOf(request)
      const items = eventsInKeyEnvironment(body.events as EventItem[], caller.token.environment)
      const result = await services.events.ingest(caller.actor, items, Date.now(), batchIdOf(request, caller))
      set.status = 202
      return result
    },
    {
      ...withRateClass(
        'evaluation',
        guard('read:flags', 'experiments', 'Send track and exposure events (all stored, or none: 400 names the bad item)'),
      ),
      ...jsonBody(EventBatch),
      response: { 202: EventsAccepted, ...S.errors(400, 401, 403, 413, 415, 429) },
    },
  )
