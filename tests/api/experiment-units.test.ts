// GET /api/v1/experiments/:key/units: a phase's units per variant without its results (the console's
// experiment list): the same counts as the results, multiple exposures apart, phases, a draft, refusals.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { api, startServer, type TestServer } from '../helpers/server'

let srv: TestServer
const call = (method: string, path: string, body?: unknown, token: string | null = srv.adminToken) =>
  api(srv, method, path, { token, body })

beforeAll(async () => {
  srv = await startServer()
  const flag = {
    key: 'u-flag',
    enabled: true,
    variants: { a: 'A', b: 'B' },
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
  }
  expect((await call('POST', '/api/v1/flags', flag)).status).toBe(201)
  expect((await call('POST', '/api/v1/metrics', { key: 'u-buy', name: 'Buy', kind: 'proportion', event: 'buy' })).status).toBe(201)
  for (const key of ['counted', 'draft']) {
    expect(
      (
        await call('POST', '/api/v1/experiments', {
          key,
          name: key,
          flag: 'u-flag',
          environment: key === 'draft' ? 'staging' : 'production',
          goal_metrics: ['u-buy'],
        })
      ).status,
    ).toBe(201)
  }
  expect((await call('POST', '/api/v1/experiments/counted/start')).status).toBe(200)
  const exposure = (unit: string, variant: string) => ({
    type: 'exposure',
    flag: 'u-flag',
    variant,
    context: { user_id: unit, environment: 'production' },
  })
  const events = [exposure('1', 'a'), exposure('2', 'a'), exposure('3', 'b'), exposure('4', 'a'), exposure('4', 'b'), exposure('1', 'a')]
  expect((await call('POST', '/api/v1/events', { events })).status).toBe(202)
}, 60_000)
afterAll(() => srv?.stop())

test('the units per variant and the multiple exposures, as the results count them', async () => {
  const r = await call('GET', '/api/v1/experiments/counted/units')
  expect(r.status).toBe(200)
  expect(r.body).toEqual({ experiment: 'counted', phase: 1, units: { a: 2, b: 1 }, multiple_exposures: 1 })
  const results = await call('GET', '/api/v1/experiments/counted/results?refresh=true')
  expect(results.body.units).toEqual({ a: 2, b: 1 })
  expect(results.body.multiple_exposures).toBe(1)
  expect((await call('GET', '/api/v1/experiments/counted/units?phase=1')).body.units).toEqual({ a: 2, b: 1 })
})

test('a draft has none; a phase that does not exist, a bad phase and an unknown experiment are refused', async () => {
  expect((await call('GET', '/api/v1/experiments/draft/units')).body).toEqual({
    experiment: 'draft',
    phase: 0,
    units: {},
    multiple_exposures: 0,
  })
  const missing = await call('GET', '/api/v1/experiments/counted/units?phase=2')
  expect(missing.status).toBe(400)
  expect(missing.body.details.issues[0].path).toBe('phase')
  expect((await call('GET', '/api/v1/experiments/counted/units?phase=one')).status).toBe(400)
  expect((await call('GET', '/api/v1/experiments/draft/units?phase=1')).status).toBe(400)
  const unknown = await call('GET', '/api/v1/experiments/nope/units')
  expect(unknown.status).toBe(404)
  expect(unknown.body.code).toBe('EXPERIMENT_NOT_FOUND')
})

test('read:flags may read it; no token, or a token without read:flags, may not', async () => {
  const reader = (await call('POST', '/api/v1/tokens', { name: 'reader', project_id: 'default', permissions: ['read:flags'] })).body.token
  const configs = (await call('POST', '/api/v1/tokens', { name: 'configs', project_id: 'default', permissions: ['read:configs'] })).body
    .token
  expect((await call('GET', '/api/v1/experiments/counted/units', undefined, reader)).status).toBe(200)
  expect((await call('GET', '/api/v1/experiments/counted/units', undefined, configs)).status).toBe(403)
  expect((await call('GET', '/api/v1/experiments/counted/units', undefined, null)).status).toBe(401)
})
