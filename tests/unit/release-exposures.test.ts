// The in-memory exposure recorder for flags under a release plan (server/experiments/exposures.ts): a unit
// the rollout decided is `rollout` (inside) or `off` (outside) in the plan's phase, in the plan's
// environment only; units decided otherwise (a switch turned off, a rule, individual targeting) are not.
import { expect, test } from 'bun:test'
import { compileFlag } from '../../server/engine/compile'
import { releasePlanRegistry } from '../../server/experiments/release-registry'
import { experimentRegistry } from '../../server/experiments/registry'
import { recordExposure, drainExposures } from '../../server/experiments/exposures'
import { inRollout } from '../../server/engine/rollout'

test('inside and outside the rollout, in the plan environment and phase only', () => {
  const flag = compileFlag(
    {
      key: 'f',
      enabled: true,
      value: true,
      environments: {
        production: {
          enabled: true,
          targeting: {
            overrides: { vip: true },
            rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'staff' }], value: true }],
            rollout: { attribute: 'user_id', percentage: 30 },
          },
        },
        staging: { enabled: false },
      },
    } as any,
    new Map(),
  )
  experimentRegistry.load([])
  releasePlanRegistry.load([
    {
      id: 'rp',
      projectId: 'p',
      flagKey: 'f',
      environment: 'production',
      state: 'running',
      currentStep: 2,
      phase: 3,
      body: { attribute: 'user_id' },
    } as any,
  ])
  const t = 1795863775337
  const users = Array.from({ length: 40 }, (_, i) => `u${i}`)
  for (const u of users)
    recordExposure('p', flag, flag.evaluate({ user_id: u, environment: 'production' }), { user_id: u, environment: 'production' }, t)
  // decided before the rollout, or elsewhere: not exposures
  for (const context of [
    { user_id: 'vip', environment: 'production' },
    { user_id: 's', plan: 'staff', environment: 'production' },
    { user_id: 'x', environment: 'staging' },
    { user_id: 'y', environment: 'development' },
  ]) {
    recordExposure('p', flag, flag.evaluate(context), context, t)
  }
  const { rows } = drainExposures()
  expect(rows).toHaveLength(40)
  for (const r of rows) {
    expect(r).toMatchObject({ experimentId: 'rp', phase: 3, firstAt: t, multiple: false })
    expect(r.variant).toBe(inRollout('f', r.unit, 30) ? 'rollout' : 'off')
  }
  expect(new Set(rows.map((r) => r.variant))).toEqual(new Set(['rollout', 'off']))
  // a draft or finished plan records nothing
  releasePlanRegistry.load([
    {
      id: 'rp',
      projectId: 'p',
      flagKey: 'f',
      environment: 'production',
      state: 'completed',
      currentStep: 2,
      phase: 3,
      body: { attribute: 'user_id' },
    } as any,
  ])
  recordExposure('p', flag, flag.evaluate({ user_id: 'u1', environment: 'production' }), { user_id: 'u1', environment: 'production' }, t)
  expect(drainExposures().rows).toEqual([])
})
