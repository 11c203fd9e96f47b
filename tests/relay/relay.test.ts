// Relay mode with real processes (docs/operations.md, Relays): an origin, a relay following it (with a cache
// file), a relay following that relay. Same answers on every evaluation surface, changes and revocations
// passed on, management refused, the origin killed and restarted with nothing lost and nothing counted
// twice, a restart from the cache file with the origin down, and not-ready without exiting.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import { join } from 'node:path'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { openSse } from '../helpers/sse'
import { tempDir } from '../helpers/temp'
import { until } from '../helpers/until'

const ctx = (c: unknown) => encodeURIComponent(JSON.stringify(c))
const relayEnv = (upstream: TestServer, key: string, cacheFile?: string): Record<string, string> => ({
  UPSTREAM_URL: upstream.url,
  UPSTREAM_TOKEN: key,
  UPSTREAM_POLL_MS: '200',
  USAGE_FLUSH_MS: '200',
  ...(cacheFile && { RELAY_CACHE_FILE: cacheFile }),
})
const relayReady = (srv: TestServer) =>
  until(`relay ${srv.url} ready`, async () => (await api(srv, 'GET', '/health/ready')).status === 200, 20_000)
/** A flag's counts in `production` (where only the suite reports: the relays' own evaluations are filed under no environment). */
async function totalUsage(origin: TestServer, key: string): Promise<number> {
  const res = await api(origin, 'GET', `/api/v1/flags/${key}/usage?environment=production`, { token: origin.adminToken })
  if (res.status !== 200) throw new Error(`usage: ${res.status} ${res.text}`)
  return res.body.buckets.reduce((s: number, b: { count: number }) => s + b.count, 0)
}

let origin: TestServer
let relay: TestServer
let second: TestServer
let relayKey: string
let reader: string
let cacheFile: string

beforeAll(async () => {
  origin = await startServer({ env: { USAGE_FLUSH_MS: '200' } })
  relayKey = await createToken(origin, ['relay'])
  reader = await createToken(origin, ['read:flags', 'read:configs'])
  const admin = { token: origin.adminToken }
  await api(origin, 'POST', '/api/v1/segments', {
    ...admin,
    body: { key: 'pros', conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }] },
  })
  await api(origin, 'POST', '/api/v1/flags', {
    ...admin,
    body: {
      key: 'dark',
      enabled: true,
      value: false,
      targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'in_segment', value: 'pros' }], value: true }] },
    },
  })
  await api(origin, 'POST', '/api/v1/flags', {
    ...admin,
    body: { key: 'split', enabled: true, value: true, targeting: { rollout: { percentage: 50, attribute: 'user_id' } } },
  })
  // Only ever reported (never evaluated), so its usage is exactly what clients sent.
  await api(origin, 'POST', '/api/v1/flags', { ...admin, body: { key: 'counted', enabled: true, value: true } })
  await api(origin, 'POST', '/api/v1/configs', {
    ...admin,
    body: { key: 'limits', value: { max: 5 }, environments: { production: { max: 50 } } },
  })
  cacheFile = join(tempDir(), 'relay-cache.json')
  relay = await startServer({ env: relayEnv(origin, relayKey, cacheFile) })
  await relayReady(relay)
  second = await startServer({ env: relayEnv(relay, relayKey) })
  await relayReady(second)
}, 90_000)
afterAll(async () => {
  await Promise.all([second?.stop(), relay?.stop(), origin?.stop()])
})

/** The same request at two instances: status, body and ETag alike. */
async function same(a: TestServer, b: TestServer, method: string, path: string, body?: unknown) {
  const [x, y] = await Promise.all([api(a, method, path, { token: reader, body }), api(b, method, path, { token: reader, body })])
  expect(y.status).toBe(x.status)
  expect(y.body).toEqual(x.body)
  expect(y.headers.get('etag')).toBe(x.headers.get('etag'))
  return y
}

