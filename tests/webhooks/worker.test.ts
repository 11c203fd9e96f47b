// The delivery worker against a real store (temp SQLite file) and real local receivers. Retry gaps and
// the timeout are shortened here; tests/api/webhook-delivery.test.ts measures the real 1 s / 4 s / 5 s.
import { afterAll, afterEach, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Server } from 'bun'
import { openDatabase } from '../../server/store/database'
import { createStore, type Store } from '../../server/store'
import type { DeliveryRow } from '../../server/store/deliveries'
import { startDeliveryWorker, type DeliveryWorker, type DeliveryWorkerOptions } from '../../server/webhooks/worker'
import { sign } from '../../server/webhooks/signer'
import { tempSqliteUrl } from '../helpers/temp'

interface Received {
  at: number
  headers: Record<string, string>
  body: string
  url: string
}

const servers: Server<unknown>[] = []
const workers: DeliveryWorker[] = []
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()))
  servers.splice(0).forEach((s) => s.stop(true))
})

/** A receiver on 127.0.0.1 whose answers are scripted: status codes in order (last repeats), 'hang', or a Response. */
function receiver(script: (n: number) => number | 'hang' | Response = () => 200, tls?: { cert: string; key: string }) {
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

async function newStore(): Promise<Store> {
  return createStore(await openDatabase(tempSqliteUrl('flagship-worker-')))
}

async function addWebhook(store: Store, url: string, secret: string | null = null, id = crypto.randomUUID()) {
  await store.transaction((tx) => store.webhooks.insert(tx, { id, projectId: 'p1', url, secret, events: ['*'], createdAt: new Date().toISOString() }))
  return id
}

async function enqueue(store: Store, webhookId: string, over: Partial<DeliveryRow> = {}): Promise<DeliveryRow> {
  const now = new Date().toISOString()
  const payload = JSON.stringify({ event: 'flag.updated', resource: 'checkout', environment: '', data: { enabled: true, value: true, version: 2 }, timestamp: now })
  const row: DeliveryRow = {
    id: crypto.randomUUID(), webhookId, projectId: 'p1', event: 'flag.updated', payload, status: 'pending', attempts: 0,
    nextAttemptAt: now, lastStatusCode: null, lastError: null, claimedBy: null, claimedUntil: null, createdAt: now, updatedAt: now, ...over,
  }
  await store.transaction((tx) => store.deliveries.insert(tx, [row]))
  return row
}

const logs: { msg: string; fields?: Record<string, unknown>; level?: string }[] = []
function worker(store: Store, over: Partial<DeliveryWorkerOptions> = {}) {
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

async function until<T>(fn: () => Promise<T | undefined | false>, ms = 5000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > end) throw new Error('condition not reached in time')
    await Bun.sleep(20)
  }
}

const rowOf = (store: Store, r: DeliveryRow) => store.deliveries.get(store.db, r.webhookId, r.id) as Promise<DeliveryRow>
const settled = (store: Store, r: DeliveryRow) => until(async () => {
  const row = await rowOf(store, r)
  return (row.status === 'delivered' || row.status === 'failed') && row
})

