// server/cluster: between instances. Change fan-out between instances: every change notice published on this
// instance is broadcast, and notices from other instances are applied to this instance's cache. Redis pub/sub
// when REDIS_URL is set, else PostgreSQL LISTEN/NOTIFY; nothing for the embedded SQLite store (one instance).
// The periodic reconcile in index.ts heals any notice lost while a connection was down.
import type postgres from 'postgres'
import type { ChangeBus, ChangeNotice } from '../notices/changes'
import { errorForLog, type Log } from '../log'
import { batchMessages, readMessage, singleMessage } from './notice-wire'

const CHANNEL = 'flagship_changes'
/** NOTIFY refuses a payload of 8000 bytes or more; Redis has no such limit worth meeting. */
const MAX_BYTES = { postgres: 7900, redis: 256 * 1024 }

export interface Fanout {
  kind: 'redis' | 'postgres' | 'none'
  stop(): Promise<void>
}

export async function startFanout(opts: {
  instanceId: string
  redisUrl?: string
  pg?: postgres.Sql
  bus: ChangeBus
  apply: (notice: ChangeNotice) => Promise<void>
  /** applies the notices of one of another instance's commits together, in order */
  applyAll: (notices: readonly ChangeNotice[]) => Promise<void>
  log: Log
}): Promise<Fanout> {
  const { instanceId, bus, apply, applyAll, log } = opts
  const failed = (e: unknown) => log('applying a change notice failed; the next reconcile will catch up', errorForLog(e), 'warn')
  // The messages of one commit are applied one after the other, in the order they were sent: each then
  // continues the change stream where the last left off (out of order, the hub would fill the gap from the
  // store, reloading document by document).
  let batches = Promise.resolve()
  const receive = (raw: string) => {
    const msg = readMessage(raw)
    if (!msg || msg.origin === instanceId) return
    if (msg.notices.length === 1) apply(msg.notices[0]!).catch(failed)
    else batches = batches.then(() => applyAll(msg.notices)).catch(failed)
  }
  // Broadcast is fire-and-forget: a write's response does not wait for other instances. A commit's batch
  // messages are sent one after the other, so they arrive in order.
  const forward = (send: (message: string) => Promise<unknown>, maxBytes: number) => {
    const sendFailed = (e: unknown) => log('publishing a change notice failed', errorForLog(e), 'warn')
    return bus.subscribe(
      (n) => void send(singleMessage(instanceId, n)).catch(sendFailed),
      (notices) => {
        void batchMessages(instanceId, notices, maxBytes).reduce(
          (sent: Promise<unknown>, m) => sent.then(() => send(m).catch(sendFailed)),
          Promise.resolve(),
        )
      },
    )
  }

  if (opts.redisUrl) {
    // ioredis is loaded only by an instance configured with REDIS_URL (memory and start time).
    const { default: Redis } = await import('ioredis')
    const pub = new Redis(opts.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true })
    const sub = new Redis(opts.redisUrl, { maxRetriesPerRequest: null, lazyConnect: true })
    for (const c of [pub, sub]) c.on('error', (e) => log('redis connection error', { error: e.message }, 'warn'))
    await Promise.all([pub.connect(), sub.connect()])
    await sub.subscribe(CHANNEL)
    sub.on('message', (_channel, raw) => receive(raw))
    const unsubscribe = forward((message) => pub.publish(CHANNEL, message), MAX_BYTES.redis)
    return {
      kind: 'redis',
      async stop() {
        unsubscribe()
        pub.disconnect()
        sub.disconnect()
      },
    }
  }

  if (opts.pg) {
    const sql = opts.pg
    const listener = await sql.listen(CHANNEL, receive)
    const unsubscribe = forward((message) => sql.notify(CHANNEL, message), MAX_BYTES.postgres)
    return {
      kind: 'postgres',
      async stop() {
        unsubscribe()
        await listener.unlisten().catch(() => {})
      },
    }
  }

  return { kind: 'none', async stop() {} }
}
