// Every Unleash constraint operator with an equivalent, with `inverted` and `caseInsensitive`, several
// values, segments and strategy types: a project written here in Unleash's export format, converted,
// and evaluated by our engine against unleash-client 6.12.1 on the same project (in the client API
// format Unleash serves SDKs) for many seeded contexts. No rollout decides here, so answers must be equal.
import { expect, test } from 'bun:test'
import UnleashClient from 'unleash-client/lib/client'
import { defaultStrategies } from 'unleash-client/lib/strategy'
import { convert } from '../../server/documents/convert'
import { compileDocument, evaluate, expectValidDocument, seeded } from './convert-helpers'

const NOW = Date.parse('2026-11-26T12:00:00.000Z')
type C = { contextName: string; operator: string; values?: string[]; value?: string; inverted?: boolean; caseInsensitive?: boolean }
const c = (contextName: string, operator: string, v: string | string[], more: Partial<C> = {}): C => ({
  contextName,
  operator,
  ...(Array.isArray(v) ? { values: v } : { value: v }),
  inverted: false,
  caseInsensitive: false,
  ...more,
})

// One feature per case: [name, constraints, strategy (default flexibleRollout 100 %), segment ids]
const CASES: [string, C[], { name: string; parameters: Record<string, string> }?, number[]?][] = [
  ['in', [c('plan', 'IN', ['pro', 'enterprise'])]],
  ['in-inverted', [c('plan', 'IN', ['pro'], { inverted: true })]],
  ['not-in', [c('plan', 'NOT_IN', ['free'])]],
  ['not-in-inverted', [c('plan', 'NOT_IN', ['free'], { inverted: true })]],
  ['starts', [c('email', 'STR_STARTS_WITH', ['admin'])]],
  ['starts-ci-many', [c('email', 'STR_STARTS_WITH', ['admin', 'root.'], { caseInsensitive: true })]],
  ['starts-inverted', [c('email', 'STR_STARTS_WITH', ['admin'], { inverted: true })]],
  ['ends-ci', [c('email', 'STR_ENDS_WITH', ['@shop.example'], { caseInsensitive: true })]],
  ['ends-ci-inverted', [c('email', 'STR_ENDS_WITH', ['@shop.example', '.org'], { caseInsensitive: true, inverted: true })]],
  ['contains', [c('email', 'STR_CONTAINS', ['+test'])]],
  ['contains-inverted', [c('email', 'STR_CONTAINS', ['+test'], { inverted: true })]],
  ['contains-regex-chars', [c('email', 'STR_CONTAINS', ['a.b', '(x)'])]],
  ['num-eq', [c('orderCount', 'NUM_EQ', '5')]],
  ['num-eq-inverted', [c('orderCount', 'NUM_EQ', '5', { inverted: true })]],
  ['num-gt', [c('orderCount', 'NUM_GT', '3')]],
  ['num-gte', [c('orderCount', 'NUM_GTE', '5')]],
  ['num-lt', [c('orderCount', 'NUM_LT', '4.5')]],
  ['num-lte-inverted', [c('orderCount', 'NUM_LTE', '5', { inverted: true })]],
  ['semver-eq', [c('appVersion', 'SEMVER_EQ', '3.2.0')]],
  ['semver-gt', [c('appVersion', 'SEMVER_GT', '3.1.0')]],
  ['semver-gte', [c('appVersion', 'SEMVER_GTE', '3.2.0')]],
  ['semver-lt', [c('appVersion', 'SEMVER_LT', '3.2.0')]],
  ['semver-lte', [c('appVersion', 'SEMVER_LTE', '3.2.0-beta.1')]],
  ['semver-gte-inverted', [c('appVersion', 'SEMVER_GTE', '3.2.0', { inverted: true })]],
  ['regex', [c('email', 'REGEX', '^[a-z]+@mail\\.example$')]],
  ['regex-ci-inverted', [c('email', 'REGEX', '^admin', { caseInsensitive: true, inverted: true })]],
  ['date-after-past', [c('currentTime', 'DATE_AFTER', '2025-01-01T00:00:00.000Z')]],
  ['date-before-past-inverted', [c('currentTime', 'DATE_BEFORE', '2025-01-01T00:00:00.000Z', { inverted: true })]],
  [
    'and',
    [c('plan', 'IN', ['pro']), c('appVersion', 'SEMVER_GTE', '3.1.1'), c('email', 'STR_ENDS_WITH', ['.example'], { inverted: true })],
  ],
  ['session-in', [c('sessionId', 'IN', ['sess-1', 'sess-2'])]],
  ['user-with-id', [c('plan', 'IN', ['pro', 'free'])], { name: 'userWithId', parameters: { userIds: 'u-1, u-2,qa-1' } }],
  ['default-strategy', [c('country', 'IN', ['NO', 'SE'])], { name: 'default', parameters: {} }],
  ['rollout-100-userid', [], { name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'userId', groupId: 'g' } }],
  ['gradual-100', [], { name: 'gradualRolloutUserId', parameters: { percentage: '100', groupId: 'g' } }],
  ['segments', [c('plan', 'IN', ['pro'])], undefined, [1, 2]],
  ['segment-with-negation', [], undefined, [3]],
]
const SEGMENTS = [
  { id: 1, name: 'Staff members', constraints: [c('email', 'STR_ENDS_WITH', ['@shop.example'], { caseInsensitive: true })] },
  { id: 2, name: 'nordics', constraints: [c('country', 'IN', ['NO', 'SE', 'DK'])] },
  {
    id: 3,
    name: 'not testers',
    constraints: [c('email', 'STR_CONTAINS', ['+test'], { inverted: true }), c('appVersion', 'SEMVER_GTE', '3.1.0')],
  },
]