describe('delivery worker', () => {
  test('delivers with the contract headers and a signature of the raw body', async () => {
    const store = await newStore()
    const rx = receiver()
    const hook = await addWebhook(store, rx.url, 'top-secret')
    const row = await enqueue(store, hook)
    worker(store).kick()
    const done = await settled(store, row)
    expect(done).toMatchObject({ status: 'delivered', attempts: 1, lastStatusCode: 200, lastError: null, claimedBy: null })
    expect(rx.got).toHaveLength(1)
    const { headers, body } = rx.got[0]
    expect(body).toBe(row.payload)
    expect(headers['content-type']).toBe('application/json')
    expect(headers['user-agent']).toBe('flagship-webhooks/1.0')
    expect(headers['x-webhook-event']).toBe('flag.updated')
    expect(headers['x-webhook-delivery']).toBe(row.id)
    expect(headers['x-webhook-signature']).toBe(sign(row.payload, 'top-secret'))
    expect(headers['host']).toBe(`127.0.0.1:${rx.port}`)
  })

  test('no signature header without a secret', async () => {
    const store = await newStore()
    const rx = receiver()
    const row = await enqueue(store, await addWebhook(store, rx.url, null))
    worker(store).kick()
    expect((await settled(store, row)).status).toBe('delivered')
    expect(rx.got[0].headers['x-webhook-signature']).toBeUndefined()
  })

  test('retries on the schedule, same delivery id, then gives up with a warning that leaks no secret', async () => {
    const store = await newStore()
    const rx = receiver(() => 503)
    const hook = await addWebhook(store, rx.url, 'never-log-me')
    const row = await enqueue(store, hook)
    logs.length = 0
    worker(store).kick()
    const done = await settled(store, row)
    expect(done).toMatchObject({ status: 'failed', attempts: 3, lastStatusCode: 503 })
    expect(done.lastError).toContain('HTTP 503: receiver says no')
    expect(rx.got).toHaveLength(3)
    expect(new Set(rx.got.map((g) => g.headers['x-webhook-delivery']))).toEqual(new Set([row.id]))
    expect(rx.got.map((g) => g.headers['x-webhook-attempt'])).toEqual(['1', '2', '3'])
    const gap1 = rx.got[1].at - rx.got[0].at
    const gap2 = rx.got[2].at - rx.got[1].at
    expect(gap1).toBeGreaterThanOrEqual(95)
    expect(gap1).toBeLessThan(400)
    expect(gap2).toBeGreaterThanOrEqual(395)
    expect(gap2).toBeLessThan(800)
    const warning = logs.find((l) => l.level === 'warn' && l.msg === 'webhook delivery failed')
    expect(warning?.fields).toMatchObject({ webhook_id: hook, delivery_id: row.id, event: 'flag.updated', attempts: 3 })
    expect(JSON.stringify(logs)).not.toContain('never-log-me')
    await Bun.sleep(600)
    expect(rx.got).toHaveLength(3)
  })

  test('succeeds on a later attempt', async () => {
    const store = await newStore()
    const rx = receiver((n) => (n < 3 ? 500 : 204))
    const row = await enqueue(store, await addWebhook(store, rx.url))
    worker(store).kick()
    expect(await settled(store, row)).toMatchObject({ status: 'delivered', attempts: 3, lastStatusCode: 204, lastError: null })
  })

  test('an attempt that takes longer than the timeout fails', async () => {
    const store = await newStore()
    const rx = receiver((n) => (n === 1 ? 'hang' : 200))
    const row = await enqueue(store, await addWebhook(store, rx.url))
    worker(store, { attemptTimeoutMs: 300 }).kick()
    const done = await settled(store, row)
    expect(done).toMatchObject({ status: 'delivered', attempts: 2 })
    expect(rx.got[1].at - rx.got[0].at).toBeGreaterThanOrEqual(300 + 95)
  })

  test('redirects are not followed and count as failures', async () => {
    const store = await newStore()
    const target = receiver()
    const rx = receiver(() => new Response(null, { status: 302, headers: { location: target.url } }))
    const row = await enqueue(store, await addWebhook(store, rx.url))
    worker(store).kick()
    const done = await settled(store, row)
    expect(done).toMatchObject({ status: 'failed', attempts: 3, lastStatusCode: 302 })
    expect(done.lastError).toContain('redirects are not followed')
    expect(target.got).toHaveLength(0)
  })

  test('a large error body is kept only up to 4 KiB', async () => {
    const store = await newStore()
    const rx = receiver(() => new Response('x'.repeat(1_000_000), { status: 500 }))
    const row = await enqueue(store, await addWebhook(store, rx.url))
    worker(store, { retryDelaysMs: [] }).kick()
    const done = await settled(store, row)
    expect(done.status).toBe('failed')
    expect(done.lastError!.length).toBeLessThanOrEqual(4096 + 20)
  })

  test('connection refused is a failed attempt', async () => {
    const store = await newStore()
    const rx = receiver()
    servers.pop()!.stop(true)
    const row = await enqueue(store, await addWebhook(store, rx.url))
    worker(store, { retryDelaysMs: [] }).kick()
    const done = await settled(store, row)
    expect(done).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: null })
    expect(done.lastError).toBeTruthy()
    expect(done.lastError).not.toContain(rx.url)
  })

  test('a delivery whose webhook was deleted is marked failed', async () => {
    const store = await newStore()
    const row = await enqueue(store, 'no-such-webhook')
    worker(store).kick()
    expect(await settled(store, row)).toMatchObject({ status: 'failed', lastError: 'the webhook was deleted' })
  })

  test('at delivery time private targets are refused without WEBHOOK_ALLOW_PRIVATE_TARGETS', async () => {
    const store = await newStore()
    const rx = receiver()
    const literal = await enqueue(store, await addWebhook(store, rx.url))
    // a name that passes the syntax check but resolves to loopback (DNS rebinding after registration)
    const named = await enqueue(store, await addWebhook(store, `https://rebind.example.com:${rx.port}/hook`))
    worker(store, { settings: { webhookAllowPrivateTargets: false }, resolve: async () => ['93.184.216.34', '127.0.0.1'] }).kick()
    const a = await settled(store, literal)
    expect(a).toMatchObject({ status: 'failed', attempts: 1 })
    expect(a.lastError).toMatch(/webhook URL rejected: scheme must be https/)
    const b = await settled(store, named)
    expect(b).toMatchObject({ status: 'failed', attempts: 3 })
    expect(b.lastError).toMatch(/resolves to 127\.0\.0\.1, which is not public/)
    expect(rx.got).toHaveLength(0)
  })

  test('connects to the resolved address and keeps the host name in Host', async () => {
    const store = await newStore()
    const rx = receiver()
    const row = await enqueue(store, await addWebhook(store, `http://receiver.example.test:${rx.port}/hook?x=1`))
    const asked: string[] = []
    worker(store, { resolve: async (h) => (asked.push(h), ['127.0.0.1']) }).kick()
    expect((await settled(store, row)).status).toBe('delivered')
    expect(asked).toEqual(['receiver.example.test'])
    expect(rx.got[0].headers.host).toBe(`receiver.example.test:${rx.port}`)
    expect(new URL(rx.got[0].url).search).toBe('?x=1')
  })

  test('https: pinned to the checked address with SNI and certificate check on the host name', async () => {
    const dir = join(import.meta.dir, 'fixtures')
    const tls = { cert: readFileSync(join(dir, 'receiver-cert.pem'), 'utf8'), key: readFileSync(join(dir, 'receiver-key.pem'), 'utf8') }
    const store = await newStore()
    const rx = receiver(() => 200, tls)
    const good = await enqueue(store, await addWebhook(store, `https://hook.example.test:${rx.port}/hook`))
    const wrongName = await enqueue(store, await addWebhook(store, `https://evil.example.test:${rx.port}/hook`))
    worker(store, { resolve: async () => ['127.0.0.1'], tls: { ca: tls.cert }, retryDelaysMs: [] }).kick()
    expect((await settled(store, good)).status).toBe('delivered')
    expect(rx.got[0].headers.host).toBe(`hook.example.test:${rx.port}`)
    const bad = await settled(store, wrongName)
    expect(bad.status).toBe('failed')
    expect(bad.lastError).toMatch(/CERT|certificate|altname/i)
  })

  test('a row stuck in delivering under an expired claim is picked up again; a stuck final attempt fails', async () => {
    const store = await newStore()
    const rx = receiver()
    const past = new Date(Date.now() - 60_000).toISOString()
    // three webhooks (one in flight at a time is the rule for each)
    const stuck = await enqueue(store, await addWebhook(store, rx.url), { status: 'delivering', attempts: 1, claimedBy: 'dead', claimedUntil: past, nextAttemptAt: past })
    const live = await enqueue(store, await addWebhook(store, rx.url), { status: 'delivering', attempts: 1, claimedBy: 'alive', claimedUntil: new Date(Date.now() + 60_000).toISOString() })
    const last = await enqueue(store, await addWebhook(store, rx.url), { status: 'delivering', attempts: 3, claimedBy: 'dead', claimedUntil: past, nextAttemptAt: past })
    logs.length = 0
    worker(store).kick()
    expect(await settled(store, stuck)).toMatchObject({ status: 'delivered', attempts: 2 })
    expect(await settled(store, last)).toMatchObject({ status: 'failed', attempts: 3 })
    expect((await settled(store, last)).lastError).toMatch(/interrupted/)
    expect(logs.some((l) => l.level === 'warn' && l.fields?.delivery_id === last.id)).toBe(true)
    await Bun.sleep(200)
    expect((await rowOf(store, live)).status).toBe('delivering')
    expect(rx.got.map((g) => g.headers['x-webhook-delivery'])).toEqual([stuck.id])
  })

  test("one webhook's deliveries go in order, one at a time", async () => {
    const store = await newStore()
    let open = 0
    let peak = 0
    const order: string[] = []
    const server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch(req) {
        peak = Math.max(peak, ++open)
        order.push(req.headers.get('x-webhook-delivery')!)
        await Bun.sleep(20)
        open--
        return new Response('ok')
      },
    })
    servers.push(server)
    const hook = await addWebhook(store, `http://127.0.0.1:${server.port}/`)
    const rows: DeliveryRow[] = []
    for (let i = 0; i < 10; i++) rows.push(await enqueue(store, hook, { createdAt: new Date(Date.now() + i).toISOString() }))
    worker(store, { concurrency: 8 }).kick()
    for (const r of rows) expect((await settled(store, r)).status).toBe('delivered')
    expect(peak).toBe(1)
    expect(order).toEqual(rows.map((r) => r.id))
  })

  test('delivers to many webhooks in parallel, bounded by the concurrency', async () => {
    const store = await newStore()
    let open = 0
    let peak = 0
    const server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch() {
        peak = Math.max(peak, ++open)
        await Bun.sleep(150)
        open--
        return new Response('ok')
      },
    })
    servers.push(server)
    const rows: DeliveryRow[] = []
    for (let i = 0; i < 20; i++) rows.push(await enqueue(store, await addWebhook(store, `http://127.0.0.1:${server.port}/`)))
    const started = Date.now()
    worker(store, { concurrency: 8 }).kick()
    for (const r of rows) expect((await settled(store, r)).status).toBe('delivered')
    expect(peak).toBe(8)
    expect(Date.now() - started).toBeLessThan(20 * 150)
  })

  test('two workers on one store deliver each row exactly once', async () => {
    const store = await newStore()
    const rx = receiver()
    const hook = await addWebhook(store, rx.url)
    const rows = await Promise.all(Array.from({ length: 30 }, () => enqueue(store, hook)))
    worker(store).kick()
    worker(store).kick()
    for (const r of rows) expect((await settled(store, r)).status).toBe('delivered')
    const ids = rx.got.map((g) => g.headers['x-webhook-delivery'])
    expect(ids).toHaveLength(30)
    expect(new Set(ids).size).toBe(30)
  })

  test('redeliver (requeue) only takes failed rows and keeps id and payload', async () => {
    const store = await newStore()
    const rx = receiver((n) => (n === 1 ? 500 : 200))
    const row = await enqueue(store, await addWebhook(store, rx.url))
    const w = worker(store, { retryDelaysMs: [] })
    w.kick()
    expect((await settled(store, row)).status).toBe('failed')
    expect(await store.transaction((tx) => store.deliveries.requeue(tx, row.webhookId, 'nope', new Date().toISOString()))).toBeUndefined()
    const again = await store.transaction((tx) => store.deliveries.requeue(tx, row.webhookId, row.id, new Date().toISOString()))
    expect(again).toMatchObject({ id: row.id, status: 'pending', attempts: 0, payload: row.payload })
    w.kick()
    expect(await settled(store, row)).toMatchObject({ status: 'delivered', attempts: 1 })
    expect(rx.got.map((g) => g.headers['x-webhook-delivery'])).toEqual([row.id, row.id])
    expect(rx.got[1].body).toBe(row.payload)
    // a delivered row cannot be requeued
    expect(await store.transaction((tx) => store.deliveries.requeue(tx, row.webhookId, row.id, new Date().toISOString()))).toBeUndefined()
  })

  test('finished rows older than the retention are pruned; queued ones never', async () => {
    const store = await newStore()
    const hook = await addWebhook(store, 'http://127.0.0.1:9/')
    const old = new Date(Date.now() - 20 * 24 * 3600_000).toISOString()
    const future = new Date(Date.now() + 3600_000).toISOString()
    const oldDelivered = await enqueue(store, hook, { status: 'delivered', attempts: 1, createdAt: old, updatedAt: old })
    const oldFailed = await enqueue(store, hook, { status: 'failed', attempts: 3, createdAt: old, updatedAt: old })
    const oldPending = await enqueue(store, hook, { createdAt: old, updatedAt: old, nextAttemptAt: future })
    const recent = await enqueue(store, hook, { status: 'delivered', attempts: 1 })
    worker(store)
    await until(async () => !(await rowOf(store, oldDelivered)) && !(await rowOf(store, oldFailed)))
    expect(await rowOf(store, oldPending)).toBeDefined()
    expect(await rowOf(store, recent)).toBeDefined()
  })

  test('stop() waits for the attempt in flight and records it', async () => {
    const store = await newStore()
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: async () => (await Bun.sleep(200), new Response('ok')) })
    servers.push(server)
    const row = await enqueue(store, await addWebhook(store, `http://127.0.0.1:${server.port}/`))
    const w = worker(store)
    w.kick()
    await until(async () => (await rowOf(store, row)).status === 'delivering')
    await w.stop()
    expect((await rowOf(store, row)).status).toBe('delivered')
  })
})

