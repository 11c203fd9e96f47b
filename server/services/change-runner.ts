// The one place a change is committed: the row change, its audit entry, one outbox row per subscribed
// webhook and its numbered change-stream entry are written in a single transaction; change notices are
// published only after the commit.
import type { Store, Db } from '../store'
import type { DeliveryRow } from '../store/deliveries'
import type { ChangeRow } from '../store/changes'
import { STREAMED_TYPES, type Change, type ChangeBus, type ChangeNotice, type StreamChange } from './events'
import { type EventKind } from '../store/vocabulary/changes'
import { changeGate } from './change-gate'

/** Records one change inside the running transaction (audit entry + outbox rows). */
export type RecordChange = (change: Change) => Promise<void>

const versionOf = (view: unknown): number | null => {
  const v = (view as { version?: unknown } | null)?.version
  return typeof v === 'number' ? v : null
}

const streamChange = (row: ChangeRow): StreamChange => ({
  seq: row.seq, resource_type: row.resourceType, key: row.resourceKey, action: row.action,
  version: row.version, environment: row.environment, at: row.createdAt,
})

/** An audit entry's details: why a change to a protected environment was allowed (a break-glass reason,
 *  or the change request and its approvers), and what the change itself carries (an import's change set). */
function detailsOf(change: Change, authority: Change['authority']): Record<string, unknown> | null {
  const why = authority?.kind === 'bypass' ? { bypass_reason: authority.reason }
    : change.authority?.kind === 'change_request' ? { change_request: change.authority.id, approvers: change.authority.approvers } : undefined
  return why || change.details ? { ...change.details, ...why } : null
}

/** replayLimit: how many of each project's newest stream entries are kept for resuming clients. */
export function createChangeRunner(store: Store, bus: ChangeBus, replayLimit: number) {
  type HooksOf = (projectId: string) => ReturnType<Store['webhooks']['byProject']>

  /** Queues `kind` for every webhook of the project subscribed to it (outbox rows, same transaction). */
  async function enqueue(tx: Db, hooksOf: HooksOf, projectId: string, kind: EventKind, resource: string, environment: string, data: Record<string, unknown>, now: string): Promise<void> {
    const hooks = (await hooksOf(projectId)).filter((h) => h.events.includes('*') || h.events.includes(kind))
    if (!hooks.length) return
    const body = JSON.stringify({ event: kind, resource, environment, data, timestamp: now })
    const rows: DeliveryRow[] = hooks.map((h) => ({
      id: crypto.randomUUID(),
      webhookId: h.id,
      projectId,
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

  async function record(tx: Db, change: Change, now: string, gate: ReturnType<typeof changeGate>, hooksOf: HooksOf): Promise<void> {
    // Refuses a direct change to a protected environment (throws: the transaction rolls back).
    const protectedHit = await gate(change)
    const authority = protectedHit.length ? change.authority : undefined
    await store.audit.insert(tx, {
      projectId: change.projectId,
      timestamp: now,
      actor: change.actor,
      action: change.action,
      resourceType: change.resourceType,
      resourceKey: change.resourceKey,
      actorType: change.actorType ?? (change.actor === 'cli' ? 'cli' : 'token'),
      credential: change.credential ?? null,
      details: detailsOf(change, authority),
      before: change.before ?? null,
      after: change.after ?? null,
    })
    if (authority?.kind === 'bypass') {
      await enqueue(tx, hooksOf, change.projectId, 'change_request.bypassed', change.resourceKey, change.event?.environment ?? '', {
        actor: change.actor, reason: authority.reason, resource_type: change.resourceType, key: change.resourceKey, action: change.action, environments: protectedHit,
      }, now)
    }
    if (!change.event) return
    const { kind, environment, data } = change.event
    await enqueue(tx, hooksOf, change.projectId, kind, change.resourceKey, environment, data, now)
  }

  return {
    /** fn does its writes with `tx` and calls `record` once per change it makes. */
    async run<T>(fn: (tx: Db, record: RecordChange) => Promise<T>): Promise<T> {
      const notices: ChangeNotice[] = []
      const result = await store.transaction(async (tx) => {
        // A project's webhooks are read once per transaction (an import records thousands of changes),
        // again after a change to a webhook itself.
        const hooks = new Map<string, ReturnType<Store['webhooks']['byProject']>>()
        const hooksOf = (projectId: string) => {
          let h = hooks.get(projectId)
          if (!h) hooks.set(projectId, (h = store.webhooks.byProject(tx, projectId)))
          return h
        }
        const streamed = new Map<string, { notice: ChangeNotice; entry: Parameters<Store['changes']['append']>[2][number] }[]>()
        const gate = changeGate(store, tx)
        const value = await fn(tx, async (change) => {
          const now = new Date().toISOString()
          if (change.resourceType === 'webhook') hooks.delete(change.projectId)
          await record(tx, change, now, gate, hooksOf)
          const notice: ChangeNotice = { projectId: change.projectId, resourceType: change.resourceType, resourceKey: change.resourceKey }
          notices.push(notice)
          if (!STREAMED_TYPES.has(change.resourceType)) return
          const entry = {
            resourceType: change.resourceType, resourceKey: change.resourceKey, action: change.action,
            version: versionOf(change.after ?? change.before), environment: change.event?.environment ?? '', createdAt: now,
          }
          streamed.set(change.projectId, [...(streamed.get(change.projectId) ?? []), { notice, entry }])
        })
        // Numbered last, once per project: the sequence row's lock is the last one this transaction takes.
        for (const [projectId, items] of streamed) {
          const rows = await store.changes.append(tx, projectId, items.map((i) => i.entry), replayLimit)
          rows.forEach((row, i) => (items[i]!.notice.change = streamChange(row)))
        }
        return value
      })
      for (const n of notices) await bus.publish(n)
      return result
    },
  }
}
export type ChangeRunner = ReturnType<typeof createChangeRunner>
