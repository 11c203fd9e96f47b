// /api/v1/webhooks/:id/deliveries (permission *): the delivery log of one webhook and manual redelivery.
import { t } from 'elysia'
import { deliveryLog } from '../../services/webhook-deliveries'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import * as S from '../../schemas'
import { guard, routeModule } from './common'

export const deliveryRoutes = ({ store }: Pick<AppDeps, 'store'>) => {
  const log = deliveryLog(store)
  return routeModule('deliveries')
    .get(
      '/api/v1/webhooks/:id/deliveries',
      async ({ request, params, query }) => {
        return log.list(callerOf(request).actor.projectId, params.id, query.limit)
      },
      {
        ...guard('*', 'webhooks', "List a webhook's recent deliveries, newest first"),
        params: t.Object({ id: t.String() }),
        query: t.Object({ limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, default: 100 })) }),
        response: { 200: t.Object({ deliveries: t.Array(S.Delivery), webhook: S.WebhookHealth }), ...S.errors(400, 401, 403, 404, 429) },
      },
    )
    .post(
      '/api/v1/webhooks/:id/deliveries/:delivery_id/redeliver',
      async ({ request, params }) => {
        const row = await log.redeliver(callerOf(request).actor.projectId, params.id, params.delivery_id)
        return { success: true as const, id: row.id }
      },
      {
        ...guard('*', 'webhooks', 'Queue a failed delivery again (same id and payload; 409 unless it failed)'),
        params: t.Object({ id: t.String(), delivery_id: t.String() }),
        response: { 200: t.Object({ success: S.Success, id: t.String() }), ...S.errors(401, 403, 404, 409, 429) },
      },
    )
}
