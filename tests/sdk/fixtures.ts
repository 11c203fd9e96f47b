// Flags, segments and contexts for the SDK-vs-server equivalence test: a hand-written flag per operator and
// per evaluation step (segments, windows, individual and environment overrides, rollouts), random valid
// flags, and random contexts drawn from pools that make the conditions hold often enough to matter.
import fc from 'fast-check'
import { OPERATORS, validateFlag, type Condition, type FlagDefinition, type SegmentDefinition } from '../../server/engine'

export const ENVIRONMENTS = ['development', 'staging', 'production']

export const SEGMENTS: SegmentDefinition[] = [
  {
    key: 'pros',
    conditions: [
      { property: 'plan', operator: 'equals', value: 'pro' },
      { property: 'age', operator: 'greater_than', value: 18 },
    ],
  },
  { key: 'everyone', conditions: [] },
  { key: 'mailers', conditions: [{ property: 'email', operator: 'matches', value: '@(example|test)\\.com$' }] },
]

const PAST = '2001-01-01T00:00:00Z'
const FUTURE = '2199-01-01T00:00:00Z'

/** One rule per operator, each on a property the contexts vary. */
const OPERATOR_CONDITIONS: Condition[] = [
  { property: 'plan', operator: 'equals', value: 'pro' },
  { property: 'country', operator: 'not_equals', value: 'de' },
  { property: 'country', operator: 'in', value: ['us', 'fr', 7, true] },
  { property: 'custom.country', operator: 'not_in', value: ['jp'] },
  { property: 'email', operator: 'contains', value: 'example' },
  { property: 'tags', operator: 'not_contains', value: 'beta' },
  { property: 'user_id', operator: 'starts_with', value: 'u-1' },
  { property: 'email', operator: 'ends_with', value: '.org' },
  { property: 'email', operator: 'matches', value: '^[a-z]+\\d*@' },
  { property: 'age', operator: 'greater_than', value: 30 },
  { property: 'age', operator: 'greater_than_or_equal', value: 18 },
  { property: 'score', operator: 'less_than', value: 0.5 },
  { property: 'score', operator: 'less_than_or_equal', value: 0.25 },
  { property: 'signup', operator: 'before', value: '2020-06-01' },
  { property: 'signup', operator: 'after', value: '2021-01-01T12:00:00+02:00' },
  { property: 'version', operator: 'semver_equals', value: '1.2.3' },
  { property: 'version', operator: 'semver_greater_than', value: 'v1.10.0' },
  { property: 'version', operator: 'semver_less_than', value: '2.0.0-rc.1' },
  { property: 'email', operator: 'exists' },
  { property: 'custom.age', operator: 'not_exists' },
  { operator: 'in_segment', value: 'pros' },
  { operator: 'not_in_segment', value: 'mailers' },
]

