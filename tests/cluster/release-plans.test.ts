// Release plans on two instances sharing PostgreSQL, both monitors checking every 100 ms: each plan is
// claimed by one instance at a time (a lease taken by a conditional UPDATE) and each step is written once
// (the plan row's compare-and-set), so a plan climbing five steps under traffic served by both instances
// has exactly one audited advance per step, and one flag change per step. A plan started on one instance is
// measured in the other's traffic at once (its change notice reloads the other's registry).
import { describe, expect, test } from 'bun:test'
import { api } from '../helpers/server'
import { clusterFixture, fanoutEnv } from '../helpers/cluster'
import { requireServices } from '../helpers/requirements'
import { until } from '../helpers/until'
import { drive } from '../helpers/release-traffic'

const ready = await requireServices({ postgres: true })

describe.skipIf(!ready)('release plans on two instances', () => {
  const c = clusterFixture({
    ...fanoutEnv('postgres only'),
    EXPOSURE_FLUSH_MS: '100',
    RELEASE_MONITOR_MS: '100',
    RATE_LIMIT_EVALUATION_PER_MINUTE: '1000000',
    RATE_LIMIT_MANAGEMENT_PER_MINUTE: '100000',
  })

  test('both instances monitor; every step is advanced exactly once', async () => {
    const { a, b, admin } = c
    const on = (srv: typeof a, method: string, path: string, body?: unknown) => api(srv, method, path, { token: admin, body })
    expect((await on(a, 'POST', '/api/v1/flags', { key: 'climb', enabled: true, value: true })).status).toBe(201)
    expect(
      (
        await on(a, 'POST', '/api/v1/metrics', {
          key: 'errors',
          name: 'Errors',
          kind: 'proportion',
          event: 'error',
          higher_is_better: false,
        })
      ).status,
    ).toBe(201)
    const steps = [10, 20, 40, 60, 80].map((percentage) => ({ percentage, hold_minutes: 0.002 }))
    const created = await on(a, 'POST', '/api/v1/flags/climb/release-plans', {
      environment: 'production',
      steps,
      guardrails: [{ metric: 'errors' }],
      min_units: 5,
    })
    expect(created.status, created.text).toBe(201)
    const id = created.body.release_plan.id
    expect((await on(b, 'POST', `/api/v1/flags/climb/release-plans/${id}/start`)).status).toBe(200)
    const ta = { next: 0, inside: 0, outside: 0 }
    const tb = { next: 0, inside: 0, outside: 0 }
    await until(
      'plan completed',
      async () => {
        await Promise.all([drive(a, admin, 'climb', ta, 40, () => 0.05, 'a'), drive(b, admin, 'climb', tb, 40, () => 0.05, 'b')])
        return (await on(a, 'GET', `/api/v1/flags/climb/release-plans/${id}`)).body.release_plan.state === 'completed' ? true : undefined
      },
      90_000,
      10,
    )
    // both instances served (and recorded) units
    expect(ta.inside + ta.outside).toBeGreaterThan(0)
    expect(tb.inside + tb.outside).toBeGreaterThan(0)
    await Bun.sleep(500)
    const audit = (await on(b, 'GET', `/api/v1/audit?resource_type=release_plan&resource_key=${id}`)).body.entries.reverse()
    expect(audit.map((e: any) => e.action)).toEqual(['create', 'start', 'advance', 'advance', 'advance', 'advance', 'complete'])
    expect(audit.filter((e: any) => e.action === 'advance').map((e: any) => e.after.current_step)).toEqual([2, 3, 4, 5])
    const flagChanges = (await on(a, 'GET', '/api/v1/audit?resource_type=flag&resource_key=climb&action=update')).body.entries
    expect(flagChanges.filter((e: any) => e.actor === `release-plan:${id}`)).toHaveLength(4)
    expect((await on(b, 'GET', '/api/v1/flags/climb/definition')).body.flag.environments.production.targeting.rollout.percentage).toBe(80)
  }, 120_000)

  test("a plan started on A is measured in B's traffic at once, not after B's reconcile", async () => {
    const { a, b, admin } = c
    const on = (srv: typeof a, method: string, path: string, body?: unknown) => api(srv, method, path, { token: admin, body })
    expect((await on(a, 'POST', '/api/v1/flags', { key: 'measured', enabled: true, value: true })).status).toBe(201)
    const metric = { key: 'faults', name: 'Faults', kind: 'proportion', event: 'error', higher_is_better: false }
    expect((await on(a, 'POST', '/api/v1/metrics', metric)).status).toBe(201)
    const created = await on(a, 'POST', '/api/v1/flags/measured/release-plans', {
      environment: 'production',
      steps: [
        { percentage: 50, hold_minutes: 60 },
        { percentage: 100, hold_minutes: 60 },
      ],
      guardrails: [{ metric: 'faults' }],
    })
    expect(created.status, created.text).toBe(201)
    const id = created.body.release_plan.id
    expect((await on(a, 'POST', `/api/v1/flags/measured/release-plans/${id}/start`)).status).toBe(200)
    // only B serves; the reconcile is ten minutes away, so B knows the plan from the fan-out or not at all
    const traffic = { next: 0, inside: 0, outside: 0 }
    const units = await until(
      "B's units measured",
      async () => {
        await drive(b, admin, 'measured', traffic, 20, () => 0, 'm')
        const plan = (await on(a, 'GET', `/api/v1/flags/measured/release-plans/${id}`)).body.release_plan
        return plan.units.treatment > 0 && plan.units.control > 0 ? plan.units : undefined
      },
      30_000,
      200,
    )
    expect(units.treatment + units.control).toBeLessThanOrEqual(traffic.next)
  }, 60_000)
})
