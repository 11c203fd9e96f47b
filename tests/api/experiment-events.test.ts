// POST /api/v1/events through HTTP (docs/experiments.md §1): 202 once stored; one bad item is a 400 naming
// its index and nothing of the batch is stored; sizes and times bounded; a per-token budget answers 429 with
// Retry-After; read:flags needed; CORS like the evaluation routes; events older than EVENTS_RETENTION_DAYS
// pruned; exposures recorded in memory reach the store at shutdown.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ordersByVariant, setUpOrdersExperiment } from '../helpers/orders-experiment'
import { api, createToken, startServer, type TestServer } from '../helpers/server'

let srv: TestServer
let admin: string
const call = (method: string, path: string, body?: unknown, token = admin) => api(srv, method, path, { token, body })
const DAY = 86_400_000
const track = (user_id: string, key = 'order', extra: object = {}) => ({
  type: 'track',
  key,
  context: { user_id, environment: 'production' },
  ...extra,
})
const iso = (ms: number) => new Date(ms).toISOString()

const orders = (server = srv) => ordersByVariant(server)

beforeAll(async () => {
  srv = await startServer({ env: { EVENTS_PER_MINUTE: '3000' } })
  admin = srv.adminToken
  await setUpOrdersExperiment(srv)
}, 60_000)
afterAll(() => srv?.stop())

describe('events', () => {
  test('202 once stored: they count in the results', async () => {
    const r = await call('POST', '/api/v1/events', {
      events: [track('u1'), track('u1', 'order', { value: 5 }), track('u2'), track('nobody')],
    })
    expect(r.status).toBe(202)
    expect(r.body).toEqual({ accepted: 4 })
    expect(await orders()).toEqual({ a: 2, b: 1 })
  })

  test('one bad item: 400 naming its index, nothing of the batch stored', async () => {
    const now = Date.now()
    const cases: [object, string][] = [
      [{ ...track('u1'), key: 'bad key' }, 'events[1].key'],
      [{ ...track('u1'), value: 'ten' }, 'events[1]'],
      [{ ...track('u1'), timestamp: iso(now - 31 * DAY) }, 'events[1].timestamp'],
      [{ ...track('u1'), timestamp: iso(now + 10 * 60_000) }, 'events[1].timestamp'],
      [{ ...track('u1'), timestamp: 'yesterday' }, 'events[1].timestamp'],
      [{ ...track('u1'), context: { user_id: 'u1', environment: 'prod' } }, 'events[1].context.environment'],
      [{ type: 'exposure', flag: 'f', variant: 'c', context: { user_id: 'u1' } }, 'events[1].variant'],
      [{ type: 'click', key: 'order', context: {} }, 'events[1]'],
    ]
    for (const [item, path] of cases) {
      const r = await call('POST', '/api/v1/events', { events: [track('u2'), item] })
      expect(r.status).toBe(400)
      expect(r.body.code).toBe('VALIDATION_ERROR')
      expect(r.body.details.issues.map((i: any) => i.path).join(' ')).toContain(path)
    }
    expect(await orders()).toEqual({ a: 2, b: 1 })
  })

  test('1 to 1,000 items, at most 1 MiB', async () => {
    expect((await call('POST', '/api/v1/events', { events: [] })).status).toBe(400)
    expect((await call('POST', '/api/v1/events', { events: Array.from({ length: 1001 }, () => track('u9')) })).status).toBe(400)
    const big = await call('POST', '/api/v1/events', {
      events: Array.from({ length: 900 }, () => track('u9', 'order', { context: { user_id: 'u9', note: 'x'.repeat(1300) } })),
    })
    expect(big.status).toBe(413)
    expect(await orders()).toEqual({ a: 2, b: 1 })
  })

  test('read:flags is needed; browsers may send them (CORS)', async () => {
    const configs = await createToken(srv, ['read:configs'])
    expect((await call('POST', '/api/v1/events', { events: [track('u1')] }, configs)).status).toBe(403)
    expect((await call('POST', '/api/v1/events', { events: [track('u1')] }, null as unknown as string)).status).toBe(401)
    const pre = await fetch(`${srv.url}/api/v1/events`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST')
    const reader = await createToken(srv, ['read:flags'])
    const r = await fetch(`${srv.url}/api/v1/events`, {
      method: 'POST',
      headers: { origin: 'https://shop.example', authorization: `Bearer ${reader}`, 'content-type': 'application/json' },
      body: JSON.stringify({ events: [track('u2')] }),
    })
    expect(r.status).toBe(202)
    expect(r.headers.get('access-control-allow-origin')).toBe('*')
    expect(await orders()).toEqual({ a: 2, b: 2 })
  })

  test("an environment key's events are of its environment; a client key may send them too", async () => {
    const staging = await createToken(srv, ['read:flags'], { environment: 'staging' })
    const other = { type: 'track', key: 'order', context: { user_id: 'u1', environment: 'production' } }
    const refused = await call(
      'POST',
      '/api/v1/events',
      { events: [{ type: 'track', key: 'order', context: { user_id: 'u1' } }, other] },
      staging,
    )
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('ENVIRONMENT_MISMATCH')
    expect(refused.body.details).toEqual({ key_environment: 'staging', requested: 'production' })
    // Without an environment they are staging's, so production's experiment does not count them.
    expect(
      (await call('POST', '/api/v1/events', { events: [{ type: 'track', key: 'order', context: { user_id: 'u1' } }] }, staging)).status,
    ).toBe(202)
    expect(await orders()).toEqual({ a: 2, b: 2 })
    const production = await createToken(srv, ['read:flags'], { environment: 'production' })
    const client = await createToken(srv, ['client'], { environment: 'production' })
    expect(
      (await call('POST', '/api/v1/events', { events: [{ type: 'track', key: 'order', context: { user_id: 'u1' } }] }, production)).status,
    ).toBe(202)
    expect(
      (await call('POST', '/api/v1/events', { events: [{ type: 'track', key: 'order', context: { user_id: 'u2' } }] }, client)).status,
    ).toBe(202)
    expect(await orders()).toEqual({ a: 3, b: 3 })
  })

  test("past the token's budget: 429 with Retry-After, nothing stored; other tokens unaffected", async () => {
    const token = await createToken(srv, ['read:flags'])
    // The budget is per clock minute: start well inside one.
    const left = 60_000 - (Date.now() % 60_000)
    if (left < 10_000) await Bun.sleep(left + 50)
    for (let i = 0; i < 3; i++)
      expect((await call('POST', '/api/v1/events', { events: Array.from({ length: 1000 }, () => track('u9')) }, token)).status).toBe(202)
    const over = await call('POST', '/api/v1/events', { events: [track('u1')] }, token)
    expect(over.status).toBe(429)
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await orders()).toEqual({ a: 3, b: 3 })
    expect((await call('POST', '/api/v1/events', { events: [track('u1')] })).status).toBe(202)
    expect(await orders()).toEqual({ a: 4, b: 3 })
  })
})

