// The SDK's side of experiments (docs/experiments.md §1), against the real server: it learns the running
// experiments from /definitions (and from the stream when one starts later), records each unit's exposure
// once per flag and variant (only the split's units, in the experiment's environment), sends track() events
// and exposures in batches that reach the results, retries what failed, and sends the rest at close();
// OpenFeature's track() goes the same way.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { OpenFeature } from '@openfeature/server-sdk'
import { createClient, type FetchLike } from '../../sdk/src'
import { FlagshipProvider } from '../../sdk/src/openfeature'
import { api, startServer, type TestServer } from '../helpers/server'
import { waitFor } from './helpers'

let srv: TestServer
const call = (method: string, path: string, body?: unknown) => api(srv, method, path, { token: srv.adminToken, body })
const split = {
  attribute: 'user_id',
  distribution: [
    { variant: 'a', weight: 50 },
    { variant: 'b', weight: 50 },
  ],
}
const results = async (key: string) => (await call('GET', `/api/v1/experiments/${key}/results?refresh=true`)).body

beforeAll(async () => {
  srv = await startServer()
  for (const key of ['sdk-flag', 'later-flag', 'of-flag']) {
    expect(
      (
        await call('POST', '/api/v1/flags', {
          key,
          enabled: true,
          variants: { a: 'A', b: 'B' },
          default_variant: 'a',
          targeting: { overrides: { vip: 'b' }, rollout: split },
        })
      ).status,
    ).toBe(201)
  }
  await call('POST', '/api/v1/metrics', { key: 'buys', name: 'Buys', kind: 'mean', event: 'buy', aggregation: 'sum' })
  for (const [key, flag] of [
    ['sdk-x', 'sdk-flag'],
    ['of-x', 'of-flag'],
  ]) {
    expect(
      (await call('POST', '/api/v1/experiments', { key, name: key, flag, environment: 'production', goal_metrics: ['buys'], cuped: false }))
        .status,
    ).toBe(201)
    expect((await call('POST', `/api/v1/experiments/${key}/start`)).status).toBe(200)
  }
}, 60_000)
afterAll(() => srv?.stop())

