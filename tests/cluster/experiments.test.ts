// Experiments on two instances sharing PostgreSQL: an experiment started on one is known to the other at
// once (its change notice reloads the other's registry), which then records the exposures its own
// evaluations serve; a flag change made on either opens one phase, not one per instance.
import { describe, expect, test } from 'bun:test'
import { api } from '../helpers/server'
import { clusterFixture, fanoutEnv } from '../helpers/cluster'
import { requireServices } from '../helpers/requirements'
import { until } from '../helpers/until'

const ready = await requireServices({ postgres: true })

describe.skipIf(!ready)('experiments on two instances', () => {
  const c = clusterFixture({ ...fanoutEnv('postgres only'), EXPOSURE_FLUSH_MS: '200' })
  const split = (a: number) => ({
    attribute: 'user_id',
    distribution: [
      { variant: 'a', weight: a },
      { variant: 'b', weight: 100 - a },
    ],
  })

  test('started on A, exposures recorded by B; a change on B opens exactly one phase', async () => {
    const { a, b, admin } = c
    const on = (srv: typeof a, method: string, path: string, body?: unknown) => api(srv, method, path, { token: admin, body })
    expect(
      (
        await on(a, 'POST', '/api/v1/flags', {
          key: 'f',
          enabled: true,
          variants: { a: 1, b: 2 },
          default_variant: 'a',
          targeting: { rollout: split(50) },
        })
      ).status,
    ).toBe(201)
    await on(a, 'POST', '/api/v1/metrics', { key: 'm', name: 'M', kind: 'mean', event: 'e' })
    await on(a, 'POST', '/api/v1/experiments', { key: 'x', name: 'X', flag: 'f', environment: 'production', goal_metrics: ['m'] })
    expect((await on(a, 'POST', '/api/v1/experiments/x/start')).status).toBe(200)
    // B learns of it from the fan-out (reconcile is ten minutes away): its evaluations become exposures
    const units = await until(
      'B records exposures',
      async () => {
        await on(
          b,
          'GET',
          `/api/v1/flags/f?context=${encodeURIComponent(JSON.stringify({ user_id: 'b-user', environment: 'production' }))}`,
        )
        const r = (await on(a, 'GET', '/api/v1/experiments/x/results?refresh=true')).body
        return r.units.a + r.units.b === 1 ? r.units : undefined
      },
      15_000,
      200,
    )
    expect(units.a + units.b).toBe(1)
    expect((await on(b, 'PUT', '/api/v1/flags/f', { targeting: { rollout: split(30) } })).status).toBe(200)
    await until('phase 2', async () => (await on(a, 'GET', '/api/v1/experiments/x')).body.experiment.phase === 2, 10_000, 100)
    await Bun.sleep(1000)
    const x = (await on(b, 'GET', '/api/v1/experiments/x')).body.experiment
    expect(x.phase).toBe(2)
    expect((await on(a, 'GET', '/api/v1/audit?resource_type=experiment&action=open_phase')).body.entries).toHaveLength(1)
  }, 60_000)
})
