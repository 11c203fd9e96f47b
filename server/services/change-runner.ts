// The one place a change is committed: the row change, its audit entry and one outbox row per subscribed
// webhook are written in a single transaction; change notices are published only after the commit.
import type { Store, Db } from '../store'
import type { DeliveryRow } from '../store/deliveries'
import type { Change, ChangeBus } from './events'

/** Records one change inside the running transaction (audit entry + outbox rows). */
export type RecordChange = (change: Change) => Promise<void>

export function createChangeRunner(store: Store, bus: ChangeBus) {
  async function record(tx: Db, change: Change, now: string): Promise<void> {
    await store.audit.insert(tx, {
      projectId: change.projectId,
      timestamp: now,
      actor: change.actor,
      action: change.action,
      resourceType: change.resourceType,
      resourceKey: change.resourceKey,
      before: change.before ?? null,
      after: change.after ?? null,
    })
    if (!change.event) return
    const { kind, environment, data } = change.event
    const hooks = (await store.webhooks.byProject(tx, change.projectId)).filter((h) => h.events.includes('*') || h.events.includes(kind))
    if (!hooks.length) return
    const body = JSON.stringify({ event: kind, resource: change.resourceKey, environment, data, timestamp: now })
    const rows: DeliveryRow[] = hooks.map((h) => ({
      id: crypto.randomUUID(),
      webhookId: h.id,
      projectId: change.projectId,
      event: kind,
      payload: body,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      lastStatusCode: null,
      lastError: null,
      claimedBy: null,
      claimedUntil: null,
      createdAt: now,
      updatedAt: now,
    }))
    await store.deliveries.insert(tx, rows)
  }

  return {
    /** fn does its writes with `tx` and calls `record` once per change it makes. */
    async run<T>(fn: (tx: Db, record: RecordChange) => Promise<T>): Promise<T> {
      const changes: Change[] = []
      const result = await store.transaction(async (tx) =>
        fn(tx, async (change) => {
          await record(tx, change, new Date().toISOString())
          changes.push(change)
        }),
      )
      for (const c of changes) await bus.publish({ projectId: c.projectId, resourceType: c.resourceType, resourceKey: c.resourceKey })
      return result
    },
  }
}
export type ChangeRunner = ReturnType<typeof createChangeRunner>