describe('a failing webhook', () => {
  test('is backed off exponentially across its deliveries (1, 2, 4, 8 … times the base)', async () => {
    const store = await newStore()
    const rx = receiver(() => 500)
    const hook = await addWebhook(store, rx.url)
    const first = await enqueue(store, hook)
    const second = await enqueue(store, hook, { createdAt: new Date(Date.now() + 1).toISOString() })
    worker(store).kick() // base 100 ms, row retries after 100 and 400 ms
    await settled(store, first)
    await settled(store, second)
    const gaps = rx.got.slice(1).map((g, i) => g.at - rx.got[i]!.at)
    expect(rx.got).toHaveLength(6)
    // attempt gaps: max(row delay, webhook backoff): 100, 400, then the webhook's 400, 800, 1600
    expect(gaps[3]).toBeGreaterThanOrEqual(780)
    expect(gaps[4]).toBeGreaterThanOrEqual(1580)
    const health = await store.webhooks.byId(store.db, hook)
    expect(health).toMatchObject({ consecutiveFailures: 6, pausedAt: null })
    expect(health!.failingSince).not.toBeNull()
  }, 15_000)

  test('is paused after failing for the pause window; its queue waits; resumed, it delivers and is healthy', async () => {
    const store = await newStore()
    let up = false
    const rx = receiver(() => (up ? 200 : 503))
    const hook = await addWebhook(store, rx.url)
    logs.length = 0
    const w = worker(store, { pauseAfterMs: 300, backoffMaxMs: 150, retryDelaysMs: [50, 50] })
    const rows: DeliveryRow[] = []
    for (let i = 0; i < 4; i++) rows.push(await enqueue(store, hook, { createdAt: new Date(Date.now() + i).toISOString() }))
    w.kick()
    const paused = await until(async () => {
      const h = await store.webhooks.byId(store.db, hook)
      return h?.pausedAt ? h : undefined
    })
    expect(logs.some((l) => l.msg.startsWith('webhook paused') && l.fields?.webhook_id === hook)).toBe(true)
    const hits = rx.got.length
    await Bun.sleep(500)
    expect(rx.got.length).toBe(hits) // paused: no attempts
    const waiting = await Promise.all(rows.map((r) => rowOf(store, r)))
    expect(waiting.some((r) => r.status === 'pending')).toBe(true)
    up = true
    await store.transaction((tx) => store.webhooks.resume(tx, hook))
    for (const r of waiting.filter((r) => r.status === 'pending')) expect((await settled(store, r)).status).toBe('delivered')
    expect(await store.webhooks.byId(store.db, hook)).toMatchObject({ pausedAt: null, consecutiveFailures: 0, failingSince: null, retryAt: null })
    expect(paused.consecutiveFailures).toBeGreaterThan(1)
  }, 15_000)
})

