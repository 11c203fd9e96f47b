// Release plans through HTTP (docs/experiments.md §7), driven by real traffic: users evaluate
// the flag (the server records who was inside the rollout) and send track events. A healthy rollout climbs
// every step and completes; a harmful one is rolled back to 0 % by the monitor; a sample-ratio mismatch
// pauses; refusals (validation, permissions, environment rights, states) change nothing. Each transition is
// audited (the monitor's as `release-plan:<id>`) and only the plan's environment changes.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { until } from '../helpers/until'
import { drive, type Traffic } from '../helpers/release-traffic'

let srv: TestServer
let admin: string
const call = (method: string, path: string, body?: unknown, token = admin) => api(srv, method, path, { token, body })
const plans = (flag: string) => `/api/v1/flags/${flag}/release-plans`
const ok = <R extends { status: number; text: string }>(r: R): R => {
  expect(r.status, r.text).toBeLessThan(300)
  return r
}
const plan = async (flag: string, id: string) => (await call('GET', `${plans(flag)}/${id}`)).body.release_plan
const traffic = (): Traffic => ({ next: 0, inside: 0, outside: 0 })

beforeAll(async () => {
  srv = await startServer({
    env: {
      EXPOSURE_FLUSH_MS: '150',
      RELEASE_MONITOR_MS: '250',
      RATE_LIMIT_EVALUATION_PER_MINUTE: '1000000',
      RATE_LIMIT_MANAGEMENT_PER_MINUTE: '100000',
    },
  })
  admin = srv.adminToken
  for (const key of ['healthy', 'harmful', 'skewed', 'manual', 'refused'])
    ok(await call('POST', '/api/v1/flags', { key, enabled: true, value: true }))
  ok(await call('POST', '/api/v1/flags', { key: 'split', enabled: true, variants: { a: 'A', b: 'B' }, default_variant: 'a' }))
  ok(
    await call('POST', '/api/v1/flags', {
      key: 'variant-harmful',
      enabled: true,
      variants: { old: 'old', new: 'new' },
      default_variant: 'old',
    }),
  )
  ok(await call('POST', '/api/v1/metrics', { key: 'errors', name: 'Errors', kind: 'proportion', event: 'error', higher_is_better: false }))
}, 60_000)
afterAll(() => srv?.stop())