describe('SDK events', () => {
  test('exposures once per unit, flag and variant; track events; both reach the results', async () => {
    const client = createClient({ url: srv.url, token: srv.adminToken, environment: 'production', events: { intervalMs: 100_000 } })
    const errors: unknown[] = []
    client.on('error', (e) => errors.push(e))
    await client.ready()
    const served: Record<string, string> = {}
    for (let i = 0; i < 30; i++) {
      for (let k = 0; k < 3; k++) served[`u${i}`] = client.evaluate('sdk-flag', { user_id: `u${i}` }).variant as string
    }
    client.evaluate('sdk-flag', { user_id: 'vip' }) // an override: not an exposure
    client.evaluate('sdk-flag', { user_id: 'elsewhere', environment: 'staging' }) // another environment
    client.evaluate('later-flag', { user_id: 'u1' }) // in no experiment
    const exposures = client.pendingEvents().filter((e) => e.type === 'exposure')
    expect(exposures).toHaveLength(30)
    // (a copy: bun's toMatchObject writes asymmetric matchers into the object it checks)
    const first = JSON.parse(JSON.stringify(exposures[0]))
    expect(first).toMatchObject({
      type: 'exposure',
      flag: 'sdk-flag',
      variant: served.u0,
      context: { user_id: 'u0', environment: 'production' },
    })
    expect(Date.parse(first.timestamp)).toBeGreaterThan(Date.now() - 60_000)
    client.track('buy', { user_id: 'u0' }, 10)
    client.track('buy', { user_id: 'u1' })
    expect(() => client.track('buy', { user_id: 'u1' }, Number.NaN)).toThrow(TypeError)
    await client.flushEvents()
    expect(client.pendingEvents()).toHaveLength(0)
    expect(errors).toEqual([])
    const r = await results('sdk-x')
    const count = (v: string) => Object.values(served).filter((s) => s === v).length
    expect(r.units).toEqual({ a: count('a'), b: count('b') })
    const sums = Object.fromEntries(r.metrics[0].variants.map((v: any) => [v.variant, v.sum]))
    expect(served.u0 === served.u1 ? sums[served.u0!] : sums[served.u0!] + sums[served.u1!]).toBe(11)
    await client.close()
  })

  test('an experiment started later is learnt from the stream; exposures go at the interval', async () => {
    const client = createClient({ url: srv.url, token: srv.adminToken, environment: 'production', events: { intervalMs: 200 } })
    await client.ready()
    client.evaluate('later-flag', { user_id: 'w1' })
    expect(client.pendingEvents()).toHaveLength(0)
    await call('POST', '/api/v1/experiments', {
      key: 'later-x',
      name: 'Later',
      flag: 'later-flag',
      environment: 'production',
      goal_metrics: ['buys'],
    })
    await call('POST', '/api/v1/experiments/later-x/start')
    await waitFor(
      () => {
        client.evaluate('later-flag', { user_id: 'w1' })
        return client.pendingEvents().length > 0
      },
      10_000,
      'the exposure of w1',
    )
    await waitFor(() => client.pendingEvents().length === 0, 10_000, 'the batch sent')
    expect(Object.values((await results('later-x')).units).reduce((a: number, b) => a + (b as number), 0)).toBe(1)
    await client.close()
  })

  test('a failed batch is kept and sent again; what is left goes at close()', async () => {
    let failures = 2
    let posts = 0
    const flaky: FetchLike = async (url, init) => {
      if (url.endsWith('/api/v1/events')) {
        posts++
        if (failures-- > 0) throw new Error('network down')
      }
      return fetch(url, init)
    }
    const errors: unknown[] = []
    const client = createClient({
      url: srv.url,
      token: srv.adminToken,
      environment: 'production',
      fetch: flaky,
      events: { intervalMs: 100_000, batchSize: 5 },
    })
    client.on('error', (e) => errors.push(e))
    await client.ready()
    for (let i = 0; i < 5; i++) client.track('buy', { user_id: `r${i}` }, 1)
    await waitFor(() => posts >= 1 && errors.length >= 1, 5_000, 'the first attempt')
    expect(client.pendingEvents()).toHaveLength(5)
    await client.flushEvents()
    expect(client.pendingEvents()).toHaveLength(5)
    client.track('buy', { user_id: 'r5' }, 1)
    await client.close()
    expect(client.pendingEvents()).toHaveLength(0)
    expect(posts).toBe(3)
  })

  test('without a service (bootstrap only) events are kept, never sent', () => {
    const client = createClient({ bootstrap: { version: 1, environments: ['production'], flags: [], configs: [], segments: [] } })
    client.track('buy', { user_id: 'x' })
    expect(client.pendingEvents()).toHaveLength(1)
  })
})

describe('OpenFeature', () => {
  test("the provider's track() sends a track event; its evaluations record exposures", async () => {
    const provider = new FlagshipProvider({
      url: srv.url,
      token: srv.adminToken,
      environment: 'production',
      events: { intervalMs: 100_000 },
    })
    await OpenFeature.setProviderAndWait('experiments', provider)
    const of = OpenFeature.getClient('experiments')
    const variant = (await of.getStringDetails('of-flag', 'A', { targetingKey: 'o1' })).variant
    of.track('buy', { targetingKey: 'o1' }, { value: 7 })
    expect(provider.client.pendingEvents().map((e) => e.type)).toEqual(['exposure', 'track'])
    await provider.client.flushEvents()
    const r = await results('of-x')
    expect(r.metrics[0].variants.find((v: any) => v.variant === variant).sum).toBe(7)
    await OpenFeature.clearProviders()
  })
})