const strategies = CASES.map(([name, constraints, strategy, segments]) => ({
  name: strategy?.name ?? 'flexibleRollout',
  featureName: name,
  parameters: strategy?.parameters ?? { rollout: '100', stickiness: 'default', groupId: name },
  constraints,
  variants: [],
  segments: segments ?? [],
  disabled: false,
  title: null,
}))
const exportJson = {
  features: CASES.map(([name]) => ({ name, type: 'release', project: 'default', stale: false, impressionData: false, archived: false })),
  featureStrategies: strategies,
  featureEnvironments: CASES.map(([name]) => ({ featureName: name, environment: 'development', enabled: true, variants: [], name })),
  contextFields: [],
  featureTags: [],
  segments: SEGMENTS.map(({ id, name }) => ({ id, name })),
  tagTypes: [],
  dependencies: [],
  links: [],
}
const clientFeatures = CASES.map(([name]) => ({
  name,
  enabled: true,
  variants: [],
  dependencies: [],
  strategies: strategies
    .filter((s) => s.featureName === name)
    .map(({ name: n, parameters, constraints, variants, segments }) => ({ name: n, parameters, constraints, variants, segments })),
}))

const POOLS: Record<string, (string | undefined)[]> = {
  userId: ['u-1', 'u-2', 'qa-1', 'u-3', undefined],
  sessionId: ['sess-1', 'sess-2', 'sess-3', undefined],
  plan: ['pro', 'enterprise', 'free', 'PRO', undefined],
  country: ['NO', 'SE', 'DK', 'no', 'DE', undefined],
  email: [
    'admin@shop.example',
    'ADMIN@Shop.Example',
    'root.x@mail.example',
    'Root.y@x.org',
    'qa+test@shop.example',
    'kari@mail.example',
    'a.b@x.org',
    'x(x)y',
    'admin',
    'xadmin@y',
    undefined,
  ],
  orderCount: ['3', '4', '4.5', '5', '5.0', '6', '-1', '1e1', 'many', undefined],
  appVersion: ['3.1.0', '3.1.1', '3.2.0', '3.2.0-beta.1', '3.2.0-beta.2', '3.2.1', '10.0.0', '2.0.0', 'latest', undefined],
}