describe('the monitor', () => {
  test('a healthy rollout climbs every step and completes; other environments are untouched', async () => {
    const created = ok(
      await call('POST', plans('healthy'), {
        environment: 'production',
        steps: [
          { percentage: 10, hold_minutes: 0.005 },
          { percentage: 50, hold_minutes: 0.005 },
          { percentage: 100, hold_minutes: 0.005 },
        ],
        guardrails: [{ metric: 'errors' }],
        min_units: 30,
      }),
    )
    expect(created.status).toBe(201)
    const id = created.body.release_plan.id
    expect(created.body.release_plan).toMatchObject({
      state: 'draft',
      current_step: 0,
      min_units: 30,
      on_regression: 'rollback',
      attribute: 'user_id',
    })
    const started = ok(await call('POST', `${plans('healthy')}/${id}/start`))
    expect(started.body.release_plan).toMatchObject({ state: 'running', current_step: 1, percentage: 10 })
    const flag = (await call('GET', '/api/v1/flags/healthy/definition')).body.flag
    expect(flag.environments.production.targeting.rollout).toEqual({ attribute: 'user_id', percentage: 10 })
    expect(flag.targeting ?? null).toBeNull()
    // the treatment errs less than the control: nothing to roll back
    const t = traffic()
    const done = await until(
      'healthy plan completed',
      async () => {
        await drive(srv, admin, 'healthy', t, 150, (inside) => (inside ? 0.05 : 0.1))
        const p = await plan('healthy', id)
        return p.state === 'completed' ? p : undefined
      },
      120_000,
      10,
    )
    expect(done).toMatchObject({ current_step: 3, percentage: 100, reason: null })
    expect(t.inside).toBeGreaterThan(30)
    // the last reading that let it advance: the treatment's interval is not wholly on the bad side
    expect(done.guardrail_results).toEqual([
      expect.objectContaining({ metric: 'errors', regressed: false, ci: [expect.any(Number), expect.any(Number)] }),
    ])
    expect(done.guardrail_results[0].ci[1]).toBeGreaterThan(0)
    expect((await call('GET', '/api/v1/flags/healthy/definition')).body.flag.environments.production.targeting.rollout.percentage).toBe(100)
    // every user is in now
    expect(
      (
        await call(
          'GET',
          `/api/v1/flags/healthy?context=${encodeURIComponent(JSON.stringify({ user_id: 'late', environment: 'production' }))}`,
        )
      ).body.value,
    ).toBe(true)
    expect(
      (
        await call(
          'GET',
          `/api/v1/flags/healthy?context=${encodeURIComponent(JSON.stringify({ user_id: 'late', environment: 'staging' }))}`,
        )
      ).body.value,
    ).toBe(true)
    const audit = (await call('GET', `/api/v1/audit?resource_type=release_plan&resource_key=${id}`)).body.entries
    expect(audit.map((e: any) => e.action).reverse()).toEqual(['create', 'start', 'advance', 'advance', 'complete'])
    const steps = audit.filter((e: any) => e.action === 'advance')
    expect(steps.every((e: any) => e.actor === `release-plan:${id}` && e.actor_type === 'release_plan')).toBe(true)
    const flagAudit = (await call('GET', '/api/v1/audit?resource_type=flag&resource_key=healthy&action=update')).body.entries
    expect(flagAudit.filter((e: any) => e.actor === `release-plan:${id}`)).toHaveLength(2)
    // every flag change the plan made names it, the start (by the token) included
    expect(flagAudit.filter((e: any) => e.details?.release_plan === id)).toHaveLength(3)
  }, 150_000)

  test('a harmful rollout is rolled back to 0 % by the monitor, naming the metric and its interval', async () => {
    const id = ok(
      await call('POST', plans('harmful'), {
        environment: 'production',
        steps: [
          { percentage: 50, hold_minutes: 60 },
          { percentage: 100, hold_minutes: 60 },
        ],
        guardrails: [{ metric: 'errors', max_degradation: 0.05 }],
      }),
    ).body.release_plan.id
    ok(await call('POST', `${plans('harmful')}/${id}/start`))
    const t = traffic()
    const startedAt = Date.now()
    const rolled = await until(
      'harmful plan rolled back',
      async () => {
        await drive(srv, admin, 'harmful', t, 100, (inside) => (inside ? 0.6 : 0.2))
        const p = await plan('harmful', id)
        return p.state === 'rolled_back' ? p : undefined
      },
      90_000,
      10,
    )
    expect(Date.now() - startedAt).toBeLessThan(90_000)
    expect(rolled).toMatchObject({ reason: 'regression', metric: 'errors', current_step: 1 })
    const reading = rolled.guardrail_results.find((g: any) => g.metric === 'errors')
    expect(reading.regressed).toBe(true)
    expect(reading.ci[1]).toBeLessThan(-0.05)
    expect((await call('GET', '/api/v1/flags/harmful/definition')).body.flag.environments.production.targeting.rollout.percentage).toBe(0)
    const audit = (await call('GET', `/api/v1/audit?resource_type=release_plan&resource_key=${id}&action=rollback`)).body.entries
    expect(audit).toHaveLength(1)
    expect(audit[0].actor).toBe(`release-plan:${id}`)
    // nothing more happens to a rolled-back plan
    expect((await call('POST', `${plans('harmful')}/${id}/resume`)).status).toBe(409)
  }, 120_000)

  test("a flag with variants: the steps raise the new variant's weight; harmful, it goes back to the control", async () => {
    const id = ok(
      await call('POST', plans('variant-harmful'), {
        environment: 'production',
        variant: 'new',
        steps: [
          { percentage: 50, hold_minutes: 60 },
          { percentage: 100, hold_minutes: 60 },
        ],
        guardrails: [{ metric: 'errors' }],
      }),
    ).body.release_plan.id
    expect(await plan('variant-harmful', id)).toMatchObject({ variant: 'new', control_variant: 'old' })
    ok(await call('POST', `${plans('variant-harmful')}/${id}/start`))
    const distribution = async () =>
      (await call('GET', '/api/v1/flags/variant-harmful/definition')).body.flag.environments.production.targeting.rollout.distribution
    expect(await distribution()).toEqual([
      { variant: 'new', weight: 50 },
      { variant: 'old', weight: 50 },
    ])
    const served = { next: 0, inside: 0, outside: 0 }
    const rolled = await until(
      'variant plan rolled back',
      async () => {
        const events: object[] = []
        for (let i = served.next; i < served.next + 100; i++) {
          const context = { user_id: `v-${i}`, environment: 'production' }
          const r = await call('GET', `/api/v1/flags/variant-harmful?context=${encodeURIComponent(JSON.stringify(context))}`)
          const inside = r.body.variant === 'new'
          if (((i * 2654435761) >>> 0) % 1000 < (inside ? 600 : 200)) events.push({ type: 'track', key: 'error', context })
        }
        served.next += 100
        if (events.length) ok(await call('POST', '/api/v1/events', { events }))
        const p = await plan('variant-harmful', id)
        return p.state === 'rolled_back' ? p : undefined
      },
      90_000,
      10,
    )
    expect(rolled).toMatchObject({ reason: 'regression', metric: 'errors' })
    expect(await distribution()).toEqual([{ variant: 'old', weight: 100 }])
  }, 120_000)

  test('on_regression pause: a harmful rollout is held at its step, paused with the metric', async () => {
    ok(await call('POST', '/api/v1/flags', { key: 'pausing', enabled: true, value: true }))
    const id = ok(
      await call('POST', plans('pausing'), {
        environment: 'production',
        steps: [
          { percentage: 50, hold_minutes: 60 },
          { percentage: 100, hold_minutes: 60 },
        ],
        guardrails: [{ metric: 'errors' }],
        on_regression: 'pause',
      }),
    ).body.release_plan.id
    ok(await call('POST', `${plans('pausing')}/${id}/start`))
    const t = traffic()
    const paused = await until(
      'pausing plan paused',
      async () => {
        await drive(srv, admin, 'pausing', t, 100, (inside) => (inside ? 0.6 : 0.2))
        const p = await plan('pausing', id)
        return p.state === 'paused' ? p : undefined
      },
      90_000,
      10,
    )
    expect(paused).toMatchObject({ reason: 'regression', metric: 'errors', current_step: 1 })
    expect((await call('GET', '/api/v1/flags/pausing/definition')).body.flag.environments.production.targeting.rollout.percentage).toBe(50)
    const audit = (await call('GET', `/api/v1/audit?resource_type=release_plan&resource_key=${id}&action=pause`)).body.entries
    expect(audit).toHaveLength(1)
    expect(audit[0].actor).toBe(`release-plan:${id}`)
  }, 120_000)

  test('a sample-ratio mismatch pauses the plan (reason srm)', async () => {
    const id = ok(
      await call('POST', plans('skewed'), {
        environment: 'production',
        steps: [
          { percentage: 10, hold_minutes: 60 },
          { percentage: 100, hold_minutes: 60 },
        ],
      }),
    ).body.release_plan.id
    ok(await call('POST', `${plans('skewed')}/${id}/start`))
    // an SDK reports as many units inside a 10 % rollout as outside it
    const events = Array.from({ length: 400 }, (_, i) => ({
      type: 'exposure',
      flag: 'skewed',
      variant: i % 2 ? 'rollout' : 'off',
      context: { user_id: `s-${i}`, environment: 'production' },
    }))
    expect((await call('POST', '/api/v1/events', { events })).status).toBe(202)
    const paused = await until(
      'skewed plan paused',
      async () => {
        const p = await plan('skewed', id)
        return p.state === 'paused' ? p : undefined
      },
      30_000,
      100,
    )
    expect(paused.reason).toBe('srm')
    expect(paused.srm_p_value).toBeLessThan(0.001)
    expect(paused.units).toEqual({ treatment: 200, control: 200 })
    // still at step 1: the flag keeps its 10 %
    expect((await call('GET', '/api/v1/flags/skewed/definition')).body.flag.environments.production.targeting.rollout.percentage).toBe(10)
  }, 60_000)
})

