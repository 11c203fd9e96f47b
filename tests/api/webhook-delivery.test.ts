// Webhook delivery end to end: the real server process (WEBHOOK_ALLOW_PRIVATE_TARGETS=1) posting to real
// receivers on 127.0.0.1 in this test process. The slow tests (retry schedule, timeout, crash) run
// concurrently, each against its own server.
import { afterAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import type { Server } from 'bun'
import { api, startServer, type TestServer } from '../helpers/server'
import { until } from '../helpers/until'

interface Hit {
  at: number
  headers: Record<string, string>
  body: string
  json: any
  answered: number | 'hang'
}

// Timed tests assert what was recorded (the receiver stamps each attempt as it arrives; the service records
// attempts and outcomes), never how fast the machine got there: waits have deadlines generous enough for a
// loaded machine (npm test on a busy laptop), and each slow test allows for its own server's start (up to
// 60 s under load) on top. Gaps between attempts are checked against the schedule within a tolerance:
// never earlier (a stamp may be late by a few ms, so EARLY_MS), and at most LATE_MS later (the service's
// own work between attempts, and a busy machine's late timers and stamps).
const WAIT_MS = 60_000
const SLOW_TEST_MS = 180_000
const EARLY_MS = 50
const LATE_MS = 1000
/** The gap between two recorded attempts is the scheduled one, within the tolerance above. */
function expectGap(gap: number, scheduled: number): void {
  expect(gap).toBeGreaterThanOrEqual(scheduled - EARLY_MS)
  expect(gap).toBeLessThan(scheduled + LATE_MS)
}

const cleanups: (() => unknown)[] = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
})

async function server(opts: Parameters<typeof startServer>[0] = {}): Promise<TestServer> {
  const srv = await startServer(opts)
  cleanups.push(() => srv.stop())
  return srv
}

/** A receiver on 127.0.0.1; `answer` decides per request (1-based count): a status, or 'hang' (answers after 7 s). */
function receiver(answer: (n: number, hit: Hit) => number | 'hang' = () => 200) {
  const hits: Hit[] = []
  const srv: Server<unknown> = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 30,
    async fetch(req) {
      const body = await req.text()
      const hit: Hit = { at: Date.now(), headers: Object.fromEntries(req.headers), body, json: JSON.parse(body), answered: 0 }
      hits.push(hit)
      hit.answered = answer(hits.length, hit)
      if (hit.answered === 'hang') {
        await Bun.sleep(7000)
        return new Response('too late')
      }
      return new Response(hit.answered >= 400 ? 'receiver failure' : 'ok', { status: hit.answered })
    },
  })
  cleanups.push(() => srv.stop(true))
  return { hits, url: `http://127.0.0.1:${srv.port}/hook` }
}

const hmac = (body: string, secret: string) => createHmac('sha256', secret).update(body).digest('hex')
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

async function register(srv: TestServer, body: { url: string; events: string[]; secret?: string }): Promise<string> {
  const res = await api(srv, 'POST', '/api/v1/webhooks', { token: srv.adminToken, body })
  expect(res.status).toBe(201)
  return res.body.id
}

const deliveries = async (srv: TestServer, hook: string) => {
  const res = await api(srv, 'GET', `/api/v1/webhooks/${hook}/deliveries`, { token: srv.adminToken })
  expect(res.status).toBe(200)
  return res.body.deliveries as any[]
}

const call = async (srv: TestServer, method: string, path: string, body?: unknown) => {
  const res = await api(srv, method, path, { token: srv.adminToken, body })
  expect(res.status).toBeLessThan(300)
  return res.body
}

