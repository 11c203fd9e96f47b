// Two real server processes on one PostgreSQL database behave like one: optimistic concurrency, change
// fan-out (Redis pub/sub, or PostgreSQL LISTEN/NOTIFY without Redis), shared rate limits with Redis,
// webhook deliveries claimed by exactly one instance.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, randomAdminToken, startServer, type TestServer } from '../helpers/server'
import { createTestDatabase, REDIS_URL } from '../helpers/postgres'
import { startCluster, type Cluster } from '../helpers/cluster'
import { requireServices } from '../helpers/requirements'

const ready = await requireServices({ postgres: true, redis: true })

const ctx = encodeURIComponent(JSON.stringify({ user_id: 'u1' }))

/** Writes through one instance and measures how long the other takes to evaluate the new value. */
async function propagation(c: Cluster, key: string, value: string): Promise<number> {
  const put = await api(c.a, 'PUT', `/api/v1/flags/${key}`, { token: c.admin, body: { value } })
  expect(put.status).toBe(200)
  const started = performance.now()
  while (performance.now() - started < 3000) {
    const res = await api(c.b, 'GET', `/api/v1/flags/${key}?context=${ctx}`, { token: c.admin })
    if (res.body?.value === value) return performance.now() - started
    await Bun.sleep(2)
  }
  throw new Error(`instance B never saw ${key}=${value}`)
}

for (const variant of ['postgres+redis', 'postgres only'] as const) {
  describe.skipIf(!ready)(`two instances, ${variant}`, () => {
    let c: Cluster
    beforeAll(async () => {
      c = await startCluster({
        ...(variant === 'postgres+redis' ? { REDIS_URL } : {}),
        RATE_LIMIT_MANAGEMENT_PER_MINUTE: '40',
      })
    }, 60_000)
    afterAll(() => c?.stop())

    test('20 concurrent If-Match PUTs spread over both instances: exactly one wins', async () => {
      expect(
        (await api(c.a, 'POST', '/api/v1/flags', { token: c.admin, body: { key: 'race', enabled: true, value: 'start' } })).status,
      ).toBe(201)
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          api(i % 2 ? c.a : c.b, 'PUT', '/api/v1/flags/race', { token: c.admin, body: { value: `v${i}` }, headers: { 'if-match': '"1"' } }),
        ),
      )
      expect(results.filter((r) => r.status === 200).length).toBe(1)
      expect(results.filter((r) => r.status === 409).length).toBe(19)
      for (const r of results.filter((r) => r.status === 409))
        expect(r.body).toEqual({ error: 'Version conflict', code: 'CONFLICT', details: { current_version: 2 } })
      const audit = await api(c.b, 'GET', '/api/v1/audit?resource_key=race&action=update', { token: c.admin })
      expect(audit.body.total).toBe(1)
    })

    test('a change written through A is evaluated on B within 100 ms', async () => {
      await api(c.a, 'POST', '/api/v1/flags', { token: c.admin, body: { key: 'fan', enabled: true, value: 'v0' } })
      const times: number[] = []
      for (let i = 1; i <= 5; i++) times.push(await propagation(c, 'fan', `v${i}`))
      times.sort((x, y) => x - y)
      console.log(`[${variant}] propagation A->B (ms): ${times.map((t) => t.toFixed(1)).join(', ')}`)
      expect(times[2]).toBeLessThan(100)
      // Deletes and tokens travel too: a token created on A authenticates on B at once.
      const tok = await api(c.a, 'POST', '/api/v1/tokens', {
        token: c.admin,
        body: { name: 'fanout', project_id: 'default', permissions: ['read:flags'] },
      })
      expect((await api(c.b, 'GET', '/api/v1/flags/fan', { token: tok.body.token })).status).toBe(200)
      await api(c.a, 'DELETE', `/api/v1/tokens/${tok.body.meta.hash}`, { token: c.admin })
      let refused = false
      for (let i = 0; i < 50 && !refused; i++) {
        refused = (await api(c.b, 'GET', '/api/v1/flags/fan', { token: tok.body.token })).status === 401
        if (!refused) await Bun.sleep(10)
      }
      expect(refused).toBe(true)
    })

    test(
      variant === 'postgres+redis' ? 'rate limits are per token across both instances' : 'without Redis each instance limits alone',
      async () => {
        const tok = await api(c.a, 'POST', '/api/v1/tokens', {
          token: c.admin,
          body: { name: 'limited', project_id: 'default', permissions: ['read:flags'] },
        })
        const token = tok.body.token
        // The token reaches B through the fan-out (asynchronously); start counting once B knows it.
        while ((await api(c.b, 'GET', '/api/v1/me', { token })).status === 401) await Bun.sleep(5)
        const statuses: number[] = []
        for (let i = 0; i < 60; i++) statuses.push((await api(i % 2 ? c.a : c.b, 'GET', '/api/v1/flags?limit=1', { token })).status)
        const ok = statuses.filter((s) => s === 200).length
        if (variant === 'postgres+redis') {
          // 40 per minute in all; B already counted the /me probe(s) above.
          expect(ok).toBeGreaterThanOrEqual(38)
          expect(ok).toBeLessThanOrEqual(39)
          expect(statuses.slice(ok).every((s) => s === 429)).toBe(true)
        } else {
          expect(ok).toBe(60)
          // ...and the other instance refuses past its own 40.
          const more: number[] = []
          for (let i = 0; i < 15; i++) more.push((await api(c.a, 'GET', '/api/v1/flags?limit=1', { token })).status)
          expect(more.filter((s) => s === 200).length).toBe(10)
        }
      },
    )
  })
}

