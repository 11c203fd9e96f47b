// The in-memory exposure recorder for flags under a release plan (server/experiments/exposures.ts): a unit
// the rollout decided is `rollout` (inside) or `off` (outside) in the plan's phase, in the plan's
// environment only; units decided otherwise (a switch turned off, a rule, individual targeting) are not, nor
// units served at another percentage than the plan's current step (the flag and the plan registry reload apart).
import { expect, test } from 'bun:test'
import { compileFlag } from '../../server/engine/compile'
import { releasePlanRegistry } from '../../server/experiments/release-registry'
import { experimentRegistry } from '../../server/experiments/registry'
import { recordExposure, drainExposures } from '../../server/experiments/exposures'
import { inRollout } from '../../server/engine/rollout'
import type { FlagDefinition } from '../../server/engine/types'
import { variantStepFlag } from '../helpers/release-flags'

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
      body: { attribute: 'user_id', steps: [{ percentage: 10 }, { percentage: 30 }] },
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
      body: { attribute: 'user_id', steps: [{ percentage: 10 }, { percentage: 30 }] },
    } as any,
  ])
  recordExposure('p', flag, flag.evaluate({ user_id: 'u1', environment: 'production' }), { user_id: 'u1', environment: 'production' }, t)
  expect(drainExposures().rows).toEqual([])
})

const plan = (currentStep: number, extra: object = {}) =>
  ({
    id: 'rp',
    projectId: 'p',
    flagKey: 'f',
    environment: 'production',
    state: 'running',
    currentStep,
    phase: currentStep,
    body: { attribute: 'user_id', steps: [{ percentage: 10 }, { percentage: 50 }], ...extra },
  }) as any

const users = Array.from({ length: 200 }, (_, i) => `u${i}`)
/** Every user evaluated and recorded in production, then what was recorded. */
function served(flag: ReturnType<typeof compileFlag>) {
  for (const u of users) {
    const context = { user_id: u, environment: 'production' }
    recordExposure('p', flag, flag.evaluate(context), context, 1)
  }
  return drainExposures().rows
}

test("a unit served at another percentage than the plan's current step is not an exposure (the reloads race)", () => {
  // production's own rules, as a plan writes them; the flag's own targeting (elsewhere) is another rollout
  const at = (percentage: number) =>
    compileFlag(
      {
        key: 'f',
        enabled: true,
        value: true,
        targeting: { rollout: { attribute: 'user_id', percentage: 50 } },
        environments: { production: { enabled: true, targeting: { rollout: { attribute: 'user_id', percentage } } } },
      } as FlagDefinition,
      new Map(),
    )
  experimentRegistry.load([])
  drainExposures()
  // the registry learned step 2 (50 %) first; the flag still serves step 1's 10 %
  releasePlanRegistry.load([plan(2)])
  expect(at(10).forEnvironment('production').rolloutShare()).toBe(10)
  expect(served(at(10))).toEqual([])
  // the flag learned step 2 first; the registry still measures step 1
  releasePlanRegistry.load([plan(1)])
  expect(served(at(50))).toEqual([])
  // both agree: every unit counts, in the step's phase, inside at the step's percentage
  for (const [step, percentage] of [
    [1, 10],
    [2, 50],
  ] as const) {
    releasePlanRegistry.load([plan(step)])
    const rows = served(at(percentage))
    expect(rows).toHaveLength(users.length)
    for (const r of rows) {
      expect(r.phase).toBe(step)
      expect(r.variant).toBe(inRollout('f', r.unit, percentage) ? 'rollout' : 'off')
    }
  }
})

test('with variants: the new variant must have the weight of the current step', () => {
  const at = (weight: number) => compileFlag(variantStepFlag('f', weight), new Map())
  experimentRegistry.load([])
  drainExposures()
  const variantPlan = (step: number) => plan(step, { variant: 'b', control_variant: 'a' })
  releasePlanRegistry.load([variantPlan(2)])
  expect(at(10).forEnvironment('production').rolloutShare('b')).toBe(10)
  expect(served(at(10))).toEqual([])
  releasePlanRegistry.load([variantPlan(1)])
  expect(served(at(50))).toEqual([])
  const rows = served(at(10))
  expect(rows).toHaveLength(users.length)
  expect(new Set(rows.map((r) => r.variant))).toEqual(new Set(['rollout', 'off']))
  releasePlanRegistry.load([])
})
