// Exposures at a relay (docs/operations.md, Relays; docs/experiments.md §2), with real processes: an origin
// with two running experiments (one counting units by `custom.team`), a relay and a relay of that relay.
// The relays list the running experiments in their definitions as the origin does (and stop listing one
// stopped at the origin); their own evaluations (GET /api/v1/flags/:key, OFREP) reach the origin as
// exposures, once per unit, with the variant the relay served. A relay restarted from RELAY_CACHE_FILE with
// the origin down knows the running experiments at once, and what it recorded before a shutdown reaches the
// origin once it is back.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { tempDir } from '../helpers/temp'
import { until } from '../helpers/until'

const ctx = (c: unknown) => encodeURIComponent(JSON.stringify(c))
const relayEnv = (upstream: { url: string }, key: string, cacheFile?: string): Record<string, string> => ({
  UPSTREAM_URL: upstream.url,
  UPSTREAM_TOKEN: key,
  UPSTREAM_POLL_MS: '200',
  EXPOSURE_FLUSH_MS: '200',
  ...(cacheFile && { RELAY_CACHE_FILE: cacheFile }),
})
const relayReady = (srv: TestServer) =>
  until(`relay ${srv.url} ready`, async () => (await api(srv, 'GET', '/health/ready')).status === 200, 20_000)

let origin: TestServer
let relay: TestServer
let second: TestServer
let reader: string
let relayKey: string
let cacheFile: string

async function units(key: string): Promise<{ units: Record<string, number>; multiple_exposures: number }> {
  const r = await api(origin, 'GET', `/api/v1/experiments/${key}/units`, { token: origin.adminToken })
  if (r.status !== 200) throw new Error(`units: ${r.status} ${r.text}`)
  return { units: r.body.units, multiple_exposures: r.body.multiple_exposures }
}
const total = (u: Record<string, number>) => Object.values(u).reduce((s, n) => s + n, 0)
const listed = async (srv: TestServer) => (await api(srv, 'GET', '/api/v1/definitions', { token: reader })).body.experiments

