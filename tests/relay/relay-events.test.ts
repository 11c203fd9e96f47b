// Experiment events at a relay (docs/operations.md, Relays; docs/experiments.md): checked at the relay as the
// origin checks them, forwarded upstream in batches and stored there once, whatever the number of relays in
// between; a batch id sent twice to the origin stores nothing the second time; an environment key is bound
// at the relay as at the origin.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ordersByVariant, setUpOrdersExperiment } from '../helpers/orders-experiment'
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
const orders = () => ordersByVariant(origin)

beforeAll(async () => {
  origin = await startServer()
  relayKey = await createToken(origin, ['relay'])
  reader = await createToken(origin, ['read:flags'])
  await setUpOrdersExperiment(origin)
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
