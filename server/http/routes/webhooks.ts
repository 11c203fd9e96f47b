// /api/v1/webhooks (permission *): registrations. Deliveries are under routes/deliveries.ts.
import { t } from 'elysia'
import { webhookView } from '../../services/webhooks'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import * as S from '../../schemas'
import { guard, jsonBody, routeModule } from './common'

export const webhookRoutes = ({ services }: Pick<AppDeps, 'services'>) =>
  routeModule('webhooks')
    .get(
      '/api/v1/webhooks',
      async ({ request }) => {
        const rows = await services.webhooks.list(callerOf(request).actor.projectId)
        return { webhooks: rows.map(webhookView) }
      },
      {
        ...guard('*', 'webhooks', 'List webhooks (secrets are never returned)'),
        response: { 200: t.Object({ webhooks: t.Array(S.Webhook) }), ...S.errors(401, 403, 429) },
      },
    )
    .post(
      '/api/v1/webhooks',
      async ({ request, body, set }) => {
        const row = await services.webhooks.create(callerOf(request).actor, body)
        set.status = 201
        return { success: true as const, ...webhookView(row) }
      },
      {
        ...guard('*', 'webhooks', 'Register a webhook (HTTPS, public hosts only)'),
        ...jsonBody(S.WebhookCreate),
        response: {
          201: t.Object({ success: S.Success, id: t.String(), config: S.Webhook.properties.config, health: S.WebhookHealth }),
          ...S.errors(400, 401, 403, 409, 413, 415, 429),
        },
      },
    )
    .post(
      '/api/v1/webhooks/:id/resume',
      async ({ request, params }) => {
        const row = await services.webhooks.resume(callerOf(request).actor, params.id)
        return { success: true as const, ...webhookView(row) }
      },
      {
        ...guard('*', 'webhooks', 'Resume a paused (or backing-off) webhook: its queued deliveries are sent now'),
        params: t.Object({ id: t.String() }),
        response: {
          200: t.Object({ success: S.Success, id: t.String(), config: S.Webhook.properties.config, health: S.WebhookHealth }),
          ...S.errors(401, 403, 404, 429),
        },
      },
    )
    .delete(
      '/api/v1/webhooks/:id',
      async ({ request, params }) => {
        await services.webhooks.delete(callerOf(request).actor, params.id)
        return { success: true as const, id: params.id }
      },
      {
        ...guard('*', 'webhooks', 'Delete a webhook'),
        params: t.Object({ id: t.String() }),
        response: { 200: t.Object({ success: S.Success, id: t.String() }), ...S.errors(401, 403, 404, 429) },
      },
    )