describe.skipIf(!ready)('unconditional writes across two instances', () => {
  test('concurrent PUTs without If-Match on both instances all apply (rows are locked, not raced)', async () => {
    const c = await startCluster({})
    try {
      await api(c.a, 'POST', '/api/v1/flags', { token: c.admin, body: { key: 'both', value: 0 } })
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => api(i % 2 ? c.a : c.b, 'PUT', '/api/v1/flags/both', { token: c.admin, body: { value: i } })),
      )
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(200))
      const def = await api(c.a, 'GET', '/api/v1/flags/both/definition', { token: c.admin })
      expect(def.body.flag.version).toBe(21)
    } finally {
      await c.stop()
    }
  }, 60_000)
})

describe.skipIf(!ready)('webhook deliveries across two instances', () => {
  test('every event is delivered exactly once, whichever instance wrote it', async () => {
    const seen = new Map<string, number>()
    const receiver = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req) {
        const id = req.headers.get('x-webhook-delivery')!
        seen.set(id, (seen.get(id) ?? 0) + 1)
        await req.text()
        return new Response('ok')
      },
    })
    const c = await startCluster({ REDIS_URL })
    try {
      const hook = await api(c.a, 'POST', '/api/v1/webhooks', {
        token: c.admin,
        body: { url: `http://127.0.0.1:${receiver.port}/hook`, events: ['flag.created'] },
      })
      expect(hook.status).toBe(201)
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          api(i % 2 ? c.a : c.b, 'POST', '/api/v1/flags', { token: c.admin, body: { key: `hooked-${i}` } }),
        ),
      )
      const deadline = Date.now() + 15_000
      while (seen.size < 20 && Date.now() < deadline) await Bun.sleep(50)
      await Bun.sleep(1500) // time for any duplicate to show up
      expect(seen.size).toBe(20)
      expect([...seen.values()].every((n) => n === 1)).toBe(true)
    } finally {
      receiver.stop(true)
      await c.stop()
    }
  }, 60_000)
})

describe.skipIf(!ready)('a killed instance', () => {
  test('its claimed, in-flight delivery is taken over by another instance when the lease expires', async () => {
    const attempts: { id: string; at: number }[] = []
    let hang = true
    const receiver = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      idleTimeout: 30,
      async fetch(req) {
        attempts.push({ id: req.headers.get('x-webhook-delivery')!, at: Date.now() })
        await req.text()
        if (hang) await Bun.sleep(20_000) // the first attempt never answers in time
        return new Response('ok')
      },
    })
    const db = await createTestDatabase()
    const admin = randomAdminToken()
    const env = { DATABASE_URL: db.url, REDIS_URL }
    const a = await startServer({ env, adminToken: admin })
    let b: TestServer | undefined
    try {
      await api(a, 'POST', '/api/v1/webhooks', { token: admin, body: { url: `http://127.0.0.1:${receiver.port}/hook`, events: ['*'] } })
      await api(a, 'POST', '/api/v1/flags', { token: admin, body: { key: 'orphan' } })
      while (attempts.length === 0) await Bun.sleep(20)
      await a.kill() // SIGKILL while A holds the claim and the attempt is in flight
      hang = false
      b = await startServer({ env, adminToken: admin })
      const deadline = Date.now() + 30_000
      while (attempts.length < 2 && Date.now() < deadline) await Bun.sleep(100)
      expect(attempts.length).toBe(2)
      expect(attempts[1].id).toBe(attempts[0].id)
      const hooks = await api(b, 'GET', '/api/v1/webhooks', { token: admin })
      let delivery: any
      for (let i = 0; i < 50 && delivery?.status !== 'delivered'; i++) {
        delivery = (await api(b, 'GET', `/api/v1/webhooks/${hooks.body.webhooks[0].id}/deliveries`, { token: admin })).body.deliveries[0]
        if (delivery?.status !== 'delivered') await Bun.sleep(100)
      }
      expect(delivery).toMatchObject({ id: attempts[0].id, status: 'delivered', attempts: 2 })
    } finally {
      receiver.stop(true)
      await b?.stop()
      await a.stop()
      await db.drop()
    }
  }, 60_000)
})