export const HAND_FLAGS: FlagDefinition[] = [
  ...OPERATOR_CONDITIONS.map(
    (c, i): FlagDefinition => ({
      key: `op-${i}-${c.operator}`,
      enabled: true,
      value: 'miss',
      targeting: { rules: [{ conditions: [c], value: 'hit' }] },
    }),
  ),
  { key: 'static-on', enabled: true, value: { a: [1, 2] } },
  { key: 'static-off', enabled: false, value: 42 },
  { key: 'window-past', enabled: true, value: true, active_until: PAST },
  { key: 'window-now', enabled: true, value: true, active_from: PAST, active_until: FUTURE },
  { key: 'window-future', enabled: true, value: 'soon', active_from: FUTURE },
  {
    key: 'everything',
    enabled: true,
    value: 'default',
    environments: { production: { enabled: true, value: 'prod' }, staging: { enabled: false }, development: { enabled: true } },
    targeting: {
      overrides: { 'u-1': 'vip', 'u-2': null },
      rules: [
        {
          conditions: [
            { operator: 'in_segment', value: 'pros' },
            { property: 'country', operator: 'in', value: ['us', 'de'] },
          ],
          value: 'pro-us',
        },
        {
          conditions: [
            { operator: 'in_segment', value: 'everyone' },
            { property: 'version', operator: 'semver_greater_than', value: '1.5.0' },
          ],
          value: 'new-app',
        },
      ],
      rollout: { percentage: 37.5, attribute: 'user_id' },
    },
  },
  { key: 'rollout-country', enabled: true, value: 10, targeting: { rollout: { percentage: 50, attribute: 'custom.country' } } },
  { key: 'rollout-all', enabled: true, value: true, targeting: { rollout: { percentage: 100, attribute: 'user_id' } } },
  {
    key: 'env-only',
    enabled: false,
    value: [1],
    environments: { production: { enabled: true }, development: { enabled: true, value: [2, 3] } },
  },
  {
    key: 'colours',
    enabled: true,
    value: 'b',
    variants: { red: 'r', green: 'g', blue: 'b' },
    default_variant: 'blue',
    off_variant: 'red',
    environments: { staging: { enabled: false }, production: { enabled: true, variant: 'green' } },
    targeting: {
      overrides: { 'u-1': 'green' },
      rules: [{ conditions: [{ operator: 'in_segment', value: 'pros' }], variant: 'red' }],
      rollout: {
        attribute: 'user_id',
        distribution: [
          { variant: 'red', weight: 20.5 },
          { variant: 'green', weight: 29.5 },
          { variant: 'blue', weight: 50 },
        ],
      },
    },
  },
  {
    key: 'own-rules',
    enabled: true,
    value: 'b',
    variants: { red: 'r', green: 'g', blue: 'b' },
    default_variant: 'blue',
    targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], variant: 'red' }] },
    environments: {
      production: {
        enabled: true,
        targeting: {
          overrides: { 'u-2': 'red' },
          rules: [{ conditions: [{ operator: 'in_segment', value: 'pros' }], variant: 'green' }],
          rollout: {
            attribute: 'user_id',
            distribution: [
              { variant: 'red', weight: 40 },
              { variant: 'green', weight: 60 },
            ],
          },
        },
      },
      staging: { enabled: true, variant: 'green', targeting: { rules: [] } },
    },
  },
  // Created after the flags it requires (a prerequisite must exist when written).
  {
    key: 'gated',
    enabled: true,
    value: 'through',
    prerequisites: [
      { key: 'colours', variant: 'blue' },
      { key: 'rollout-country', value: 10 },
    ],
  },
]

const pool = <T>(...values: T[]) => fc.constantFrom(...values)
const isoDate = fc
  .date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2050-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString())
const semver = fc
  .tuple(fc.nat(3), fc.nat(15), fc.nat(5), fc.option(pool('alpha', 'rc.1', 'rc.2'), { nil: undefined }))
  .map(([a, b, c, pre]) => `${a}.${b}.${c}${pre ? `-${pre}` : ''}`)

/** Values a context attribute may take: the pools the conditions test, and junk. */
const ATTRIBUTES: Record<string, fc.Arbitrary<unknown>> = {
  country: fc.oneof(pool('us', 'de', 'fr', 'jp'), fc.integer({ min: 0, max: 9 }), fc.boolean()),
  email: fc.oneof(pool('ann@example.com', 'bob7@test.com', 'x@example.org', 'Eve@corp.io', ''), fc.string({ maxLength: 6 })),
  tags: fc.oneof(fc.array(pool('beta', 'alpha', 'x'), { maxLength: 3 }), pool('beta-tester', 'none')),
  age: fc.oneof(fc.integer({ min: 0, max: 90 }), pool('18', '31', '-1.5e1', 'old', ' 20')),
  score: fc.oneof(fc.double({ min: -1, max: 1, noNaN: true }), pool('0.25', '0x1')),
  signup: fc.oneof(isoDate, fc.integer({ min: 0, max: 2_000_000_000_000 }), pool('2020-06-01', 'yesterday')),
  version: fc.oneof(semver, pool('v1.2.3', '1.2', 'latest')),
}