describe('by hand', () => {
  test('pause, resume and rollback; one active plan per flag and environment', async () => {
    const body = {
      environment: 'production',
      steps: [
        { percentage: 5, hold_minutes: 600 },
        { percentage: 100, hold_minutes: 600 },
      ],
    }
    const id = ok(await call('POST', plans('manual'), body)).body.release_plan.id
    const other = ok(await call('POST', plans('manual'), body)).body.release_plan.id
    expect((await call('POST', `${plans('manual')}/${id}/pause`)).status).toBe(409)
    ok(await call('POST', `${plans('manual')}/${id}/start`))
    expect((await call('POST', `${plans('manual')}/${id}/start`)).status).toBe(409)
    const busy = await call('POST', `${plans('manual')}/${other}/start`)
    expect(busy.status).toBe(409)
    expect(busy.body.code).toBe('RELEASE_PLAN_ACTIVE')
    expect((await call('POST', `${plans('manual')}/${id}/pause`)).body.release_plan).toMatchObject({ state: 'paused', reason: 'manual' })
    expect((await call('POST', `${plans('manual')}/${id}/resume`)).body.release_plan).toMatchObject({
      state: 'running',
      reason: null,
      current_step: 1,
    })
    const rolled = ok(await call('POST', `${plans('manual')}/${id}/rollback`)).body.release_plan
    expect(rolled).toMatchObject({ state: 'rolled_back', reason: 'manual' })
    expect((await call('GET', '/api/v1/flags/manual/definition')).body.flag.environments.production.targeting.rollout.percentage).toBe(0)
    const list = (await call('GET', plans('manual'))).body.release_plans
    expect(list.map((p: any) => p.id).sort()).toEqual([id, other].sort())
    const actions = (await call('GET', `/api/v1/audit?resource_type=release_plan&resource_key=${id}`)).body.entries
      .map((e: any) => e.action)
      .reverse()
    expect(actions).toEqual(['create', 'start', 'pause', 'resume', 'rollback'])
  })
  test('a running plan whose flag is deleted pauses (reason flag_deleted)', async () => {
    ok(await call('POST', '/api/v1/flags', { key: 'doomed', enabled: true, value: true }))
    const id = ok(
      await call('POST', plans('doomed'), {
        environment: 'production',
        steps: [
          { percentage: 10, hold_minutes: 60 },
          { percentage: 100, hold_minutes: 60 },
        ],
      }),
    ).body.release_plan.id
    ok(await call('POST', `${plans('doomed')}/${id}/start`))
    ok(await call('DELETE', '/api/v1/flags/doomed'))
    const paused = await until(
      'doomed plan paused',
      async () => {
        const p = await plan('doomed', id)
        return p.state === 'paused' ? p : undefined
      },
      30_000,
      100,
    )
    expect(paused.reason).toBe('flag_deleted')
  }, 60_000)
})