describe('a relay answers as its origin does', () => {
  test('every evaluation surface, at a relay and at a relay of a relay', async () => {
    for (const r of [relay, second]) {
      for (const c of [{ user_id: 'u1', plan: 'pro' }, { user_id: 'u2' }, {}]) {
        await same(origin, r, 'GET', `/api/v1/flags/dark?context=${ctx(c)}`)
        await same(origin, r, 'GET', `/api/v1/flags/split?context=${ctx(c)}`)
        await same(origin, r, 'POST', '/api/v1/evaluate', { context: c })
        await same(origin, r, 'POST', '/ofrep/v1/evaluate/flags/split', { context: { targetingKey: 'u7', ...c } })
        const bulk = await Promise.all(
          [origin, r].map((s) => api(s, 'POST', '/ofrep/v1/evaluate/flags', { token: reader, body: { context: { targetingKey: 'u7' } } })),
        )
        // (the answer's eventStreams name each instance's own stream, with a fresh ticket: only the flags compare)
        expect(bulk[1]!.body.flags).toEqual(bulk[0]!.body.flags)
      }
      await same(origin, r, 'GET', '/api/v1/configs/limits?environment=production')
      await same(origin, r, 'GET', '/api/v1/flags/nope')
      const defs = await same(origin, r, 'GET', '/api/v1/definitions')
      expect(defs.body.flags.map((f: { key: string }) => f.key).sort()).toEqual(['counted', 'dark', 'split'])
      const again = await api(r, 'GET', '/api/v1/definitions', { token: reader, headers: { 'if-none-match': defs.headers.get('etag')! } })
      expect(again.status).toBe(304)
    }
  })

  test('management routes are refused with the upstream named; the console is not served', async () => {
    const write = await api(relay, 'POST', '/api/v1/flags', { token: origin.adminToken, body: { key: 'x', enabled: true, value: true } })
    expect(write.status).toBe(404)
    expect(write.body).toMatchObject({ code: 'RELAY_READ_ONLY', details: { upstream: origin.url } })
    expect((await api(relay, 'GET', '/api/v1/tokens', { token: origin.adminToken })).body.code).toBe('RELAY_READ_ONLY')
    expect((await api(second, 'DELETE', '/api/v1/flags/dark', { token: origin.adminToken })).body.details.upstream).toBe(relay.url)
    expect((await fetch(`${relay.url}/`)).status).toBe(404)
    expect(relay.output()).toContain('DATABASE_URL is ignored')
  })

  test('its OpenAPI document is valid and lists what it serves, each route with its permission', async () => {
    const doc = (await api(relay, 'GET', '/openapi.json')).body
    await SwaggerParser.validate(structuredClone(doc))
    expect(doc.paths['/api/v1/relay/verify'].post['x-permission']).toBe('relay')
    expect(doc.paths['/api/v1/flags/{key}'].get).toBeDefined()
    expect(doc.paths['/api/v1/tokens']).toBeUndefined()
  })

  test("the relay's own evaluations are counted at the origin, once", async () => {
    const staging = ctx({ user_id: 'u-exposed', environment: 'staging' })
    for (let i = 0; i < 25; i++)
      expect((await api(relay, 'GET', `/api/v1/flags/dark?context=${staging}`, { token: reader })).status).toBe(200)
    const counted = async () =>
      (await api(origin, 'GET', '/api/v1/flags/dark/usage?environment=staging', { token: origin.adminToken })).body.buckets.reduce(
        (s: number, b: { count: number }) => s + b.count,
        0,
      )
    await until('relay evaluations forwarded', async () => (await counted()) >= 25, 15_000)
    await Bun.sleep(1000)
    expect(await counted()).toBe(25)
  })

  test('a batch a following relay forwards is taken once at a relay too, and reaches the origin once', async () => {
    const at = new Date().toISOString()
    const counts = [{ key: 'counted', environment: 'staging', variant: 'default', count: 5, from: at, to: at }]
    const headers = { 'flagship-batch-id': `downstream-${crypto.randomUUID()}` }
    expect((await api(relay, 'POST', '/api/v1/usage', { token: relayKey, body: { counts }, headers })).body).toEqual({
      success: true,
      accepted: 1,
      ignored: 0,
    })
    expect((await api(relay, 'POST', '/api/v1/usage', { token: relayKey, body: { counts }, headers })).body).toEqual({
      success: true,
      accepted: 0,
      ignored: 0,
      duplicate: true,
    })
    const staging = async () =>
      (await api(origin, 'GET', '/api/v1/flags/counted/usage?environment=staging', { token: origin.adminToken })).body.buckets.reduce(
        (s: number, b: { count: number }) => s + b.count,
        0,
      )
    await until('forwarded', async () => (await staging()) >= 5, 15_000)
    await Bun.sleep(1000)
    expect(await staging()).toBe(5)
  })

  test('a session cookie is no credential at a relay', async () => {
    const res = await api(relay, 'GET', '/api/v1/flags/dark', { headers: { cookie: 'flagship_session=anything' } })
    expect(res.status).toBe(401)
  })

  test('health and metrics say how the relay follows its upstream', async () => {
    const health = await api(relay, 'GET', '/health')
    expect(health.body).toMatchObject({ status: 'ok', mode: 'relay', upstream: 'connected' })
    expect(health.body.data_age_s).toBeLessThan(60)
    const metrics = await (await fetch(`${relay.url}/metrics`)).text()
    expect(metrics).toContain('flagship_relay_upstream{state="connected"} 1')
    expect(metrics).toMatch(/flagship_relay_change_sequence \d+/)
    expect(metrics).toContain('flagship_relay_forwarded_batches_total')
  })
})