describe('retention and shutdown', () => {
  test('events older than EVENTS_RETENTION_DAYS are pruned; exposures in memory are written at shutdown', async () => {
    const first = await startServer({ env: { EXPOSURE_FLUSH_MS: '60000' } })
    try {
      await setUpOrdersExperiment(first)
      const c = (method: string, path: string, body?: unknown) => api(first, method, path, { token: first.adminToken, body })
      // u1 exposed 3 days ago, then ordered 2 days ago and just now
      await c('POST', '/api/v1/events', {
        events: [
          {
            type: 'exposure',
            flag: 'f',
            variant: 'a',
            context: { user_id: 'u1', environment: 'production' },
            timestamp: iso(Date.now() - 3 * DAY),
          },
        ],
      })
      expect(
        (await c('POST', '/api/v1/events', { events: [track('u1', 'order', { timestamp: iso(Date.now() - 2 * DAY) }), track('u1')] }))
          .status,
      ).toBe(202)
      expect(await orders(first)).toEqual({ a: 2, b: 0 })
      // Server-side exposures, still in memory (the flush is a minute away)
      for (let i = 0; i < 10; i++)
        await c('GET', `/api/v1/flags/f?context=${encodeURIComponent(JSON.stringify({ user_id: `m${i}`, environment: 'production' }))}`)
      first.process.kill('SIGTERM')
      await first.process.exited
      const again = await startServer({
        databaseUrl: first.databaseUrl,
        dbPath: first.dbPath,
        adminToken: first.adminToken,
        env: { EVENTS_RETENTION_DAYS: '1' },
      })
      try {
        const r = await api(again, 'GET', '/api/v1/experiments/x/results?refresh=true', { token: again.adminToken })
        expect(r.body.units.a + r.body.units.b).toBe(12)
        expect(Object.fromEntries(r.body.metrics[0].variants.map((v: any) => [v.variant, v.sum]))).toEqual({ a: 1, b: 0 })
      } finally {
        await again.stop()
      }
    } finally {
      await first.stop()
    }
  }, 60_000)
})
