// The in-memory exposure recorder (server/experiments/exposures.ts): per running experiment and unit the
// first time and its variant, a second variant marks the unit, an override is not an exposure; what is
// drained is gone.
import { expect, test } from 'bun:test'
import { compileFlag } from '../../server/engine/compile'
import { experimentRegistry } from '../../server/experiments/registry'
import { recordExposure, drainExposures } from '../../server/experiments/exposures'
test('first time and variant per unit; a second variant marks it; overrides are not exposures', () => {
  const flag = compileFlag(
    {
      key: 'f',
      enabled: true,
      value: 'A',
      variants: { a: 'A', b: 'B' },
      default_variant: 'a',
      targeting: {
        overrides: { v: 'b' },
        rollout: {
          attribute: 'user_id',
          distribution: [
            { variant: 'a', weight: 50 },
            { variant: 'b', weight: 50 },
          ],
        },
      },
    } as any,
    new Map(),
  )
  experimentRegistry.load([
    {
      id: 'x',
      projectId: 'p',
      key: 'x',
      flagKey: 'f',
      environment: 'production',
      state: 'running',
      phase: 3,
      phases: [],
      body: { unit: 'user_id' },
    } as any,
  ])
  const t = 1795863775337
  const r1 = flag.evaluate({ user_id: 'u1', environment: 'production' })
  recordExposure('p', flag, r1, { user_id: 'u1', environment: 'production' }, t)
  recordExposure('p', flag, r1, { user_id: 'u1', environment: 'production' }, t + 5)
  const other = { ...r1, variant: r1.variant === 'a' ? 'b' : 'a' }
  ;(flag as any).splitResults.add(other)
  recordExposure('p', flag, other, { user_id: 'u1', environment: 'production' }, t + 9)
  recordExposure(
    'p',
    flag,
    flag.evaluate({ user_id: 'u2', environment: 'production' }),
    { user_id: 'u2', environment: 'production' },
    t + 1,
  )
  recordExposure('p', flag, flag.evaluate({ user_id: 'v', environment: 'production' }), { user_id: 'v', environment: 'production' }, t + 1)
  const { rows } = drainExposures()
  expect(rows).toEqual([
    { experimentId: 'x', phase: 3, unit: 'u1', firstAt: t, variant: r1.variant!, multiple: true },
    { experimentId: 'x', phase: 3, unit: 'u2', firstAt: t + 1, variant: flag.evaluate({ user_id: 'u2' }).variant!, multiple: false },
  ])
  expect(drainExposures().rows).toEqual([])
})