describe('changes and revocations', () => {
  test("a change at the origin reaches the subscribers of both relays, with the origin's numbering", async () => {
    const streams = await Promise.all(
      [origin, relay, second].map((s) => openSse(`${s.url}/api/v1/stream`, { authorization: `Bearer ${reader}` })),
    )
    for (const s of streams) await s.next((e) => e.event === 'ready')
    expect(
      (await api(origin, 'POST', '/api/v1/flags', { token: origin.adminToken, body: { key: 'fresh', enabled: true, value: 42 } })).status,
    ).toBe(201)
    const got = await Promise.all(streams.map((s) => s.next((e) => e.event === 'change' && e.data.key === 'fresh', 10_000)))
    expect(got[1]!.id).toBe(got[0]!.id)
    expect(got[2]!.id).toBe(got[0]!.id)
    // Re-read on the event: the relays already serve it.
    for (const r of [relay, second]) expect((await api(r, 'GET', '/api/v1/flags/fresh', { token: reader })).body.value).toBe(42)
    streams.forEach((s) => s.close())
    // A client resuming at the relay with Last-Event-ID gets what it missed, as at the origin.
    const resumed = await openSse(`${second.url}/api/v1/stream`, {
      authorization: `Bearer ${reader}`,
      'last-event-id': String(Number(got[0]!.id) - 1),
    })
    expect((await resumed.next((e) => e.event === 'change', 5000)).data.key).toBe('fresh')
    resumed.close()
  })

  test("OFREP at a relay: the bulk answer names the relay's own stream, which tells of changes", async () => {
    const bulk = await api(second, 'POST', '/ofrep/v1/evaluate/flags', { token: reader, body: { context: { targetingKey: 'u1' } } })
    const url = bulk.body.eventStreams[0].url as string
    expect(url.startsWith(`${second.url}/ofrep/v1/stream?ticket=`)).toBe(true)
    const ofrep = await openSse(url)
    expect(ofrep.status).toBe(200)
    await api(origin, 'POST', '/api/v1/flags', { token: origin.adminToken, body: { key: 'ofrep-fresh', enabled: true, value: 1 } })
    const message = await ofrep.next((e) => e.data?.type === 'refetchEvaluation', 10_000)
    expect(message.id).toBeDefined()
    const again = await api(second, 'POST', '/ofrep/v1/evaluate/flags/ofrep-fresh', {
      token: reader,
      body: { context: { targetingKey: 'u1' } },
    })
    expect(again.body.value).toBe(1)
    ofrep.close()
  })

  test('a revoked token is refused at both relays within 5 s, and its stream closes', async () => {
    const doomed = await createToken(origin, ['read:flags'])
    for (const r of [relay, second]) expect((await api(r, 'GET', '/api/v1/flags/dark', { token: doomed })).status).toBe(200)
    const stream = await openSse(`${second.url}/api/v1/stream`, { authorization: `Bearer ${doomed}` })
    await stream.next((e) => e.event === 'ready')
    const hash = new Bun.CryptoHasher('sha256').update(doomed).digest('hex')
    const revokedAt = Date.now()
    expect((await api(origin, 'DELETE', `/api/v1/tokens/${hash}`, { token: origin.adminToken })).status).toBe(200)
    for (const r of [relay, second])
      await until('revoked at the relay', async () => (await api(r, 'GET', '/api/v1/flags/dark', { token: doomed })).status === 401, 5000)
    await Promise.race([stream.ended, Bun.sleep(5000)])
    expect(stream.isEnded()).toBe(true)
    expect(Date.now() - revokedAt).toBeLessThan(5000)
  })

  test('an unknown token is refused, and asked about upstream at most once a minute', async () => {
    const bogus = `ff_defa_${'Z'.repeat(20)}`
    for (let i = 0; i < 5; i++) expect((await api(relay, 'GET', '/api/v1/flags/dark', { token: bogus })).status).toBe(401)
    const verifies = (await (await fetch(`${origin.url}/metrics`)).text()).match(
      /flagship_http_requests_total\{route="\/api\/v1\/relay\/verify",method="POST",status="200"\} (\d+)/,
    )
    const before = Number(verifies?.[1] ?? 0)
    for (let i = 0; i < 5; i++) await api(relay, 'GET', '/api/v1/flags/dark', { token: bogus })
    const after = Number(
      (await (await fetch(`${origin.url}/metrics`)).text()).match(
        /flagship_http_requests_total\{route="\/api\/v1\/relay\/verify",method="POST",status="200"\} (\d+)/,
      )?.[1] ?? 0,
    )
    expect(after).toBe(before)
  })
})

