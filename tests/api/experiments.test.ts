// Experiments through HTTP (docs/experiments.md §2-3): metrics and experiments refused with the field named
// and nothing changed; defaults; start, 409 EXPERIMENT_RUNNING; exposures recorded by every server
// evaluation surface (the split's units only, not overrides or rules, not other environments) and flushed;
// phases opened by changes that affect the experiment's environment only; stop by ship into that
// environment's own rules (other environments keep the split); permissions per environment.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { until } from '../helpers/until'

let srv: TestServer
let admin: string
const call = (method: string, path: string, body?: unknown, token = admin) => api(srv, method, path, { token, body })
const ctx = (c: object) => encodeURIComponent(JSON.stringify(c))
const FLAG = {
  key: 'checkout-button',
  enabled: true,
  variants: { control: 'blue', treatment: 'green' },
  default_variant: 'control',
  targeting: {
    rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'staff' }], variant: 'treatment' }],
    overrides: { 'vip-1': 'treatment' },
    rollout: {
      attribute: 'user_id',
      distribution: [
        { variant: 'control', weight: 50 },
        { variant: 'treatment', weight: 50 },
      ],
    },
  },
}

beforeAll(async () => {
  srv = await startServer({ env: { EXPOSURE_FLUSH_MS: '200' } })
  admin = srv.adminToken
  expect((await call('POST', '/api/v1/flags', FLAG)).status).toBe(201)
  expect((await call('POST', '/api/v1/flags', { key: 'plain', enabled: true, value: true })).status).toBe(201)
}, 60_000)
afterAll(() => srv?.stop())

describe('metrics', () => {
  test('created with defaults; refused naming the field; duplicates, unknown keys and metrics in use refused', async () => {
    const created = await call('POST', '/api/v1/metrics', { key: 'purchase', name: 'Purchased', kind: 'proportion', event: 'purchase' })
    expect(created.status).toBe(201)
    expect(created.body.metric).toMatchObject({ key: 'purchase', aggregation: 'count', higher_is_better: true })
    expect((await call('POST', '/api/v1/metrics', { key: 'purchase', name: 'Again', kind: 'proportion', event: 'purchase' })).status).toBe(
      409,
    )
    const ratio = await call('POST', '/api/v1/metrics', { key: 'aov', name: 'Basket', kind: 'ratio', event: 'basket' })
    expect(ratio.status).toBe(400)
    expect(ratio.body.details.issues).toEqual([{ path: 'denominator_event', message: expect.any(String) }])
    for (const [field, value] of [
      ['kind', 'median'],
      ['window_hours', 0],
      ['cap', -1],
      ['aggregation', 'max'],
      ['event', 'bad key'],
    ] as const) {
      const r = await call('POST', '/api/v1/metrics', { key: 'x', name: 'X', kind: 'mean', event: 'e', [field]: value })
      expect(r.status).toBe(400)
      expect(r.body.details.issues[0].path).toBe(field)
    }
    expect((await call('GET', '/api/v1/metrics/x')).status).toBe(404)
    expect(
      (
        await call('POST', '/api/v1/metrics', {
          key: 'revenue',
          name: 'Revenue',
          kind: 'mean',
          event: 'order',
          aggregation: 'sum',
          cap: 500,
          window_hours: 72,
        })
      ).status,
    ).toBe(201)
    const changed = await call('PUT', '/api/v1/metrics/revenue', { cap: null, higher_is_better: true })
    expect(changed.status).toBe(200)
    expect(changed.body.metric.cap).toBeUndefined()
    expect((await call('GET', '/api/v1/metrics')).body).toMatchObject({ total: 2, metrics: [{ key: 'purchase' }, { key: 'revenue' }] })
    const audit = (await call('GET', '/api/v1/audit?resource_type=metric')).body.entries
    expect(audit.map((e: any) => e.action)).toEqual(['update', 'create', 'create'])
  })
})