describe('refusals', () => {
  const good = {
    environment: 'production',
    steps: [
      { percentage: 10, hold_minutes: 1 },
      { percentage: 100, hold_minutes: 1 },
    ],
    guardrails: [{ metric: 'errors' }],
  }
  test('bad plans are refused naming the field; nothing is stored', async () => {
    const cases: [object, string][] = [
      [{ ...good, steps: [{ percentage: 10, hold_minutes: 1 }] }, 'steps'],
      [{ ...good, steps: Array.from({ length: 21 }, (_, i) => ({ percentage: i + 1, hold_minutes: 1 })) }, 'steps'],
      [
        {
          ...good,
          steps: [
            { percentage: 50, hold_minutes: 1 },
            { percentage: 20, hold_minutes: 1 },
          ],
        },
        'steps[1].percentage',
      ],
      [
        {
          ...good,
          steps: [
            { percentage: 10, hold_minutes: 0 },
            { percentage: 20, hold_minutes: 1 },
          ],
        },
        'steps[0].hold_minutes',
      ],
      [
        {
          ...good,
          steps: [
            { percentage: 10, hold_minutes: 1 },
            { percentage: 120, hold_minutes: 1 },
          ],
        },
        'steps[1].percentage',
      ],
      [{ ...good, guardrails: [{ metric: 'nope' }] }, 'guardrails[0].metric'],
      [{ ...good, guardrails: [{ metric: 'errors', max_degradation: -1 }] }, 'guardrails[0].max_degradation'],
      [{ ...good, min_units: 0 }, 'min_units'],
      [{ ...good, on_regression: 'panic' }, 'on_regression'],
      [{ ...good, environment: 'moon' }, 'environment'],
    ]
    for (const [body, path] of cases) {
      const r = await call('POST', plans('refused'), body)
      expect(r.status, `${path}: ${r.text}`).toBe(400)
      expect(r.body.code).toBe('VALIDATION_ERROR')
      expect(r.body.details.issues.map((i: any) => i.path)).toContain(path)
    }
    const variants = await call('POST', plans('split'), good)
    expect(variants.status).toBe(400)
    expect(variants.body.details.issues[0].path).toBe('variant')
    expect((await call('POST', plans('split'), { ...good, variant: 'a' })).body.details.issues[0].path).toBe('control_variant')
    expect((await call('POST', plans('refused'), { ...good, variant: 'a' })).body.details.issues[0].path).toBe('variant')
    expect(
      (
        await call('POST', plans('refused'), {
          ...good,
          steps: [
            { percentage: 10.005, hold_minutes: 1 },
            { percentage: 20, hold_minutes: 1 },
          ],
        })
      ).body.details.issues[0].path,
    ).toBe('steps[0].percentage')
    expect((await call('POST', plans('nope'), good)).status).toBe(404)
    expect((await call('POST', plans('refused'), { ...good, extra: 1 })).status).toBe(400)
    expect((await call('GET', plans('refused'))).body.release_plans).toEqual([])
  })

  test('write:flags and write rights in the environment are needed; read:flags reads', async () => {
    const id = ok(await call('POST', plans('refused'), good)).body.release_plan.id
    const staging = await createToken(srv, ['read:flags', 'write:flags'], { environments: ['staging'] })
    const reader = await createToken(srv, ['read:flags'])
    const configs = await createToken(srv, ['read:configs'])
    expect((await call('POST', plans('refused'), good, staging)).status).toBe(403)
    expect((await call('POST', plans('refused'), good, reader)).status).toBe(403)
    for (const action of ['start', 'pause', 'resume', 'rollback']) {
      expect((await call('POST', `${plans('refused')}/${id}/${action}`, undefined, staging)).status).toBe(403)
      expect((await call('POST', `${plans('refused')}/${id}/${action}`, undefined, reader)).status).toBe(403)
    }
    expect((await call('GET', `${plans('refused')}/${id}`, undefined, configs)).status).toBe(403)
    expect((await call('GET', plans('refused'), undefined, configs)).status).toBe(403)
    expect((await call('GET', `${plans('refused')}/${id}`, undefined, reader)).body.release_plan.state).toBe('draft')
    expect((await call('GET', `${plans('healthy')}/${id}`)).status).toBe(404)
    // a staging plan is the staging token's to run
    const own = ok(await call('POST', plans('refused'), { ...good, environment: 'staging' }, staging)).body.release_plan.id
    expect((await call('POST', `${plans('refused')}/${own}/start`, undefined, staging)).status).toBe(200)
    expect((await call('GET', '/api/v1/flags/refused/definition')).body.flag.environments.staging.targeting.rollout.percentage).toBe(10)
  })
})
