// server/cluster: between instances. Change fan-out between instances: every change notice published on this
// instance is broadcast, and notices from other instances are applied to this instance's cache. Redis pub/sub
// when REDIS_URL is set, else PostgreSQL LISTEN/NOTIFY; nothing for the embedded SQLite store (one instance).
// The periodic reconcile in index.ts heals any notice lost while a connection was down.
import Redis from 'ioredis'
import type postgres from 'postgres'
import type { ChangeBus, ChangeNotice } from '../services/events'
import { errorForLog, type Log } from '../log'

const CHANNEL = 'flagship_changes'

interface Wire extends ChangeNotice {
  origin: string
}

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
  log: Log
}): Promise<Fanout> {
  const { instanceId, bus, apply, log } = opts
  const receive = (raw: string) => {
    let msg: Wire
    try {
      msg = JSON.parse(raw)
    } catch {
      return
    }
    if (msg.origin === instanceId) return
    apply({ projectId: msg.projectId, resourceType: msg.resourceType, resourceKey: msg.resourceKey, ...(msg.change && { change: msg.change }) }).catch((e) =>
      log('applying a change notice failed; the next reconcile will catch up', errorForLog(e), 'warn'),
    )
  }
  const wire = (n: ChangeNotice): string => JSON.stringify({ ...n, origin: instanceId } satisfies Wire)
  // Broadcast is fire-and-forget: a write's response does not wait for other instances.
  const forward = (send: (message: string) => Promise<unknown>) =>
    bus.subscribe((n) => {
      send(wire(n)).catch((e) => log('publishing a change notice failed', errorForLog(e), 'warn'))
    })

  if (opts.redisUrl) {
    const pub = new Redis(opts.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true })
    const sub = new Redis(opts.redisUrl, { maxRetriesPerRequest: null, lazyConnect: true })
    for (const c of [pub, sub]) c.on('error', (e) => log('redis connection error', { error: e.message }, 'warn'))
    await Promise.all([pub.connect(), sub.connect()])
    await sub.subscribe(CHANNEL)
    sub.on('message', (_channel, raw) => receive(raw))
    const unsubscribe = forward((message) => pub.publish(CHANNEL, message))
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
    const unsubscribe = forward((message) => sql.notify(CHANNEL, message))
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
