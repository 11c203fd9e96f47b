// The one place a change is committed: the row change, its audit entry, one outbox row per subscribed
// webhook and its numbered change-stream entry are written in a single transaction; change notices are
// published only after the commit.
import type { Store, Db } from '../store'
import type { DeliveryRow } from '../store/deliveries'
import type { ChangeRow } from '../store/changes'
import type { NewAuditRow } from '../store/audit'
import { ROWS_PER_STATEMENT } from '../store/chunks'
import { STREAMED_TYPES, type Change, type ChangeBus, type ChangeNotice, type StreamChange } from '../notices/changes'
import type { EventKind } from '../store/vocabulary/changes'
import { changeGate } from './change-gate'

/** Records one change inside the running transaction (audit entry + outbox rows). */
export type RecordChange = (change: Change) => Promise<void>

export interface RunOptions {
  /** Buffers the audit entries and outbox rows and writes them a few hundred per statement (a change set
   *  of thousands). Only for a `fn` that never reads the audit log or the outbox inside the transaction:
   *  what it recorded is not there until the buffer is written (at the latest when `fn` returns). */
  batched?: boolean
}

/** Where `record` puts its rows: straight into the store, or into a buffer written in chunks. */
interface RecordSink {
  write(audit: NewAuditRow, deliveries: DeliveryRow[]): Promise<void>
  flush(): Promise<void>
}

function immediateSink(store: Store, tx: Db): RecordSink {
  return {
    async write(audit, deliveries) {
      await store.audit.insert(tx, audit)
      await store.deliveries.insert(tx, deliveries)
    },
    async flush() {},
  }
}

function bufferedSink(store: Store, tx: Db): RecordSink {
  let audit: NewAuditRow[] = []
  let deliveries: DeliveryRow[] = []
  const flush = async () => {
    const [a, d] = [audit, deliveries]
    audit = []
    deliveries = []
    await store.audit.insertMany(tx, a)
    await store.deliveries.insert(tx, d)
  }
  return {
    async write(a, d) {
      audit.push(a)
      deliveries.push(...d)
      if (audit.length >= ROWS_PER_STATEMENT || deliveries.length >= ROWS_PER_STATEMENT) await flush()
    },
    flush,
  }
}

const versionOf = (view: unknown): number | null => {
  const v = (view as { version?: unknown } | null)?.version
  return typeof v === 'number' ? v : null
}

const streamChange = (row: ChangeRow): StreamChange => ({
  seq: row.seq,
  resource_type: row.resourceType,
  key: row.resourceKey,
  action: row.action,
  version: row.version,
  environment: row.environment,
  at: row.createdAt,
})

/** An audit entry's details: why a change to a protected environment was allowed (a break-glass reason,
 *  or the change request and its approvers), and what the change itself carries (an import's change set). */
function detailsOf(change: Change, authority: Change['authority'], emergency: boolean): Record<string, unknown> | null {
  const why = emergency
    ? { emergency: true }
    : authority?.kind === 'bypass'
      ? { bypass_reason: authority.reason }
      : change.authority?.kind === 'change_request'
        ? { change_request: change.authority.id, approvers: change.authority.approvers }
        : undefined
  return why || change.details ? { ...change.details, ...why } : null
}

