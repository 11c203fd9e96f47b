// GET /metrics: the Prometheus scrape endpoint (metrics/exposition.ts). Outside /api: no API token, no rate
// limit, no CORS. Open when METRICS_TOKEN is unset; otherwise `Authorization: Bearer <METRICS_TOKEN>`.
import { t } from 'elysia'
import { createHash, timingSafeEqual } from 'node:crypto'
import type { AppDeps } from '../deps'
import { errorResponse } from '../errors'
import * as S from '../../schemas'
import { routeModule } from './common'

const BEARER = /^Bearer\s+(\S+)\s*$/i
const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest()

/** Does the Authorization header carry `token`? Compared as SHA-256 digests with timingSafeEqual, so the
 *  time taken tells nothing about the token, not even its length. */
function presents(header: string | null, token: Buffer): boolean {
  const given = header === null ? undefined : BEARER.exec(header)?.[1]
  return given !== undefined && timingSafeEqual(digest(given), token)
}

export const metricsRoutes = ({ settings, metrics }: Pick<AppDeps, 'settings' | 'metrics'>) => {
  const token = settings.metricsToken === undefined ? undefined : digest(settings.metricsToken)
  return routeModule('metrics').get(
    '/metrics',
    async ({ request }) => {
      if (token !== undefined && !presents(request.headers.get('authorization'), token)) {
        return errorResponse(401, 'UNAUTHORIZED', 'This endpoint needs "Authorization: Bearer <METRICS_TOKEN>"', undefined, {
          'WWW-Authenticate': 'Bearer',
        })
      }
      return new Response(await metrics.exposition.text(), {
        headers: { 'content-type': metrics.exposition.contentType, 'cache-control': 'no-store' },
      })
    },
    {
      detail: {
        tags: ['system'],
        summary: 'Prometheus metrics',
        'x-permission': 'metrics-token',
        description: [
          'Prometheus text format (version 0.0.4).',
          'Open when the server runs without `METRICS_TOKEN`; with it, send `Authorization: Bearer {METRICS_TOKEN}`.',
          'Series: flagship_http_requests_total{route,method,status},',
          'flagship_http_request_duration_seconds{route,method} (histogram), flagship_evaluations_total{surface},',
          'flagship_webhook_queue_depth, flagship_webhook_deliveries_total{outcome},',
          'flagship_stream_subscribers, flagship_store_errors_total{source}.',
          'Routes are labelled by template (`/api/v1/flags/:key`), never by a key or token.',
        ].join(' '),
        security: [{}, { metrics: [] }],
      },
      response: { 200: t.String({ description: 'Prometheus text exposition format' }), 401: S.ErrorBody },
    },
  )
}
