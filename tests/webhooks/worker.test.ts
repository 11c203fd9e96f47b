// The delivery worker, one delivery at a time: headers and signature, retries and their schedule, timeouts,
// redirects, refused connections, private targets, pinned addresses and TLS. Against a real store (temp
// SQLite file) and real local receivers; retry gaps and the timeout are shortened here
// (tests/api/webhook-delivery.test.ts measures the real 1 s / 4 s / 5 s). Queues: worker-queue.test.ts.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sign } from '../../server/webhooks/signer'
import { addWebhook, enqueue, logs, newStore, receiver, servers, settled, stopAfterEach, worker } from './worker-fixture'

stopAfterEach()

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
    expect(headers.host).toBe(`127.0.0.1:${rx.port}`)
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
})
