// Unleash variants, dependencies and strategy mixes that the real project does not hold: a project written
// here in Unleash's export format, converted, and compared with unleash-client 6.12.1 on the same project
// (in the format its server hands SDKs: clientFeaturesOf, checked below against the real server's).
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import UnleashClient from 'unleash-client/lib/client'
import { defaultStrategies } from 'unleash-client/lib/strategy'
import { convert } from '../../server/documents/convert'
import { clientFeaturesOf, compileDocument, evaluate, expectValidDocument, seeded, shareTolerance } from './convert-helpers'

const FIXTURES = join(import.meta.dir, '../fixtures/migration/unleash')

test('clientFeaturesOf gives what the Unleash server gave its SDKs, for the real project', () => {
  for (const env of ['development', 'production']) {
    const ex = JSON.parse(readFileSync(join(FIXTURES, `export.${env}.json`), 'utf8'))
    const real = JSON.parse(readFileSync(join(FIXTURES, `client-features.${env}.json`), 'utf8')).features
    const pick = (f: {
      name: string
      enabled: boolean
      strategies: { name: string; constraints: unknown; parameters: unknown; variants: unknown; segments?: unknown }[]
      dependencies?: unknown
    }) => ({
      name: f.name,
      enabled: f.enabled,
      strategies: f.strategies.map((s) => ({ ...s, segments: s.segments ?? [] })),
      dependencies: f.dependencies ?? [],
    })
    const ours = clientFeaturesOf(ex)
      .map(pick)
      .sort((a, b) => a.name.localeCompare(b.name))
    expect(ours).toEqual(real.map(pick).sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name)))
  }
})

const v = (name: string, weight: number, payload?: { type: string; value: string }, stickiness = 'userId') => ({
  name,
  weight,
  weightType: 'variable',
  stickiness,
  ...(payload ? { payload } : {}),
})
const fr = (rollout: number, extra: object = {}) => ({
  name: 'flexibleRollout',
  parameters: { rollout: String(rollout), stickiness: 'userId', groupId: 'g' },
  constraints: [],
  variants: [],
  segments: [],
  disabled: false,
  ...extra,
})
const IN = (contextName: string, values: string[]) => ({ contextName, operator: 'IN', values, inverted: false, caseInsensitive: false })
const STRATEGIES: Record<string, object[]> = {
  // The first matching strategy decides the variant; one without variants answers "on, no variant".
  'first-match': [
    fr(100, { constraints: [IN('country', ['NO'])], variants: [v('blue', 1000, { type: 'string', value: 'b' })] }),
    fr(100, { constraints: [IN('plan', ['pro'])] }),
  ],
  'number-split': [
    fr(100, { variants: [v('low', 250, { type: 'number', value: '1' }), v('high', 750, { type: 'number', value: '2.5' })] }),
  ],
  'needs-blue': [fr(100)],
  plain: [fr(100, { constraints: [IN('plan', ['pro'])] })],
  'needs-plain-off': [fr(100)],
  'disabled-strategy': [fr(100, { disabled: true }), fr(100, { constraints: [IN('plan', ['free'])] })],
  'no-strategies': [],
  'zero-rollout': [fr(0)],
  'two-partials': [fr(30, { constraints: [IN('plan', ['pro'])] }), fr(50)],
}
const DEPENDENCIES = [
  { feature: 'needs-blue', dependencies: [{ feature: 'first-match', enabled: true, variants: ['blue'] }] },
  { feature: 'needs-plain-off', dependencies: [{ feature: 'plain', enabled: false }] },
]
const NAMES = Object.keys(STRATEGIES)
const EXPORT = {
  features: NAMES.map((name) => ({ name })),
  featureStrategies: NAMES.flatMap((name) => STRATEGIES[name]!.map((s) => ({ ...s, featureName: name }))),
  featureEnvironments: NAMES.map((name) => ({ featureName: name, environment: 'production', enabled: true, variants: [] })),
  featureTags: [],
  segments: [],
  contextFields: [],
  links: [],
  dependencies: DEPENDENCIES,
}
const { document, report } = convert('unleash', [{ name: 'export.production.json', text: JSON.stringify(EXPORT) }])
const flags = compileDocument(document)
const features = new Map(clientFeaturesOf(EXPORT as never).map((f) => [f.name, f]))
const unleash = new UnleashClient({ getToggle: (n: string) => features.get(n), getSegment: () => undefined } as never, defaultStrategies)

type U = { userId?: string; properties: Record<string, string> }
function theirs(name: string, c: U): string {
  if (!unleash.isEnabled(name, { ...c, environment: 'production' }, () => false)) return 'off'
  const variant = unleash.getVariant(name, { ...c, environment: 'production' })
  return variant.name === 'disabled' ? 'on' : `${variant.name}=${variant.payload?.value}`
}
function ours(name: string, c: U): string {
  const r = evaluate(flags, name, { ...(c.userId ? { user_id: c.userId } : {}), environment: 'production', custom: c.properties })
  if (r.variant === undefined) return r.value === true ? 'on' : 'off'
  if (r.variant === null || r.variant === 'off') return 'off'
  return r.variant === 'on' ? 'on' : `${r.variant}=${r.value}`
}

test('the converted project is accepted, and says what is not exact', () => {
  expectValidDocument(document)
  expect(report).toEqual(
    expect.arrayContaining([
      'flag disabled-strategy: production: strategy flexibleRollout is disabled in Unleash and was left out',
      'flag needs-plain-off: its dependency on plain requires it off: ' +
        'here a plain that is disabled in the environment fails the requirement, while Unleash counts it as off',
      expect.stringMatching(/^flag two-partials: production: strategy flexibleRollout not converted .*one rollout/),
    ]),
  )
  expect(report.some((l) => /flag (first-match|needs-blue|plain|no-strategies|zero-rollout):/.test(l))).toBe(false)
})