describe('webhook delivery', () => {
  test.concurrent(
    'every event kind: payload, headers and signature; events filter; delivery log',
    async () => {
      const srv = await server()
      const all = receiver()
      const some = receiver()
      const secret = 'whsec-every-event-9f3a'
      const hookAll = await register(srv, { url: all.url, events: ['*'], secret })
      const hookSome = await register(srv, { url: some.url, events: ['flag.created', 'token.deleted'] })

      await call(srv, 'POST', '/api/v1/flags', { key: 'checkout', enabled: true, value: true })
      await call(srv, 'PUT', '/api/v1/flags/checkout', { enabled: false })
      await call(srv, 'PUT', '/api/v1/flags/checkout/environments/production', { enabled: true, value: true })
      await call(srv, 'DELETE', '/api/v1/flags/checkout')
      await call(srv, 'POST', '/api/v1/configs', { key: 'limits', value: { max: 5 } })
      await call(srv, 'PUT', '/api/v1/configs/limits', { value: { max: 6 } })
      await call(srv, 'DELETE', '/api/v1/configs/limits')
      const conditions = [{ property: 'plan', operator: 'equals', value: 'pro' }]
      await call(srv, 'POST', '/api/v1/segments', { key: 'beta', conditions })
      await call(srv, 'PUT', '/api/v1/segments/beta', { conditions: [{ property: 'plan', operator: 'in', value: ['pro', 'team'] }] })
      await call(srv, 'DELETE', '/api/v1/segments/beta')
      const token = await call(srv, 'POST', '/api/v1/tokens', { name: 'ci', project_id: 'default', permissions: ['read:flags'] })
      await call(srv, 'DELETE', `/api/v1/tokens/${token.meta.hash}`)
      await call(srv, 'PUT', '/api/v1/project', { name: 'Renamed project' })

      await until('13 deliveries', () => all.hits.length >= 13 && some.hits.length >= 2, WAIT_MS)
      await Bun.sleep(300) // nothing else arrives
      expect(all.hits).toHaveLength(13)
      expect(some.hits).toHaveLength(2)

      // Deliveries run in parallel; order by the event timestamps (one per change, increasing).
      const hits = [...all.hits].sort((a, b) => a.json.timestamp.localeCompare(b.json.timestamp))
      expect(hits.map((h) => [h.json.event, h.json.resource, h.json.environment])).toEqual([
        ['flag.created', 'checkout', ''],
        ['flag.updated', 'checkout', ''],
        ['flag.updated', 'checkout', 'production'],
        ['flag.deleted', 'checkout', ''],
        ['config.created', 'limits', ''],
        ['config.updated', 'limits', ''],
        ['config.deleted', 'limits', ''],
        ['segment.created', 'beta', ''],
        ['segment.updated', 'beta', ''],
        ['segment.deleted', 'beta', ''],
        ['token.created', token.meta.token_prefix, ''],
        ['token.deleted', token.meta.token_prefix, ''],
        ['project.updated', 'default', ''],
      ])
      const data = hits.map((h) => h.json.data)
      expect(data[0]).toMatchObject({ enabled: true, value: true, version: 1 })
      expect(data[1]).toMatchObject({ enabled: false, value: true, version: 2 })
      expect(data[2]).toMatchObject({ version: 3 })
      expect(data[3]).toMatchObject({ enabled: false, value: true, version: 3 })
      expect(data[4]).toMatchObject({ value: { max: 5 }, version: 1 })
      expect(data[5]).toMatchObject({ value: { max: 6 }, version: 2 })
      expect(data[6]).toMatchObject({ value: { max: 6 }, version: 2 })
      expect(data[7]).toMatchObject({ conditions, version: 1 })
      expect(data[8]).toMatchObject({ conditions: [{ property: 'plan', operator: 'in', value: ['pro', 'team'] }], version: 2 })
      expect(data[9]).toMatchObject({ version: 2 })
      expect(data[10]).toMatchObject({ name: 'ci', token_prefix: token.meta.token_prefix, permissions: ['read:flags'] })
      expect(data[11]).toMatchObject({ name: 'ci', token_prefix: token.meta.token_prefix, permissions: ['read:flags'] })
      expect(data[12]).toMatchObject({ name: 'Renamed project', slug: 'default', environments: expect.arrayContaining(['production']) })

      for (const h of hits) {
        expect(Object.keys(h.json).sort()).toEqual(['data', 'environment', 'event', 'resource', 'timestamp'])
        expect(h.json.timestamp).toMatch(ISO_MS)
        expect(h.headers['content-type']).toBe('application/json')
        expect(h.headers['user-agent']).toBe('flagship-webhooks/1.0')
        expect(h.headers['x-webhook-event']).toBe(h.json.event)
        expect(h.headers['x-webhook-delivery']).toMatch(/^[0-9a-f-]{36}$/)
        expect(h.headers['x-webhook-signature']).toBe(hmac(h.body, secret))
        // token plaintext and hash never leave the service
        expect(h.body).not.toContain(token.token)
        expect(h.body).not.toContain(token.meta.hash)
      }
      expect(new Set(hits.map((h) => h.headers['x-webhook-delivery'])).size).toBe(13)

      // events filter, and no signature without a secret
      expect(some.hits.map((h) => h.json.event).sort()).toEqual(['flag.created', 'token.deleted'])
      for (const h of some.hits) expect(h.headers['x-webhook-signature']).toBeUndefined()

      // the delivery log
      const log = await until(
        'all delivered',
        async () => {
          const list = await deliveries(srv, hookAll)
          return list.length === 13 && list.every((d) => d.status === 'delivered') && list
        },
        WAIT_MS,
      )
      expect(log.map((d) => d.id).sort()).toEqual(hits.map((h) => h.headers['x-webhook-delivery']).sort())
      for (const d of log) {
        expect(d).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 200, last_error: null })
        expect(d.created_at).toMatch(ISO_MS)
        expect(d.updated_at).toMatch(ISO_MS)
      }
      expect(log.map((d) => d.created_at)).toEqual([...log.map((d) => d.created_at)].sort().reverse())
      expect(await deliveries(srv, hookSome)).toHaveLength(2)
      expect(srv.output()).not.toContain(secret)
    },
    SLOW_TEST_MS,
  )

  test.concurrent(
    'retry schedule (0 s, +1 s, +4 s), then failed with a warning; redeliver keeps id and payload',
    async () => {
      const srv = await server()
      let healthy = false
      const rx = receiver(() => (healthy ? 200 : 500))
      const secret = 'whsec-retry-schedule-77'
      const hook = await register(srv, { url: rx.url, events: ['flag.created'], secret })
      await call(srv, 'POST', '/api/v1/flags', { key: 'retry-me' })

      await until('three attempts', () => rx.hits.length >= 3, WAIT_MS)
      const [a1, a2, a3] = rx.hits
      expectGap(a2.at - a1.at, 1000)
      expectGap(a3.at - a2.at, 4000)
      const id = a1.headers['x-webhook-delivery']
      expect(rx.hits.map((h) => h.headers['x-webhook-delivery'])).toEqual([id, id, id])
      expect(rx.hits.map((h) => h.body)).toEqual([a1.body, a1.body, a1.body])
      expect(rx.hits.map((h) => h.headers['x-webhook-signature'])).toEqual(Array(3).fill(hmac(a1.body, secret)))

      const [failed] = await until(
        'failed',
        async () => {
          const list = await deliveries(srv, hook)
          return list[0]?.status === 'failed' && list
        },
        WAIT_MS,
      )
      expect(failed).toMatchObject({ id, event: 'flag.created', status: 'failed', attempts: 3, last_status_code: 500 })
      expect(failed.last_error).toContain('HTTP 500')
      await Bun.sleep(500)
      expect(rx.hits).toHaveLength(3) // abandoned: no fourth attempt
      const warning = await until(
        'warning logged',
        () =>
          srv
            .output()
            .split('\n')
            .find((l) => l.includes('"level":"warn"') && l.includes(id)),
        WAIT_MS,
      )
      expect(JSON.parse(warning)).toMatchObject({
        msg: 'webhook delivery failed',
        webhook_id: hook,
        delivery_id: id,
        event: 'flag.created',
      })
      expect(srv.output()).not.toContain(secret)

      // redeliver: same id, same payload and signature
      healthy = true
      const re = await api(srv, 'POST', `/api/v1/webhooks/${hook}/deliveries/${id}/redeliver`, { token: srv.adminToken })
      expect(re.status).toBe(200)
      expect(re.body).toEqual({ success: true, id })
      await until('redelivered', () => rx.hits.length >= 4, WAIT_MS)
      expect(rx.hits[3].headers['x-webhook-delivery']).toBe(id)
      expect(rx.hits[3].body).toBe(a1.body)
      expect(rx.hits[3].headers['x-webhook-signature']).toBe(hmac(a1.body, secret))
      const [done] = await until(
        'delivered',
        async () => {
          const list = await deliveries(srv, hook)
          return list[0]?.status === 'delivered' && list
        },
        WAIT_MS,
      )
      expect(done).toMatchObject({ id, status: 'delivered', attempts: 1, last_status_code: 200, last_error: null })

      // only failed deliveries can be redelivered; unknown ids are 404 JSON; permission *
      const again = await api(srv, 'POST', `/api/v1/webhooks/${hook}/deliveries/${id}/redeliver`, { token: srv.adminToken })
      expect(again.status).toBe(409)
      expect(again.body.code).toBe('CONFLICT')
      for (const path of [`/api/v1/webhooks/${hook}/deliveries/nope/redeliver`, `/api/v1/webhooks/nope/deliveries/${id}/redeliver`]) {
        const res = await api(srv, 'POST', path, { token: srv.adminToken })
        expect(res.status).toBe(404)
        expect(res.body).toMatchObject({ code: 'NOT_FOUND', error: expect.any(String) })
      }
      const missing = await api(srv, 'GET', '/api/v1/webhooks/nope/deliveries', { token: srv.adminToken })
      expect(missing.status).toBe(404)
      expect(missing.body.code).toBe('NOT_FOUND')
      const reader = await call(srv, 'POST', '/api/v1/tokens', {
        name: 'reader',
        project_id: 'default',
        permissions: ['read:flags', 'write:flags'],
      })
      expect((await api(srv, 'GET', `/api/v1/webhooks/${hook}/deliveries`, { token: reader.token })).status).toBe(403)
      expect((await api(srv, 'POST', `/api/v1/webhooks/${hook}/deliveries/${id}/redeliver`, { token: reader.token })).status).toBe(403)
      expect((await api(srv, 'GET', `/api/v1/webhooks/${hook}/deliveries`, { token: null })).status).toBe(401)
    },
    SLOW_TEST_MS,
  )

  test.concurrent(
    'an attempt times out after 5 s and is retried 1 s later',
    async () => {
      const srv = await server()
      const rx = receiver((n) => (n === 1 ? 'hang' : 200))
      const hook = await register(srv, { url: rx.url, events: ['*'] })
      await call(srv, 'POST', '/api/v1/flags', { key: 'slow-receiver' })

      const [pending] = await until(
        'first attempt timed out',
        async () => {
          const list = await deliveries(srv, hook)
          return list[0]?.attempts === 1 && list[0]?.status === 'pending' && list
        },
        WAIT_MS,
      )
      expect(pending.last_error).toMatch(/timed out after 5 s/)
      expect(pending.last_status_code).toBeNull()
      await until('second attempt', () => rx.hits.length >= 2, WAIT_MS)
      // 5 s timeout + 1 s backoff; the receiver stamps arrivals in this (possibly busy) test process, so a
      // late stamp of the first hit can shorten the gap it sees by a few hundred ms.
      const gap = rx.hits[1].at - rx.hits[0].at
      expect(gap).toBeGreaterThanOrEqual(5500)
      expect(gap).toBeLessThan(6000 + LATE_MS)
      const [done] = await until(
        'delivered',
        async () => {
          const list = await deliveries(srv, hook)
          return list[0]?.status === 'delivered' && list
        },
        WAIT_MS,
      )
      expect(done).toMatchObject({ attempts: 2, last_status_code: 200 })
    },
    SLOW_TEST_MS,
  )

  test.concurrent(
    'deliveries queued before kill -9 are sent after the restart',
    async () => {
      const first = await server()
      let up = false
      const rx = receiver(() => (up ? 200 : 503))
      const hook = await register(first, { url: rx.url, events: ['flag.created'], secret: 'whsec-durable' })
      for (const key of ['d1', 'd2', 'd3']) await call(first, 'POST', '/api/v1/flags', { key })
      // The webhook's queue goes in order: d1 failed its first attempt and waits for its retry, d2 and d3
      // wait behind it. Kill the process without any cleanup.
      await until(
        'the first attempt failed',
        async () => {
          const list = await deliveries(first, hook)
          return list.length === 3 && list.every((d) => d.status === 'pending') && list.reduce((n, d) => n + d.attempts, 0) >= 1 && list
        },
        WAIT_MS,
        10,
      )
      await first.kill()
      const failedIds = new Set(rx.hits.map((h) => h.headers['x-webhook-delivery']))
      expect(failedIds.size).toBe(1)

      up = true
      const second = await server({ databaseUrl: first.databaseUrl, adminToken: first.adminToken })
      await until('redelivered after restart', () => rx.hits.filter((h) => h.answered === 200).length >= 3, WAIT_MS)
      const delivered = rx.hits.filter((h) => h.answered === 200)
      expect(delivered.map((h) => h.json.resource)).toEqual(['d1', 'd2', 'd3'])
      expect(failedIds.has(delivered[0]!.headers['x-webhook-delivery']!)).toBe(true)
      for (const h of delivered) expect(h.headers['x-webhook-signature']).toBe(hmac(h.body, 'whsec-durable'))
      const list = await until(
        'all delivered',
        async () => {
          const l = await deliveries(second, hook)
          return l.every((d) => d.status === 'delivered') && l
        },
        WAIT_MS,
      )
      expect(list).toHaveLength(3)
    },
    SLOW_TEST_MS,
  )

  test.concurrent(
    "an import's many changes reach a webhook one at a time, in the order they were made",
    async () => {
      const srv = await server()
      const hook = receiver()
      await register(srv, { url: hook.url, events: ['flag.created'] })
      // 300 creates in one transaction: many share a millisecond, which alone cannot order them.
      const keys = Array.from({ length: 300 }, (_, i) => `bulk-${String(i).padStart(3, '0')}`)
      const plan = await call(srv, 'POST', '/api/v1/import?mode=apply', {
        flagship: 1,
        flags: keys.map((key) => ({ key, enabled: true, value: true })),
      })
      expect(plan.summary.create).toBe(300)
      await until('300 deliveries', () => hook.hits.length >= 300, 2 * WAIT_MS)
      expect(hook.hits.map((h) => h.json.resource)).toEqual(keys)
    },
    SLOW_TEST_MS,
  )
})
