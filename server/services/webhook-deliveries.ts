// What the API shows of the outbox: recent deliveries of one webhook, and manual redelivery of a failed one.
import type { Store } from '../store'
import type { DeliveryRow } from '../store/deliveries'
import { notFound, conflict } from '../errors'
import { webhookHealth } from './webhooks'

export const DEFAULT_DELIVERY_LIST_LIMIT = 100
export type DeliveryStatus = 'pending' | 'delivering' | 'delivered' | 'failed'

export function deliveryView(row: DeliveryRow) {
  return {
    id: row.id,
    event: row.event,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    next_attempt_at: row.status === 'pending' ? row.nextAttemptAt : null,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  }
}

export function deliveryLog(store: Store) {
  async function webhookOf(projectId: string, webhookId: string) {
    const hook = await store.webhooks.get(store.db, projectId, webhookId)
    if (!hook) throw notFound('NOT_FOUND', `Webhook "${webhookId}"`)
    return hook
  }

  return {
    /** Newest first, with how the webhook is doing (a pause shows here too). */
    async list(projectId: string, webhookId: string, limit = DEFAULT_DELIVERY_LIST_LIMIT) {
      const hook = await webhookOf(projectId, webhookId)
      return { deliveries: (await store.deliveries.recent(store.db, webhookId, limit)).map(deliveryView), webhook: webhookHealth(hook) }
    },

    /** Queues a failed delivery again: same id, same payload (and so the same signature), three new attempts. */
    async redeliver(projectId: string, webhookId: string, deliveryId: string): Promise<DeliveryRow> {
      await webhookOf(projectId, webhookId)
      return store.transaction(async (tx) => {
        const requeued = await store.deliveries.requeue(tx, webhookId, deliveryId, new Date().toISOString())
        if (requeued) return requeued
        const row = await store.deliveries.get(tx, webhookId, deliveryId)
        if (!row) throw notFound('NOT_FOUND', `Delivery "${deliveryId}"`)
        throw conflict('CONFLICT', `Only failed deliveries can be redelivered; this one is ${row.status}`, { status: row.status })
      })
    },
  }
}
export type DeliveryLog = ReturnType<typeof deliveryLog>