test('variants, dependencies and strategy mixes answer as unleash-client, for 3,000 seeded contexts', () => {
  const r = seeded(11)
  for (let i = 0; i < 3000; i++) {
    const c: U = { userId: r.pick(['u-1', 'u-2', 'u-3', `u-${i}`, undefined]), properties: {} }
    const country = r.pick(['NO', 'SE', undefined])
    const plan = r.pick(['pro', 'free', undefined])
    if (country) c.properties.country = country
    if (plan) c.properties.plan = plan
    if (c.userId === undefined) delete c.userId
    for (const name of NAMES) {
      if (name === 'number-split' || name === 'two-partials') continue // decided by a hash: shares below
      if (ours(name, c) !== theirs(name, c)) expect({ name, c, ours: ours(name, c) }).toEqual({ name, c, ours: theirs(name, c) })
    }
  }
})

test('a weighted split with number payloads keeps its shares', () => {
  const n = 5000
  const count = (f: (c: U) => string) => {
    const m = new Map<string, number>()
    for (let i = 0; i < n; i++)
      m.set(f({ userId: `user-${i}`, properties: {} }), (m.get(f({ userId: `user-${i}`, properties: {} })) ?? 0) + 1)
    return m
  }
  const a = count((c) => ours('number-split', c))
  const b = count((c) => theirs('number-split', c))
  expect([...a.keys()].sort()).toEqual(['high=2.5', 'low=1'])
  expect([...b.keys()].sort()).toEqual(['high=2.5', 'low=1'])
  for (const [k, m] of b) expect(Math.abs(a.get(k)! - m) / n).toBeLessThan(shareTolerance(m / n, n))
})

test("each environment's partial rollout is its own rules' rollout, beside other strategies, answering as Unleash", () => {
  // production's 20 % is production's rollout; development holds "pro users" and "40 % of NO/SE" in its own rules.
  const ex = (env: string, strategies: object[]) => ({
    features: [{ name: 'mixed' }],
    featureStrategies: strategies.map((s) => ({ ...s, featureName: 'mixed' })),
    featureEnvironments: [{ featureName: 'mixed', environment: env, enabled: true, variants: [] }],
    featureTags: [],
    segments: [],
    contextFields: [],
    links: [],
    dependencies: [],
  })
  const dev = ex('development', [fr(100, { constraints: [IN('plan', ['pro'])] }), fr(40, { constraints: [IN('country', ['NO', 'SE'])] })])
  const prod = ex('production', [fr(20)])
  const out = convert('unleash', [
    { name: 'export.development.json', text: JSON.stringify(dev) },
    { name: 'export.production.json', text: JSON.stringify(prod) },
  ])
  expectValidDocument(out.document)
  expect(out.document.flags!.map((f) => f.key)).toEqual(['mixed'])
  const environments = out.document.flags![0]!.environments!
  expect(environments.production!.targeting!.rollout).toEqual({ percentage: 20, attribute: 'user_id' })
  expect(environments.development!.targeting!.rollout).toEqual({ percentage: 40, attribute: 'user_id' })
  expect(out.document.flags![0]!.prerequisites).toBeUndefined()
  const compiled = compileDocument(out.document)
  const clients = Object.fromEntries(
    [
      ['development', dev],
      ['production', prod],
    ].map(([env, e]) => {
      const fs = new Map(clientFeaturesOf(e as never).map((f) => [f.name, f]))
      return [env, new UnleashClient({ getToggle: (n: string) => fs.get(n), getSegment: () => undefined } as never, defaultStrategies)]
    }),
  )
  const r = seeded(3)
  const counts: Record<string, [number, number, number]> = {}
  const n = 6000
  for (let i = 0; i < n; i++) {
    const properties: Record<string, string> = {}
    const plan = r.pick(['pro', 'free', undefined])
    const country = r.pick(['NO', 'DE', undefined])
    if (plan) properties.plan = plan
    if (country) properties.country = country
    for (const env of ['development', 'production'] as const) {
      const theirs = (clients[env] as UnleashClient).isEnabled('mixed', { userId: `user-${i}`, properties, environment: env }, () => false)
      const ours = evaluate(compiled, 'mixed', { user_id: `user-${i}`, environment: env, custom: properties }).value === true
      // Exact wherever no rollout decides: pro users in development are on, and so is nobody outside the
      // rollout's constraints (development, not NO/SE, not pro).
      if (env === 'development' && (plan === 'pro' || country !== 'NO'))
        expect({ env, properties, ours }).toEqual({ env, properties, ours: theirs })
      const group = `${env}/${env === 'development' ? (plan === 'pro' ? 'pro' : country === 'NO' ? 'rollout' : 'none') : 'all'}`
      const c = (counts[group] ??= [0, 0, 0])
      c[0] += ours ? 1 : 0
      c[1] += theirs ? 1 : 0
      c[2]++
    }
  }
  // In the rollouts, the shares: 40 % of NO shoppers (not pro) in development, 20 % of all in production.
  for (const group of ['development/rollout', 'production/all']) {
    const [ours, theirs, size] = counts[group]!
    expect(theirs / size).toBeGreaterThan(group === 'production/all' ? 0.15 : 0.33)
    expect(Math.abs(ours - theirs) / size).toBeLessThan(shareTolerance(theirs / size, size))
  }
  const [pro, proTheirs, proSize] = counts['development/pro']!
  expect([pro, proTheirs]).toEqual([proSize, proSize])
})
