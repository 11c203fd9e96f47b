// A relay's exposures as events (server/relay/exposure-forwarder.ts): the registry loaded from the
// definitions' `experiments` list; each unit once, with its first time; a unit also served another variant
// goes as two variants; the unit's attribute (custom.<name> too) reads back the unit from the context built.
import { expect, test } from 'bun:test'
import { compileFlag } from '../../server/engine/compile'
import { compileAccessor } from '../../server/engine/context'
import { experimentRegistry } from '../../server/experiments/registry'
import { recordExposure } from '../../server/experiments/exposures'
import { contextNaming, drainExposureEvents, variantServed } from '../../server/relay/exposure-forwarder'
import { Snapshots } from '../../server/cache/snapshots'

test('the context built names the unit as the accessor reads it', () => {
  for (const attribute of ['user_id', 'account.id', 'custom.team', 'custom', 'custom.a.b']) {
    const context = contextNaming(attribute, 'u7', 'production')
    expect(compileAccessor(attribute)(context as any)).toBe('u7')
    expect(context.environment).toBe('production')
  }
  expect(contextNaming('custom.team', 'u7', 'production')).toEqual({ custom: { team: 'u7' }, environment: 'production' })
})

test('listed experiments record exposures; drained as events once; two variants go as both', () => {
  const flag = compileFlag(
    {
      key: 'f',
      enabled: true,
      value: 'A',
      variants: { a: 'A', b: 'B' },
      default_variant: 'a',
      targeting: {
        rollout: {
          attribute: 'custom.team',
          distribution: [
            { variant: 'a', weight: 50 },
            { variant: 'b', weight: 50 },
          ],
        },
      },
    } as any,
    new Map(),
  )
  experimentRegistry.loadListed('p', [{ key: 'x', flag: 'f', environment: 'production', unit: 'custom.team' }])
  expect(experimentRegistry.runningIn('p', 'f', 'production')?.key).toBe('x')
  expect(experimentRegistry.runningIn('p', 'f', 'staging')).toBeUndefined()
  const t = 1795863775337
  const ctx = (team: string, environment = 'production') => ({ environment, custom: { team } })
  const r1 = flag.evaluate(ctx('t1'))
  recordExposure('p', flag, r1, ctx('t1'), t)
  recordExposure('p', flag, r1, ctx('t1'), t + 5)
  recordExposure('p', flag, flag.evaluate(ctx('t2', 'staging')), ctx('t2', 'staging'), t)
  const other = { ...r1, variant: r1.variant === 'a' ? 'b' : 'a' }
  ;(flag as any).splitResults.add(other)
  recordExposure('p', flag, other, ctx('t1'), t + 9)
  const r3 = flag.evaluate(ctx('t3'))
  recordExposure('p', flag, r3, ctx('t3'), t + 1)
  const at = (ms: number) => new Date(ms).toISOString()
  expect(drainExposureEvents().events).toEqual([
    { type: 'exposure', flag: 'f', variant: r1.variant!, context: ctx('t1'), timestamp: at(t) },
    { type: 'exposure', flag: 'f', variant: other.variant!, context: ctx('t1'), timestamp: at(t) },
    { type: 'exposure', flag: 'f', variant: r3.variant!, context: ctx('t3'), timestamp: at(t + 1) },
  ])
  expect(drainExposureEvents().events).toEqual([])
  // Reloaded with the same list (another flag changed): a unit evaluated on both sides is one exposure.
  recordExposure('p', flag, r3, ctx('t3'), t + 20)
  experimentRegistry.loadListed('p', [{ key: 'x', flag: 'f', environment: 'production', unit: 'custom.team' }])
  recordExposure('p', flag, r3, ctx('t3'), t + 30)
  expect(drainExposureEvents().events).toEqual([
    { type: 'exposure', flag: 'f', variant: r3.variant!, context: ctx('t3'), timestamp: at(t + 20) },
  ])
  // Stopped upstream: no longer listed, nothing recorded.
  experimentRegistry.loadListed('p', [])
  recordExposure('p', flag, r3, ctx('t4'), t)
  expect(drainExposureEvents().events).toEqual([])
})

test('a variant the flag no longer has is not forwarded (the origin would refuse its whole batch)', () => {
  const snapshots = new Snapshots(undefined)
  const row = {
    projectId: 'p',
    key: 'f',
    body: { enabled: true, variants: { a: 1, b: 2 }, default_variant: 'a' },
    version: 1,
    createdAt: '',
    updatedAt: '',
  }
  snapshots.serveProject({ id: 'p', slug: 'p', name: 'P', environments: ['production'], createdAt: '', updatedAt: '' } as any, {
    flags: [row as any],
    configs: [],
    segments: [],
  })
  expect(variantServed(snapshots, 'p', 'f', 'b')).toBe(true)
  expect(variantServed(snapshots, 'p', 'f', 'c')).toBe(false)
  expect(variantServed(snapshots, 'p', 'g', 'a')).toBe(false)
  expect(variantServed(snapshots, undefined, 'f', 'a')).toBe(false)
})
