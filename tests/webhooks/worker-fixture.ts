// What the delivery worker suites (worker.test.ts, worker-queue.test.ts) share: a real store (temp SQLite
// file), scripted local receivers, queued rows, a worker with short retry gaps, and waiting for a state.
import { afterEach } from 'bun:test'
import type { Server } from 'bun'
import { openDatabase } from '../../server/store/database'
import { createStore, type Store } from '../../server/store'
import type { DeliveryRow } from '../../server/store/deliveries'
import { startDeliveryWorker, type DeliveryWorker, type DeliveryWorkerOptions } from '../../server/webhooks/worker'
import { tempSqliteUrl } from '../helpers/temp'

interface Received {
  at: number
  headers: Record<string, string>
  body: string
  url: string
}

export const servers: Server<unknown>[] = []
const workers: DeliveryWorker[] = []
/** Registers, in the calling test file, the stop of every receiver and worker after each test. */
export function stopAfterEach(): void {
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()))
    servers.splice(0).forEach((s) => s.stop(true))
  })
}

/** A receiver on 127.0.0.1 whose answers are scripted: status codes in order (last repeats), 'hang', or a Response. */
export function receiver(script: (n: number) => number | 'hang' | Response = () => 200, tls?: { cert: string; key: string }) {
  const got: Received[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    tls,
    async fetch(req) {
      const r: Received = { at: Date.now(), headers: Object.fromEntries(req.headers), body: await req.text(), url: req.url }
      got.push(r)
      const answer = script(got.length)
      if (answer === 'hang') return new Promise<Response>(() => undefined)
      if (answer instanceof Response) return answer
      return new Response(answer >= 400 ? 'receiver says no' : 'ok', { status: answer })
    },
  })
  servers.push(server)
  return { got, url: `${tls ? 'https' : 'http'}://127.0.0.1:${server.port}/hook`, port: server.port }
}

export async function newStore(): Promise<Store> {
  return createStore(await openDatabase(tempSqliteUrl('flagship-worker-')))
}

export async function addWebhook(store: Store, url: string, secret: string | null = null, id = crypto.randomUUID()) {
  await store.transaction((tx) =>
    store.webhooks.insert(tx, { id, projectId: 'p1', url, secret, events: ['*'], createdAt: new Date().toISOString() }),
  )
  return id
}

export async function enqueue(store: Store, webhookId: string, over: Partial<DeliveryRow> = {}): Promise<DeliveryRow> {
  const now = new Date().toISOString()
  const payload = JSON.stringify({
    event: 'flag.updated',
    resource: 'checkout',
    environment: '',
    data: { enabled: true, value: true, version: 2 },
    timestamp: now,
  })
  const row: DeliveryRow = {
    id: crypto.randomUUID(),
    webhookId,
    projectId: 'p1',
    event: 'flag.updated',
    payload,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    lastStatusCode: null,
    lastError: null,
    claimedBy: null,
    claimedUntil: null,
    createdAt: now,
    updatedAt: now,
    ...over,
  }
  await store.transaction((tx) => store.deliveries.insert(tx, [row]))
  return row
}

export const logs: { msg: string; fields?: Record<string, unknown>; level?: string }[] = []
export function worker(store: Store, over: Partial<DeliveryWorkerOptions> = {}) {
  const w = startDeliveryWorker({
    store,
    settings: { webhookAllowPrivateTargets: true },
    instanceId: `test-${crypto.randomUUID().slice(0, 8)}`,
    log: (msg, fields, level) => logs.push({ msg, fields, level }),
    pollIntervalMs: 50,
    retryDelaysMs: [100, 400],
    backoffBaseMs: 100,
    attemptTimeoutMs: 500,
    ...over,
  })
  workers.push(w)
  return w
}

export async function until<T>(fn: () => Promise<T | undefined | false>, ms = 5000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > end) throw new Error('condition not reached in time')
    await Bun.sleep(20)
  }
}

export const rowOf = (store: Store, r: DeliveryRow) => store.deliveries.get(store.db, r.webhookId, r.id) as Promise<DeliveryRow>
export const settled = (store: Store, r: DeliveryRow) =>
  until(async () => {
    const row = await rowOf(store, r)
    return (row.status === 'delivered' || row.status === 'failed') && row
  })
