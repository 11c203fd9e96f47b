// /api/v1/metrics (docs/experiments.md §3): the metrics experiments measure. Not GET /metrics (Prometheus).
import { t } from 'elysia'
import { metricView } from '../../services/experiment-metrics'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import * as S from '../../schemas'
import { guard, jsonBody, listBody, paging, routeModule } from './common'

const MetricAnswer = t.Object({ success: S.Success, metric: S.Metric })

export const experimentMetricRoutes = ({ services }: Pick<AppDeps, 'services'>) =>
  routeModule('experiment-metrics')
    .get(
      '/api/v1/metrics',
      async ({ request, query }) => {
        const { limit, offset } = paging(query)
        const { rows, total } = await services.metrics.list(callerOf(request).actor.projectId, limit, offset)
        return listBody('metrics', rows.map(metricView), total, offset)
      },
      {
        ...guard('read:flags', 'experiments', 'List the metrics experiments measure'),
        query: S.Page,
        response: {
          200: t.Object({ metrics: t.Array(S.Metric), total: t.Integer(), has_more: t.Boolean() }),
          ...S.errors(400, 401, 403, 429),
        },
      },
    )
    .post(
      '/api/v1/metrics',
      async ({ request, body, set }) => {
        const row = await services.metrics.create(callerOf(request).actor, body)
        set.status = 201
        return { success: true as const, metric: metricView(row) }
      },
      {
        ...guard('write:flags', 'experiments', 'Define a metric', () => []),
        ...jsonBody(S.MetricCreate),
        response: { 201: MetricAnswer, ...S.errors(400, 401, 403, 409, 413, 415, 429) },
      },
    )
    .get(
      '/api/v1/metrics/:key',
      async ({ request, params }) => ({ metric: metricView(await services.metrics.get(callerOf(request).actor.projectId, params.key)) }),
      {
        ...guard('read:flags', 'experiments', 'One metric'),
        params: S.KeyParam,
        response: { 200: t.Object({ metric: S.Metric }), ...S.errors(401, 403, 404, 429) },
      },
    )
    .put(
      '/api/v1/metrics/:key',
      async ({ request, params, body }) => ({
        success: true as const,
        metric: metricView(await services.metrics.update(callerOf(request).actor, params.key, body)),
      }),
      {
        ...guard('write:flags', 'experiments', 'Change a metric (null clears an optional field)', () => []),
        params: S.KeyParam,
        ...jsonBody(S.MetricPatch),
        response: { 200: MetricAnswer, ...S.errors(400, 401, 403, 404, 413, 415, 429) },
      },
    )
    .delete(
      '/api/v1/metrics/:key',
      async ({ request, params }) => {
        await services.metrics.delete(callerOf(request).actor, params.key)
        return { success: true as const, key: params.key }
      },
      {
        ...guard('write:flags', 'experiments', 'Delete a metric (409 METRIC_IN_USE while an experiment names it)', () => []),
        params: S.KeyParam,
        response: { 200: S.Deleted, ...S.errors(401, 403, 404, 409, 429) },
      },
    )