const customOf = fc
  .dictionary(fc.constantFrom(...Object.keys(ATTRIBUTES)), fc.constant(null), { maxKeys: 5 })
  .chain((d) => fc.record(Object.fromEntries(Object.keys(d).map((k) => [k, ATTRIBUTES[k]!]))))

/** A context the service accepts (user_id, plan and environment strings; custom an object), as JSON. */
export const context = fc
  .record(
    {
      user_id: fc.oneof(
        fc.integer({ min: 0, max: 40 }).map((n) => `u-${n}`),
        fc.string({ maxLength: 8 }),
      ),
      plan: pool('free', 'pro', 'enterprise'),
      environment: pool(...ENVIRONMENTS, 'other'),
      country: ATTRIBUTES.country!,
      custom: customOf,
    },
    { requiredKeys: [] },
  )
  .map((c) => JSON.parse(JSON.stringify(c)) as Record<string, unknown>)

// Random flags: any operator, any property, values of the flag's type; only those validation accepts.
const PROPERTIES = ['user_id', 'plan', 'environment', 'custom.country', ...Object.keys(ATTRIBUTES)]
const conditionValue = (operator: string): fc.Arbitrary<unknown> => {
  if (operator === 'in_segment' || operator === 'not_in_segment') return pool(...SEGMENTS.map((s) => s.key))
  if (operator === 'in' || operator === 'not_in') return fc.array(pool<unknown>('us', 'pro', 'u-3', 5, true), { maxLength: 4 })
  if (operator === 'matches') return pool('^u-[0-9]$', 'example', '(?i)EVE')
  if (/than/.test(operator) && !operator.startsWith('semver')) return fc.integer({ min: -5, max: 60 })
  if (operator === 'before' || operator === 'after') return isoDate
  if (operator.startsWith('semver')) return semver
  return pool<unknown>('us', 'pro', 'u-1', 'beta', 'example', 18, true)
}
const condition = fc
  .constantFrom(...OPERATORS)
  .chain((operator) =>
    fc.record({ property: fc.constantFrom(...PROPERTIES), operator: fc.constant(operator), value: conditionValue(operator) }),
  )
const randomTargeting = fc.record(
  {
    rules: fc.array(fc.record({ conditions: fc.array(condition, { minLength: 1, maxLength: 3 }), value: fc.integer({ min: 4, max: 9 }) }), {
      maxLength: 4,
    }),
    rollout: fc.option(fc.record({ percentage: fc.integer({ min: 0, max: 100 }), attribute: fc.constantFrom(...PROPERTIES) }), {
      nil: undefined,
    }),
    overrides: fc.dictionary(
      fc.integer({ min: 0, max: 40 }).map((n) => `u-${n}`),
      fc.integer({ min: 10, max: 12 }),
      { maxKeys: 3 },
    ),
  },
  { requiredKeys: [] },
)
const randomFlag = fc.record({
  enabled: fc.boolean(),
  value: fc.integer({ min: 0, max: 3 }),
  targeting: randomTargeting,
  // some environments with their own rules (docs/behaviour.md §4)
  environments: fc.dictionary(
    fc.constantFrom(...ENVIRONMENTS),
    fc.record(
      { enabled: fc.boolean(), value: fc.integer({ min: 20, max: 22 }), targeting: randomTargeting },
      { requiredKeys: ['enabled'] },
    ),
  ),
})

export function randomFlags(count: number, seed: number): FlagDefinition[] {
  const segmentKeys = new Set(SEGMENTS.map((s) => s.key))
  return fc
    .sample(randomFlag, { numRuns: count * 2, seed })
    .map((f, i) => ({ key: `random-${i}`, ...f }) as FlagDefinition)
    .filter((f) => validateFlag(f, { segmentKeys, environments: new Set(ENVIRONMENTS) }).length === 0)
    .slice(0, count)
}