describe('experiments', () => {
  test('refused naming the field; created with the defaults', async () => {
    const bad = async (body: object, path: string) => {
      const r = await call('POST', '/api/v1/experiments', {
        key: 'e1',
        name: 'E',
        flag: FLAG.key,
        environment: 'production',
        goal_metrics: ['purchase'],
        ...body,
      })
      expect(r.status).toBe(400)
      expect(r.body.details.issues.map((i: any) => i.path)).toContain(path)
    }
    await bad({ flag: 'plain' }, 'flag')
    await bad({ flag: 'missing' }, 'flag')
    await bad({ environment: 'prod' }, 'environment')
    await bad({ goal_metrics: ['nope'] }, 'goal_metrics[0]')
    await bad({ goal_metrics: [] }, 'goal_metrics')
    await bad({ control: 'purple' }, 'control')
    await bad({ engine: 'magic' }, 'engine')
    await bad({ alpha: 0.7 }, 'alpha')
    await bad({ correction: 'bonferroni' }, 'correction')
    expect((await call('GET', '/api/v1/experiments')).body.total).toBe(0)
    const r = await call('POST', '/api/v1/experiments', {
      key: 'e1',
      name: 'Button',
      flag: FLAG.key,
      environment: 'production',
      goal_metrics: ['purchase'],
      guardrail_metrics: ['revenue'],
    })
    expect(r.status).toBe(201)
    expect(r.body.experiment).toMatchObject({
      state: 'draft',
      control: 'control',
      unit: 'user_id',
      engine: 'bayesian',
      sequential: true,
      alpha: 0.05,
      correction: 'none',
      cuped: true,
      phase: 0,
      phases: [],
    })
    expect((await call('DELETE', '/api/v1/metrics/revenue')).body.code).toBe('METRIC_IN_USE')
  })

  test('start opens phase 1; a second running experiment on the flag and environment is refused', async () => {
    expect((await call('GET', '/api/v1/experiments/e1/results')).status).toBe(400)
    const started = await call('POST', '/api/v1/experiments/e1/start')
    expect(started.status).toBe(200)
    expect(started.body.experiment).toMatchObject({ state: 'running', phase: 1, phases: [{ number: 1, reason: 'start', ended_at: null }] })
    expect((await call('POST', '/api/v1/experiments/e1/start')).body.code).toBe('INVALID_STATE')
    expect(
      (
        await call('POST', '/api/v1/experiments', {
          key: 'e2',
          name: 'Again',
          flag: FLAG.key,
          environment: 'production',
          goal_metrics: ['purchase'],
        })
      ).status,
    ).toBe(201)
    const second = await call('POST', '/api/v1/experiments/e2/start')
    expect(second.status).toBe(409)
    expect(second.body).toMatchObject({ code: 'EXPERIMENT_RUNNING', details: { experiment: 'e1' } })
    // Running: only name, hypothesis and metrics change; a draft may be deleted, a running one not.
    expect((await call('PUT', '/api/v1/experiments/e1', { engine: 'frequentist' })).status).toBe(409)
    expect((await call('PUT', '/api/v1/experiments/e1', { name: 'Button colour' })).body.experiment.name).toBe('Button colour')
    expect((await call('DELETE', '/api/v1/experiments/e1')).status).toBe(409)
    expect((await call('DELETE', '/api/v1/experiments/e2')).status).toBe(200)
  })

  test("every server evaluation surface records the split's units; overrides, rules and other environments do not count", async () => {
    const prod = (user_id: string, extra: object = {}) => ({ user_id, environment: 'production', ...extra })
    const served: Record<string, string> = {}
    for (let i = 0; i < 8; i++) {
      const r = await call('GET', `/api/v1/flags/${FLAG.key}?context=${ctx(prod(`u${i}`))}`)
      served[`u${i}`] = r.body.variant
    }
    for (let i = 8; i < 12; i++)
      served[`u${i}`] = (await call('POST', '/api/v1/evaluate', { context: prod(`u${i}`), flags: [FLAG.key] })).body.variants[FLAG.key]
    for (let i = 12; i < 16; i++)
      served[`u${i}`] = (
        await call('POST', `/ofrep/v1/evaluate/flags/${FLAG.key}`, {
          context: { targetingKey: `u${i}`, user_id: `u${i}`, environment: 'production' },
        })
      ).body.variant
    for (let i = 16; i < 20; i++) {
      const flags = (await call('POST', '/ofrep/v1/evaluate/flags', { context: { user_id: `u${i}`, environment: 'production' } })).body
        .flags
      served[`u${i}`] = flags.find((f: any) => f.key === FLAG.key).variant
    }
    // Decided before the split, or in another environment: not exposures.
    await call('GET', `/api/v1/flags/${FLAG.key}?context=${ctx(prod('vip-1'))}`)
    await call('GET', `/api/v1/flags/${FLAG.key}?context=${ctx(prod('staff-1', { plan: 'staff' }))}`)
    await call('GET', `/api/v1/flags/${FLAG.key}?context=${ctx({ user_id: 'u-staging', environment: 'staging' })}`)
    const expected = Object.values(served).reduce((m: Record<string, number>, v) => ({ ...m, [v]: (m[v] ?? 0) + 1 }), {})
    expect(Object.keys(expected).sort()).toEqual(['control', 'treatment'])
    const results = await until(
      '20 exposed units',
      async () => {
        const r = await call('GET', '/api/v1/experiments/e1/results?refresh=true')
        return r.body.units?.control + r.body.units?.treatment === 20 ? r.body : undefined
      },
      20_000,
      100,
    )
    expect(results.units).toEqual(expected)
    expect(results.multiple_exposures).toBe(0)
    // An SDK's exposure of u0 to the other variant: the unit is left out, and counted.
    const other = served.u0 === 'control' ? 'treatment' : 'control'
    expect(
      (await call('POST', '/api/v1/events', { events: [{ type: 'exposure', flag: FLAG.key, variant: other, context: prod('u0') }] }))
        .status,
    ).toBe(202)
    const after = (await call('GET', '/api/v1/experiments/e1/results?refresh=true')).body
    expect(after.multiple_exposures).toBe(1)
    expect(after.units[served.u0!]).toBe(expected[served.u0!]! - 1)
    // Without refresh, the kept answer (60 s).
    expect((await call('GET', '/api/v1/experiments/e1/results')).body.computed_at).toBe(after.computed_at)
  })

  test("a change in the experiment's environment opens a phase (audited); other environments do not", async () => {
    expect((await call('PUT', `/api/v1/flags/${FLAG.key}/environments/staging`, { enabled: false })).status).toBe(200)
    await Bun.sleep(300)
    expect((await call('GET', '/api/v1/experiments/e1')).body.experiment.phase).toBe(1)
    expect(
      (
        await call('PUT', `/api/v1/flags/${FLAG.key}`, {
          targeting: {
            ...FLAG.targeting,
            rollout: {
              attribute: 'user_id',
              distribution: [
                { variant: 'control', weight: 40 },
                { variant: 'treatment', weight: 60 },
              ],
            },
          },
        })
      ).status,
    ).toBe(200)
    const x = await until(
      'phase 2',
      async () => {
        const e = (await call('GET', '/api/v1/experiments/e1')).body.experiment
        return e.phase === 2 ? e : undefined
      },
      10_000,
      50,
    )
    expect(x.phases[0].ended_at).toEqual(expect.any(String))
    expect(x.phases[1]).toMatchObject({ number: 2, ended_at: null, reason: expect.stringContaining(`flag ${FLAG.key}`) })
    const audit = (await call('GET', '/api/v1/audit?resource_type=experiment&action=open_phase')).body.entries
    expect(audit).toHaveLength(1)
    // Phase 2 starts empty; phase 1 keeps its units.
    expect((await call('GET', '/api/v1/experiments/e1/results?refresh=true')).body).toMatchObject({
      phase: 2,
      units: { control: 0, treatment: 0 },
    })
    expect((await call('GET', '/api/v1/experiments/e1/results?phase=1')).body.phase).toBe(1)
    expect((await call('GET', '/api/v1/experiments/e1/results?phase=3')).status).toBe(400)
  })

  test("write rights in the experiment's environment are needed; read:flags reads", async () => {
    const staging = await createToken(srv, ['read:flags', 'write:flags'], { environments: ['staging'] })
    const reader = await createToken(srv, ['read:flags'])
    const configs = await createToken(srv, ['read:configs'])
    expect((await call('POST', '/api/v1/experiments/e1/stop', { decision: 'inconclusive' }, staging)).status).toBe(403)
    expect((await call('PUT', '/api/v1/experiments/e1', { name: 'x' }, staging)).status).toBe(403)
    expect(
      (
        await call(
          'POST',
          '/api/v1/experiments',
          { key: 'e3', name: 'E', flag: FLAG.key, environment: 'production', goal_metrics: ['purchase'] },
          staging,
        )
      ).status,
    ).toBe(403)
    expect((await call('POST', '/api/v1/experiments/e1/stop', { decision: 'inconclusive' }, reader)).status).toBe(403)
    expect((await call('POST', '/api/v1/metrics', { key: 'm', name: 'M', kind: 'mean', event: 'e' }, reader)).status).toBe(403)
    expect((await call('GET', '/api/v1/experiments/e1', undefined, reader)).status).toBe(200)
    expect((await call('GET', '/api/v1/experiments/e1/results', undefined, reader)).status).toBe(200)
    expect((await call('GET', '/api/v1/experiments', undefined, configs)).status).toBe(403)
    expect((await call('GET', '/api/v1/experiments/e1', undefined, configs)).status).toBe(403)
    expect((await call('GET', '/api/v1/experiments/e1')).body.experiment.state).toBe('running')
  })

  test("ship: the environment's own rules serve the variant to the split's units; other environments keep the split", async () => {
    expect((await call('POST', '/api/v1/experiments/e1/stop', { decision: 'ship' })).body.details.issues[0].path).toBe('variant')
    expect((await call('POST', '/api/v1/experiments/e1/stop', { decision: 'ship', variant: 'purple' })).body.details.issues[0].path).toBe(
      'variant',
    )
    const stopped = await call('POST', '/api/v1/experiments/e1/stop', { decision: 'ship', variant: 'treatment' })
    expect(stopped.status).toBe(200)
    expect(stopped.body.experiment).toMatchObject({ state: 'stopped', decision: { decision: 'ship', variant: 'treatment' } })
    const flag = (await call('GET', `/api/v1/flags/${FLAG.key}/definition`)).body.flag
    expect(flag.environments.production.targeting.rollout.distribution).toEqual([{ variant: 'treatment', weight: 100 }])
    expect(flag.targeting.rollout.distribution).toHaveLength(2)
    const variantOf = async (user_id: string, environment: string, plan?: string) =>
      (await call('GET', `/api/v1/flags/${FLAG.key}?context=${ctx({ user_id, environment, plan })}`)).body.variant
    const users = Array.from({ length: 20 }, (_, i) => `s${i}`)
    expect(new Set(await Promise.all(users.map((u) => variantOf(u, 'production'))))).toEqual(new Set(['treatment']))
    expect(new Set(await Promise.all(users.map((u) => variantOf(u, 'development'))))).toEqual(new Set(['control', 'treatment']))
    // The stop and the flag change are each audited; the experiment keeps its results.
    expect((await call('GET', '/api/v1/audit?resource_type=experiment&action=stop')).body.entries).toHaveLength(1)
    expect((await call('GET', '/api/v1/experiments/e1/results?phase=1&refresh=true')).body.units.control).toBeGreaterThan(0)
    expect((await call('POST', '/api/v1/experiments/e1/stop', { decision: 'inconclusive' })).body.code).toBe('INVALID_STATE')
  })
})
