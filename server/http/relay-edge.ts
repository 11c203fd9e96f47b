// Relay mode (docs/operations.md, Relays): the app a relay serves. The evaluation surface is the origin's own
// route modules over the relay's in-memory snapshot and change hub (fed from its upstream by server/relay/);
// what a relay adds is here: its health and readiness, the POSTs it forwards upstream in batches, and the
// refusal of everything else (management lives at the upstream, named in the answer).
import { t } from 'elysia'
import type { RelayAppDeps, RelayState } from './deps'
import { callerOf } from './auth'
import { errorResponse } from './errors'
import { cachedJson } from './caching'
import { pathOf } from './url-input'
import { checkUsageReport, MAX_REPORTED } from '../services/usage'
import { VERSION } from '../version'
import * as S from '../schemas'
import { guard, jsonBody, routeModule } from './routes/common'
import { withRateClass } from './route-contract'
import { sdkRoutes } from './routes/sdk'
import { docsRoutes } from './routes/docs'
import { flagEvaluationRoute } from './routes/flags'
import { configEvaluationRoute } from './routes/configs'
import { evaluateRoutes } from './routes/evaluate'
import { ofrepRoutes } from './routes/ofrep'
import { streamRoutes } from './routes/stream'
import { definitionRoutes } from './routes/definitions'
import { metricsRoutes } from './routes/metrics'
import { relayRoutes } from './routes/relay'
import { ReportedCount, UsageAnswer } from './routes/usage'
import { batchIdOf } from './relay-batch'
import { checkEvents, type EventItem } from '../services/experiment-events'
import { EventBatch, EventsAccepted } from './routes/events'
import { eventsInKeyEnvironment } from './key-environment'

/** 404 RELAY_READ_ONLY for any /api path a relay does not serve (every management route). */
export function relayRefusal(relay: RelayState, request: Request): Response | undefined {
  const path = pathOf(request.url)
  if (!path.startsWith('/api/')) return undefined
  return errorResponse(
    404,
    'RELAY_READ_ONLY',
    `This is a relay: it serves evaluation only. ${request.method} ${path} is answered by its upstream, ${relay.upstreamUrl}`,
    { upstream: relay.upstreamUrl },
  )
}

const relayHealthRoutes = ({ relay, settings }: Pick<RelayAppDeps, 'relay' | 'settings'>) =>
  routeModule('relay-health')
    .get(
      '/health',
      ({ request }) =>
        cachedJson(
          request,
          {
            status: relay.ready() ? 'ok' : 'not_ready',
            version: VERSION,
            environment: settings.appEnv,
            mode: 'relay',
            upstream: relay.upstream(),
            data_age_s: relay.dataAgeSeconds(),
            change_seq: relay.changeSequence(),
          },
          { maxAge: 0, staleWhileRevalidate: 0, public: true },
        ),
      {
        detail: { tags: ['system'], summary: 'Liveness of a relay, with its upstream link', 'x-permission': 'public' },
        response: {
          200: t.Object({
            status: t.String({ description: 'ok, or not_ready while it holds no definitions' }),
            version: t.String(),
            environment: t.String(),
            mode: t.String({ description: 'relay' }),
            upstream: t.String({ description: 'connected (following the change stream), polling (stream lost), unreachable, starting' }),
            data_age_s: t.Union([t.Number(), t.Null()], { description: 'seconds since the upstream last confirmed the definitions' }),
            change_seq: t.Integer({ description: 'the upstream change number served' }),
          }),
        },
      },
    )
    .get(
      '/health/ready',
      () =>
        relay.ready()
          ? { ready: true }
          : errorResponse(
              503,
              'NOT_READY',
              'No definitions yet: the upstream has not answered and there is no cache file',
              { upstream: relay.upstreamUrl },
              { 'Retry-After': '5' },
            ),
      {
        detail: { tags: ['system'], summary: 'Readiness of a relay (503 until it holds definitions)', 'x-permission': 'public' },
        response: { 200: t.Object({ ready: t.Boolean() }), 503: S.ErrorBody },
      },
    )

/** POST /api/v1/usage at a relay: checked exactly as the origin checks it, answered the same, and queued for
 *  the upstream (merged into batches) instead of stored. */
const relayUsageRoute = ({ relay, snapshots }: Pick<RelayAppDeps, 'relay' | 'snapshots'>) =>
  routeModule('relay-usage').post(
    '/api/v1/usage',
    ({ request, body }) => {
      const caller = callerOf(request)
      // A following relay's batch: checked like the origin checks it, and taken once by its id.
      const batchId = batchIdOf(request, caller)
      const { known, accepted, ignored } = checkUsageReport(snapshots, caller.actor, body.counts, Date.now(), batchId === undefined)
      if (
        !relay.forward(
          '/api/v1/usage',
          body.counts.filter((c) => known.has(c.key) && c.count > 0),
          batchId,
        )
      )
        return { success: true as const, accepted: 0, ignored: 0, duplicate: true }
      return { success: true as const, accepted, ignored }
    },
    {
      ...withRateClass(
        'evaluation',
        guard('read:flags', 'usage', 'Report evaluation counts made in process (SDKs); a relay forwards them upstream'),
      ),
      ...jsonBody(t.Object({ counts: t.Array(ReportedCount, { maxItems: MAX_REPORTED }) }, { title: 'UsageReport' })),
      response: { 200: UsageAnswer, ...S.errors(400, 401, 403, 413, 415, 429) },
    },
  )

/** POST /api/v1/events at a relay: checked exactly as the origin checks them (an environment key's bound to
 *  its environment), dated here when they carry no time (the origin would date them when the batch arrives),
 *  answered the same, and queued for the upstream instead of stored. */
const relayEventsRoute = ({ relay, snapshots }: Pick<RelayAppDeps, 'relay' | 'snapshots'>) =>
  routeModule('relay-events').post(
    '/api/v1/events',
    ({ request, body, set }) => {
      const caller = callerOf(request)
      const batchId = batchIdOf(request, caller)
      const now = Date.now()
      const items = eventsInKeyEnvironment(body.events as EventItem[], caller.token.environment)
      const times = checkEvents(snapshots, caller.actor, items, now)
      const dated = items.map((item, i) =>
        item.timestamp === undefined ? { ...item, timestamp: new Date(times[i]!).toISOString() } : item,
      )
      set.status = 202
      if (!relay.forward('/api/v1/events', dated, batchId)) return { accepted: 0, duplicate: true as const }
      return { accepted: items.length }
    },
    {
      ...withRateClass('evaluation', guard('read:flags', 'experiments', 'Send track and exposure events; a relay forwards them upstream')),
      ...jsonBody(EventBatch),
      response: { 202: EventsAccepted, ...S.errors(400, 401, 403, 413, 415, 429) },
    },
  )

/** A relay's routes (app.ts builds the hooks both kinds share). */
export const relayEdgeRoutes = (deps: RelayAppDeps) =>
  routeModule('relay-edge')
    .use(sdkRoutes())
    .use(docsRoutes())
    .use(relayHealthRoutes(deps))
    .use(flagEvaluationRoute(deps))
    .use(configEvaluationRoute(deps))
    .use(evaluateRoutes(deps))
    .use(ofrepRoutes(deps))
    .use(streamRoutes(deps))
    .use(definitionRoutes(deps))
    .use(relayUsageRoute(deps))
    .use(relayEventsRoute(deps))
    .use(metricsRoutes(deps))
    .use(relayRoutes(deps))