describe('the origin away', () => {
  test('killed under load: the relay answers every request, and usage sent meanwhile arrives exactly once', async () => {
    const before = await totalUsage(origin, 'counted')
    const now = () => new Date().toISOString()
    let sent = 0
    let errors = 0
    const port = origin.port
    await origin.kill()
    await until('relay sees the origin gone', async () => (await api(relay, 'GET', '/health')).body.upstream !== 'connected', 10_000)
    // Load while the origin is down: evaluations and usage reports, all answered by the relay.
    for (let i = 0; i < 40; i++) {
      const res = await api(relay, 'POST', '/api/v1/usage', {
        token: reader,
        body: { counts: [{ key: 'counted', environment: 'production', variant: 'default', count: 3, from: now(), to: now() }] },
      })
      if (res.status === 200) sent += 3
      else errors++
      if ((await api(relay, 'GET', `/api/v1/flags/split?context=${ctx({ user_id: `u${i}` })}`, { token: reader })).status !== 200) errors++
    }
    expect(errors).toBe(0)
    expect(sent).toBe(120)
    expect((await api(relay, 'GET', '/health')).body.upstream).toBe('unreachable')
    // The origin comes back on the same address and database.
    origin = await startServer({ dbPath: origin.dbPath, adminToken: origin.adminToken, env: { PORT: String(port), USAGE_FLUSH_MS: '200' } })
    await until('relay follows the origin again', async () => (await api(relay, 'GET', '/health')).body.upstream === 'connected', 20_000)
    await until('usage forwarded', async () => (await totalUsage(origin, 'counted')) >= before + sent, 20_000)
    await until(
      'spool drained',
      async () => /flagship_relay_pending_batches 0/.test(await (await fetch(`${relay.url}/metrics`)).text()),
      10_000,
    )
    // Exactly once: a little later, still exactly what was sent.
    await Bun.sleep(1500)
    expect(await totalUsage(origin, 'counted')).toBe(before + sent)
    expect(
      Number((await (await fetch(`${relay.url}/metrics`)).text()).match(/flagship_relay_forwarded_batches_total (\d+)/)![1]),
    ).toBeGreaterThan(0)
  }, 90_000)

  test('a relay restarted from its cache file with the origin down serves the last state, and keeps its spool', async () => {
    const expected = await api(relay, 'GET', `/api/v1/flags/dark?context=${ctx({ plan: 'pro' })}`, { token: reader })
    const before = await totalUsage(origin, 'counted')
    const port = origin.port
    await origin.kill()
    // Reported while the origin is away: spooled, in the cache file across the relay's restart.
    for (let i = 0; i < 4; i++) {
      const at = new Date().toISOString()
      expect(
        (
          await api(relay, 'POST', '/api/v1/usage', {
            token: reader,
            body: { counts: [{ key: 'counted', environment: 'production', variant: 'default', count: 2, from: at, to: at }] },
          })
        ).status,
      ).toBe(200)
    }
    await relay.stop()
    relay = await startServer({ env: relayEnv({ url: `http://127.0.0.1:${port}` } as TestServer, relayKey, cacheFile) })
    const health = await api(relay, 'GET', '/health')
    expect(health.body.upstream).toMatch(/unreachable|starting/)
    expect((await api(relay, 'GET', '/health/ready')).status).toBe(200)
    const answer = await api(relay, 'GET', `/api/v1/flags/dark?context=${ctx({ plan: 'pro' })}`, { token: reader })
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual(expected.body)
    await until('unreachable', async () => (await api(relay, 'GET', '/health')).body.upstream === 'unreachable', 10_000)
    expect(typeof (await api(relay, 'GET', '/health')).body.data_age_s).toBe('number')
    origin = await startServer({ dbPath: origin.dbPath, adminToken: origin.adminToken, env: { PORT: String(port) } })
    await until('spooled usage forwarded after the restarts', async () => (await totalUsage(origin, 'counted')) >= before + 8, 20_000)
    await Bun.sleep(1500)
    expect(await totalUsage(origin, 'counted')).toBe(before + 8)
  }, 60_000)

  test('with neither upstream nor cache file: 503 NOT_READY and readiness false, and the process stays up', async () => {
    const lonely = await startServer({ env: { UPSTREAM_URL: 'http://127.0.0.1:9', UPSTREAM_TOKEN: relayKey, UPSTREAM_POLL_MS: '100' } })
    try {
      expect((await api(lonely, 'GET', '/health/ready')).status).toBe(503)
      const evaluation = await api(lonely, 'GET', '/api/v1/flags/dark', { token: reader })
      expect(evaluation.status).toBe(503)
      expect(evaluation.body.code).toBe('NOT_READY')
      await Bun.sleep(1000)
      expect(lonely.process.exitCode).toBeNull()
      expect((await api(lonely, 'GET', '/health')).body).toMatchObject({ status: 'not_ready', upstream: 'unreachable' })
    } finally {
      await lonely.stop()
    }
  })
})