test('every operator answers as unleash-client, for 2,000 seeded contexts', () => {
  const { document, report } = convert(
    'unleash',
    [
      { name: 'export.development.json', text: JSON.stringify(exportJson) },
      { name: 'segments.json', text: JSON.stringify({ segments: SEGMENTS }) },
    ],
    { now: NOW },
  )
  expectValidDocument(document)
  // Exact: only the feature types (not converted) and the segment that needs NOT are reported.
  expect(report.filter((l) => !l.startsWith('feature types'))).toEqual([
    'segment Staff members: renamed Staff-members (segment keys are letters, digits, . _ -)',
    'segment not testers: renamed not-testers (segment keys are letters, digits, . _ -)',
    'segment not testers: not kept as a segment (its constraints need OR or NOT, which segments cannot hold); ' +
      'its conditions are written into the rules that use it',
  ])
  const flags = compileDocument(document)
  const features = new Map(clientFeatures.map((f) => [f.name, f]))
  const segments = new Map(SEGMENTS.map((s) => [s.id, s]))
  const unleash = new UnleashClient(
    { getToggle: (n: string) => features.get(n), getSegment: (id: number) => segments.get(id) } as never,
    defaultStrategies,
  )
  const r = seeded(5)
  const hits = new Map<string, number>()
  for (let i = 0; i < 2000; i++) {
    const u: { userId?: string; sessionId?: string; properties: Record<string, string> } = { properties: {} }
    for (const [field, pool] of Object.entries(POOLS)) {
      const v = r.pick(pool)
      if (v === undefined) continue
      if (field === 'userId' || field === 'sessionId') u[field] = v
      else u.properties[field] = v
    }
    const ours = {
      ...(u.userId ? { user_id: u.userId } : {}),
      environment: 'development',
      custom: { ...(u.sessionId ? { session_id: u.sessionId } : {}), ...u.properties },
    }
    for (const [name] of CASES) {
      const expected = unleash.isEnabled(name, { ...u, environment: 'development', currentTime: new Date(NOW) }, () => false)
      const got = evaluate(flags, name, ours, NOW).value === true
      if (got !== expected) expect({ name, u, got }).toEqual({ name, u, got: expected })
      if (expected) hits.set(name, (hits.get(name) ?? 0) + 1)
    }
  }
  // Each case is on for some contexts and off for others (else it would test nothing).
  for (const [name] of CASES) {
    if (name.startsWith('date-')) continue // constant by design
    expect(hits.get(name) ?? 0).toBeGreaterThan(0)
    expect(hits.get(name) ?? 0).toBeLessThan(2000)
  }
})

test('operators and strategies without an equivalent are reported, never dropped silently', () => {
  const features = ['cidr', 'hostname', 'random']
  const ex = {
    ...exportJson,
    features: features.map((name) => ({ name })),
    featureEnvironments: features.map((name) => ({ featureName: name, environment: 'production', enabled: true })),
    featureStrategies: [
      {
        name: 'flexibleRollout',
        featureName: 'cidr',
        parameters: { rollout: '100' },
        constraints: [c('remoteAddress', 'IN_CIDR', ['10.0.0.0/8'])],
      },
      { name: 'applicationHostname', featureName: 'hostname', parameters: { hostNames: 'a' }, constraints: [] },
      {
        name: 'flexibleRollout',
        featureName: 'random',
        parameters: { rollout: '50', stickiness: 'random', groupId: 'r' },
        constraints: [],
      },
    ],
  }
  const { document, report } = convert('unleash', [{ name: 'export.production.json', text: JSON.stringify(ex) }], { now: NOW })
  expectValidDocument(document)
  expect(report).toEqual(
    expect.arrayContaining([
      expect.stringContaining(
        'flag cidr: production: strategy flexibleRollout not converted (it reaches nobody here): ' +
          'constraint on remoteAddress: operator IN_CIDR has no equivalent',
      ),
      expect.stringContaining(
        'flag hostname: production: strategy applicationHostname not converted (it reaches nobody here): ' +
          'strategy applicationHostname has no equivalent',
      ),
      expect.stringContaining('flag random: production: strategy flexibleRollout not converted (it reaches nobody here): a random rollout'),
    ]),
  )
  // What is not converted reaches nobody (never more than Unleash would).
  const flags = compileDocument(document)
  for (const key of features)
    expect(evaluate(flags, key, { user_id: 'u', environment: 'production', custom: { remote_address: '10.1.2.3' } }).value).toBe(false)
})