/** replayLimit: how many of each project's newest stream entries are kept for resuming clients. */
export function createChangeRunner(store: Store, bus: ChangeBus, replayLimit: number) {
  type HooksOf = (projectId: string) => ReturnType<Store['webhooks']['byProject']>

  /** The outbox rows that queue `kind` for every webhook of the project subscribed to it. */
  async function outboxRows(
    hooksOf: HooksOf,
    projectId: string,
    kind: EventKind,
    resource: string,
    environment: string,
    data: Record<string, unknown>,
    now: string,
  ): Promise<DeliveryRow[]> {
    const hooks = (await hooksOf(projectId)).filter((h) => h.events.includes('*') || h.events.includes(kind))
    if (!hooks.length) return []
    const body = JSON.stringify({ event: kind, resource, environment, data, timestamp: now })
    return hooks.map((h) => ({
      // Time-ordered and increasing within a process (UUIDv7 with a counter): a webhook's queue is sent in
      // (created_at, id) order, so the many rows of one change set that share a millisecond go out in the
      // order their changes were made.
      id: Bun.randomUUIDv7(),
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
  }

  async function record(
    sink: RecordSink,
    change: Change,
    now: string,
    gate: ReturnType<typeof changeGate>,
    hooksOf: HooksOf,
  ): Promise<void> {
    // Refuses a direct change to a protected environment (throws: the transaction rolls back).
    const { environments: protectedHit, emergency } = await gate(change)
    const authority = protectedHit.length ? change.authority : undefined
    const audit: NewAuditRow = {
      projectId: change.projectId,
      timestamp: now,
      actor: change.actor,
      action: change.action,
      resourceType: change.resourceType,
      resourceKey: change.resourceKey,
      actorType: change.actorType ?? (change.actor === 'cli' ? 'cli' : 'token'),
      credential: change.credential ?? null,
      details: detailsOf(change, authority, emergency),
      before: change.before ?? null,
      after: change.after ?? null,
    }
    const deliveries: DeliveryRow[] = []
    if (authority?.kind === 'bypass' || emergency) {
      deliveries.push(
        ...(await outboxRows(
          hooksOf,
          change.projectId,
          'change_request.bypassed',
          change.resourceKey,
          change.event?.environment ?? '',
          {
            actor: change.actor,
            reason: emergency ? 'emergency_off' : (authority as { reason: string }).reason,
            resource_type: change.resourceType,
            key: change.resourceKey,
            action: change.action,
            environments: protectedHit,
          },
          now,
        )),
      )
    }
    if (change.event) {
      const { kind, environment, data } = change.event
      deliveries.push(...(await outboxRows(hooksOf, change.projectId, kind, change.resourceKey, environment, data, now)))
    }
    for (const { kind, environment, data } of change.alsoEmit ?? [])
      deliveries.push(...(await outboxRows(hooksOf, change.projectId, kind, change.resourceKey, environment, data, now)))
    await sink.write(audit, deliveries)
  }

  return {
    /** fn does its writes with `tx` and calls `record` once per change it makes. */
    async run<T>(fn: (tx: Db, record: RecordChange) => Promise<T>, opts: RunOptions = {}): Promise<T> {
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
        const sink = opts.batched ? bufferedSink(store, tx) : immediateSink(store, tx)
        const value = await fn(tx, async (change) => {
          const now = new Date().toISOString()
          if (change.resourceType === 'webhook') hooks.delete(change.projectId)
          await record(sink, change, now, gate, hooksOf)
          const notice: ChangeNotice = { projectId: change.projectId, resourceType: change.resourceType, resourceKey: change.resourceKey }
          notices.push(notice)
          if (!STREAMED_TYPES.has(change.resourceType)) return
          const entry = {
            resourceType: change.resourceType,
            resourceKey: change.resourceKey,
            action: change.action,
            version: versionOf(change.after ?? change.before),
            environment: change.event?.environment ?? '',
            createdAt: now,
          }
          let items = streamed.get(change.projectId)
          if (!items) streamed.set(change.projectId, (items = []))
          items.push({ notice, entry })
        })
        await sink.flush()
        // Numbered last, once per project: the sequence row's lock is the last one this transaction takes.
        for (const [projectId, items] of streamed) {
          const rows = await store.changes.append(
            tx,
            projectId,
            items.map((i) => i.entry),
            replayLimit,
          )
          rows.forEach((row, i) => (items[i]!.notice.change = streamChange(row)))
        }
        return value
      })
      // One batch: listeners that can take the notices of a large change set together (the cache's bulk
      // reload, the fan-out's few messages) do.
      await bus.publishAll(notices)
      return result
    },
  }
}
export type ChangeRunner = ReturnType<typeof createChangeRunner>
