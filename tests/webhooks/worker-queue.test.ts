// The delivery worker's queues: expired claims, counts for /metrics, per-webhook order, parallel webhooks,
// two workers on one store, requeue, pruning, stop, and a failing webhook's backoff and pause. Against a
// real store (temp SQLite file) and real local receivers (worker-fixture.ts).
import { describe, expect, test } from 'bun:test'
import type { DeliveryRow } from '../../server/store/deliveries'
import { OperationCounts } from '../../server/metrics/counts'
import { addWebhook, enqueue, logs, newStore, receiver, rowOf, servers, settled, stopAfterEach, until, worker } from './worker-fixture'

stopAfterEach()

describe('delivery worker: queues', () => {
  test('a row stuck in delivering under an expired claim is picked up again; a stuck final attempt fails', async () => {
    const store = await newStore()
    const rx = receiver()
    const past = new Date(Date.now() - 60_000).toISOString()
    // three webhooks (one in flight at a time is the rule for each)
    const stuck = await enqueue(store, await addWebhook(store, rx.url), {
      status: 'delivering',
      attempts: 1,
      claimedBy: 'dead',
      claimedUntil: past,
      nextAttemptAt: past,
    })
    const live = await enqueue(store, await addWebhook(store, rx.url), {
      status: 'delivering',
      attempts: 1,
      claimedBy: 'alive',
      claimedUntil: new Date(Date.now() + 60_000).toISOString(),
    })
    const last = await enqueue(store, await addWebhook(store, rx.url), {
      status: 'delivering',
      attempts: 3,
      claimedBy: 'dead',
      claimedUntil: past,
      nextAttemptAt: past,
    })
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

  test('counts every attempt by outcome (GET /metrics) and the backlog counts what is pending or in flight', async () => {
    const store = await newStore()
    const counts = new OperationCounts()
    const past = new Date(Date.now() - 60_000).toISOString()
    // delivered on the second attempt; failed on every attempt; a deleted webhook's; an interrupted last attempt
    const retried = await enqueue(store, await addWebhook(store, receiver((n) => (n === 1 ? 500 : 200)).url))
    const hopeless = await enqueue(store, await addWebhook(store, receiver(() => 503).url))
    const orphan = await enqueue(store, 'no-such-webhook')
    const interrupted = await enqueue(store, await addWebhook(store, receiver().url), {
      status: 'delivering',
      attempts: 3,
      claimedBy: 'dead',
      claimedUntil: past,
      nextAttemptAt: past,
    })
    // and one that stays queued: its webhook is paused
    const paused = await addWebhook(store, receiver().url)
    await store.transaction((tx) =>
      store.webhooks.recordFailure(tx, paused, new Date().toISOString(), () => ({ retryAt: new Date().toISOString(), pause: true })),
    )
    await enqueue(store, paused)
    expect(await store.deliveries.backlog(store.db)).toBe(5)
    worker(store, { counts }).kick()
    for (const row of [retried, hopeless, orphan, interrupted]) await settled(store, row)
    expect(counts.deliveries).toEqual({ delivered: 1, failed_attempt: 1 + 2, failed: 1 + 1 + 1 })
    expect(counts.storeErrors.webhooks).toBe(0)
    expect(await store.deliveries.backlog(store.db)).toBe(1)
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
    expect(await store.webhooks.byId(store.db, hook)).toMatchObject({
      pausedAt: null,
      consecutiveFailures: 0,
      failingSince: null,
      retryAt: null,
    })
    expect(paused.consecutiveFailures).toBeGreaterThan(1)
  }, 15_000)
})
