// The SDK's side of release plans (docs/experiments.md §7), against the real server: /definitions names the
// flags under a running plan (with its step's percentage), evaluate() records which arm each unit got
// (`rollout` inside the rollout, `off` outside; once per unit), and the batch reaches the plan's monitor,
// which counts both arms.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createClient } from '../../sdk/src'
import { api, startServer, type TestServer } from '../helpers/server'
import { until } from '../helpers/until'

let srv: TestServer
const call = (method: string, path: string, body?: unknown) => api(srv, method, path, { token: srv.adminToken, body })

beforeAll(async () => {
  srv = await startServer({ env: { RELEASE_MONITOR_MS: '200' } })
  expect((await call('POST', '/api/v1/flags', { key: 'rp-sdk', enabled: true, value: true })).status).toBe(201)
}, 60_000)
afterAll(() => srv?.stop())

test('exposures of a flag under a release plan: the arm each unit got, counted by the monitor', async () => {
  const created = await call('POST', '/api/v1/flags/rp-sdk/release-plans', {
    environment: 'production',
    steps: [
      { percentage: 50, hold_minutes: 600 },
      { percentage: 100, hold_minutes: 600 },
    ],
  })
  const id = created.body.release_plan.id
  expect((await call('POST', `/api/v1/flags/rp-sdk/release-plans/${id}/start`)).status).toBe(200)
  // the entry names the current step's percentage: the SDK records only units served at it
  expect((await call('GET', '/api/v1/definitions?environment=production')).body.release_plans).toEqual([
    { id, flag: 'rp-sdk', environment: 'production', unit: 'user_id', percentage: 50 },
  ])
  const client = createClient({ url: srv.url, token: srv.adminToken, environment: 'production', events: { intervalMs: 100_000 } })
  await client.ready()
  const arms: Record<string, string> = {}
  for (let i = 0; i < 40; i++) {
    for (let k = 0; k < 2; k++) arms[`u${i}`] = client.evaluate('rp-sdk', { user_id: `u${i}` }).value === true ? 'rollout' : 'off'
  }
  client.evaluate('rp-sdk', { user_id: 'elsewhere', environment: 'staging' }) // another environment: not counted
  const exposures = client.pendingEvents().filter((e) => e.type === 'exposure')
  expect(exposures).toHaveLength(40)
  for (const e of exposures) if (e.type === 'exposure') expect(e.variant).toBe(arms[e.context.user_id!]!)
  expect(new Set(Object.values(arms))).toEqual(new Set(['rollout', 'off']))
  await client.flushEvents()
  const inside = Object.values(arms).filter((a) => a === 'rollout').length
  const plan = await until(
    'monitor counted the SDK units',
    async () => {
      const p = (await call('GET', `/api/v1/flags/rp-sdk/release-plans/${id}`)).body.release_plan
      return p.units.treatment + p.units.control === 40 ? p : undefined
    },
    20_000,
    100,
  )
  expect(plan.units).toEqual({ treatment: inside, control: 40 - inside })
  await client.close()
}, 60_000)