beforeAll(async () => {
  origin = await startServer()
  relayKey = await createToken(origin, ['relay'])
  reader = await createToken(origin, ['read:flags'])
  const c = async (method: string, path: string, body?: unknown) => {
    const r = await api(origin, method, path, { token: origin.adminToken, body })
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`)
  }
  const split = (attribute: string) => ({
    rollout: {
      attribute,
      distribution: [
        { variant: 'a', weight: 50 },
        { variant: 'b', weight: 50 },
      ],
    },
  })
  await c('POST', '/api/v1/flags', { key: 'f', enabled: true, variants: { a: 1, b: 2 }, default_variant: 'a', targeting: split('user_id') })
  await c('POST', '/api/v1/flags', {
    key: 'g',
    enabled: true,
    variants: { a: 'A', b: 'B' },
    default_variant: 'a',
    targeting: split('custom.team'),
  })
  await c('POST', '/api/v1/metrics', { key: 'orders', name: 'Orders', kind: 'mean', event: 'order' })
  await c('POST', '/api/v1/experiments', {
    key: 'x',
    name: 'X',
    flag: 'f',
    environment: 'production',
    goal_metrics: ['orders'],
    cuped: false,
  })
  await c('POST', '/api/v1/experiments', {
    key: 'y',
    name: 'Y',
    flag: 'g',
    environment: 'production',
    unit: 'custom.team',
    goal_metrics: ['orders'],
    cuped: false,
  })
  await c('POST', '/api/v1/experiments/x/start')
  await c('POST', '/api/v1/experiments/y/start')
  cacheFile = join(tempDir(), 'relay-cache.json')
  relay = await startServer({ env: relayEnv(origin, relayKey, cacheFile) })
  await relayReady(relay)
  second = await startServer({ env: relayEnv(relay, relayKey) })
  await relayReady(second)
}, 90_000)
afterAll(async () => {
  await Promise.all([second?.stop(), relay?.stop(), origin?.stop()])
})

describe('exposures at a relay', () => {
  test('the relays list the running experiments as the origin does', async () => {
    const atOrigin = await listed(origin)
    expect(atOrigin).toEqual(
      expect.arrayContaining([
        { key: 'x', flag: 'f', environment: 'production', unit: 'user_id' },
        { key: 'y', flag: 'g', environment: 'production', unit: 'custom.team' },
      ]),
    )
    expect(atOrigin).toHaveLength(2)
    for (const r of [relay, second]) expect(await listed(r)).toEqual(atOrigin)
  })

  test("the relays' evaluations reach the origin as exposures, once per unit", async () => {
    const served: Record<string, string> = {}
    const evaluate = async (srv: TestServer, unit: string, ofrep: boolean) => {
      const context = { user_id: unit, environment: 'production' }
      const r = ofrep
        ? await api(srv, 'POST', '/ofrep/v1/evaluate/flags/f', { token: reader, body: { context: { targetingKey: unit, ...context } } })
        : await api(srv, 'GET', `/api/v1/flags/f?context=${ctx(context)}`, { token: reader })
      expect(r.status).toBe(200)
      served[unit] = r.body.variant
    }
    // Each unit evaluated several times (and at both relays): one exposure each.
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 6; i++) await evaluate(relay, `r${i}`, i % 2 === 1)
      for (let i = 0; i < 4; i++) await evaluate(second, `s${i}`, i % 2 === 0)
      await evaluate(second, 'r0', false)
    }
    // Another environment runs no experiment: no exposure.
    await api(relay, 'GET', `/api/v1/flags/f?context=${ctx({ user_id: 'st', environment: 'staging' })}`, { token: reader })
    const expected: Record<string, number> = {}
    for (const v of Object.values(served)) expected[v] = (expected[v] ?? 0) + 1
    expect(Object.keys(served)).toHaveLength(10)
    await until('the exposures reach the origin', async () => total((await units('x')).units) >= 10, 30_000)
    // Nothing arrives twice or late: a while later the same.
    await Bun.sleep(1500)
    expect(await units('x')).toEqual({ units: expected, multiple_exposures: 0 })
  }, 60_000)

  test('a unit attribute under custom: the nested context names the unit at the origin', async () => {
    const served: Record<string, string> = {}
    for (const team of ['t1', 't2', 't3']) {
      const r = await api(relay, 'GET', `/api/v1/flags/g?context=${ctx({ environment: 'production', custom: { team } })}`, {
        token: reader,
      })
      expect(r.status).toBe(200)
      served[team] = r.body.variant
    }
    const expected: Record<string, number> = {}
    for (const v of Object.values(served)) expected[v] = (expected[v] ?? 0) + 1
    await until('the exposures reach the origin', async () => total((await units('y')).units) >= 3, 30_000)
    expect(await units('y')).toEqual({ units: expected, multiple_exposures: 0 })
  }, 60_000)

  test('a stopped experiment is no longer listed at the relays, and their evaluations record nothing more', async () => {
    const stop = await api(origin, 'POST', '/api/v1/experiments/y/stop', { token: origin.adminToken, body: { decision: 'inconclusive' } })
    expect(stop.status).toBe(200)
    for (const r of [relay, second]) {
      await until(
        `y no longer listed at ${r.url}`,
        async () =>
          JSON.stringify(await listed(r)) === JSON.stringify([{ key: 'x', flag: 'f', environment: 'production', unit: 'user_id' }]),
        20_000,
      )
    }
    const before = await units('y')
    for (const team of ['t4', 't5', 't6'])
      await api(second, 'GET', `/api/v1/flags/g?context=${ctx({ environment: 'production', custom: { team } })}`, { token: reader })
    await Bun.sleep(1500)
    expect(await units('y')).toEqual(before)
  }, 60_000)

  const RESTARTED_FROM_CACHE =
    'restarted from its cache file with the origin down: ' + 'the experiment is known, and exposures recorded before a shutdown arrive once'
  test(RESTARTED_FROM_CACHE, async () => {
    const before = total((await units('x')).units)
    const port = origin.port
    await origin.kill()
    await relay.stop()
    const restart = () => startServer({ env: relayEnv({ url: `http://127.0.0.1:${port}` }, relayKey, cacheFile) })
    relay = await restart()
    expect(await listed(relay)).toEqual([{ key: 'x', flag: 'f', environment: 'production', unit: 'user_id' }])
    for (const unit of ['c1', 'c2', 'c3']) {
      expect(
        (await api(relay, 'GET', `/api/v1/flags/f?context=${ctx({ user_id: unit, environment: 'production' })}`, { token: reader })).status,
      ).toBe(200)
    }
    // Stopped at once (before its flush timer): the exposures go to the spool, and the spool to the cache file.
    await relay.stop()
    relay = await restart()
    origin = await startServer({ databaseUrl: origin.databaseUrl, adminToken: origin.adminToken, env: { PORT: String(port) } })
    await until('the spooled exposures reach the origin', async () => total((await units('x')).units) >= before + 3, 30_000)
    await Bun.sleep(1500)
    expect(total((await units('x')).units)).toBe(before + 3)
  }, 90_000)
})
