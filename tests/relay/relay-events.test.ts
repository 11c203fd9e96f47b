// Experiment events at a relay (docs/operations.md, Relays; docs/experiments.md): checked at the relay as the
// origin checks them, forwarded upstream in batches and stored there once, whatever the number of relays in
// between; a batch id sent twice to the origin stores nothing the second time; an environment key is bound
// at the relay as at the origin.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { until } from '../helpers/until'

const relayEnv = (upstream: TestServer, key: string): Record<string, string> => ({
  UPSTREAM_URL: upstream.url,
  UPSTREAM_TOKEN: key,
  UPSTREAM_POLL_MS: '200',
})
const relayReady = (srv: TestServer) =>
  until(`relay ${srv.url} ready`, async () => (await api(srv, 'GET', '/health/ready')).status === 200, 20_000)

let origin: TestServer
let relay: TestServer
let second: TestServer
let relayKey: string
let reader: string

/** The `orders` metric's sum per variant at the origin. */
async function orders(): Promise<Record<string, number>> {
  const r = await api(origin, 'GET', '/api/v1/experiments/x/results?refresh=true', { token: origin.adminToken })
  if (r.status !== 200) throw new Error(`results: ${r.status} ${r.text}`)
  return Object.fromEntries(r.body.metrics[0].variants.map((v: { variant: string; sum: number }) => [v.variant, v.sum]))
}

beforeAll(async () => {
  origin = await startServer()
  relayKey = await createToken(origin, ['relay'])
  reader = await createToken(origin, ['read:flags'])
  const c = (method: string, path: string, body?: unknown) => api(origin, method, path, { token: origin.adminToken, body })
  await c('POST', '/api/v1/flags', {
    key: 'f',
    enabled: true,
    variants: { a: 1, b: 2 },
    default_variant: 'a',
    targeting: {
      rollout: {
        attribute: 'user_id',
        distribution: [
          { variant: 'a', weight: 50 },
          { variant: 'b', weight: 50 },
        ],
      },
    },
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
  await c('POST', '/api/v1/experiments/x/start')
  const at = new Date(Date.now() - 3_600_000).toISOString()
  await c('POST', '/api/v1/events', {
    events: [
      { type: 'exposure', flag: 'f', variant: 'a', context: { user_id: 'u1', environment: 'production' }, timestamp: at },
      { type: 'exposure', flag: 'f', variant: 'b', context: { user_id: 'u2', environment: 'production' }, timestamp: at },
    ],
  })
  relay = await startServer({ env: relayEnv(origin, relayKey) })
  await relayReady(relay)
  second = await startServer({ env: relayEnv(relay, relayKey) })
  await relayReady(second)
}, 90_000)
afterAll(async () => {
  await Promise.all([second?.stop(), relay?.stop(), origin?.stop()])
})

describe('events at a relay', () => {
  test('forwarded and stored once, at a relay and at a relay of a relay', async () => {
    const track = (user_id: string) => ({ type: 'track', key: 'order', context: { user_id, environment: 'production' } })
    const atRelay = await api(relay, 'POST', '/api/v1/events', { token: reader, body: { events: [track('u1'), track('u2')] } })
    expect(atRelay.status).toBe(202)
    expect(atRelay.body).toEqual({ accepted: 2 })
    expect((await api(second, 'POST', '/api/v1/events', { token: reader, body: { events: [track('u1')] } })).status).toBe(202)
    await until('the events reach the origin', async () => JSON.stringify(await orders()) === JSON.stringify({ a: 2, b: 1 }), 20_000)
    // Nothing arrives twice: a while later the sums are the same.
    await Bun.sleep(1500)
    expect(await orders()).toEqual({ a: 2, b: 1 })
  }, 60_000)

  test('checked at the relay as at the origin: a bad item is 400 there, nothing forwarded', async () => {
    const bad = await api(relay, 'POST', '/api/v1/events', {
      token: reader,
      body: { events: [{ type: 'track', key: 'order', context: { user_id: 'u1', environment: 'prod' } }] },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.issues?.[0]?.path ?? bad.body.details?.issues?.[0]?.path).toBe('events[0].context.environment')
  })

  test('an environment key is bound at the relay: another environment is 403, none is its own', async () => {
    const staging = await createToken(origin, ['read:flags'], { environment: 'staging' })
    const refused = await api(relay, 'POST', '/api/v1/events', {
      token: staging,
      body: { events: [{ type: 'track', key: 'order', context: { user_id: 'u1', environment: 'production' } }] },
    })
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('ENVIRONMENT_MISMATCH')
  })

  test('the origin takes a relay batch id once', async () => {
    const body = { events: [{ type: 'track', key: 'order', context: { user_id: 'u2', environment: 'production' } }] }
    const headers = { 'flagship-batch-id': 'batch-events-0001' }
    const first = await api(origin, 'POST', '/api/v1/events', { token: relayKey, body, headers })
    expect(first.status).toBe(202)
    expect(first.body).toEqual({ accepted: 1 })
    const again = await api(origin, 'POST', '/api/v1/events', { token: relayKey, body, headers })
    expect(again.status).toBe(202)
    expect(again.body).toEqual({ accepted: 0, duplicate: true })
    expect(await orders()).toEqual({ a: 2, b: 2 })
  })
})
