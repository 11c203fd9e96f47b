// Property tests: whatever the context (junk included) and whatever valid flag, compile + evaluate never
// throws and always answers a known reason with a matching type. Validation never throws either.
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import {
  compileFlag,
  OPERATORS,
  REASONS,
  typeOf,
  validateFlag,
  type EvaluationContext,
  type FlagDefinition,
  type SegmentDefinition,
} from '../../server/engine'

const NUM_RUNS = 500
const ENVIRONMENTS = ['development', 'staging', 'production']
const PROPERTIES = [
  'user_id',
  'plan',
  'environment',
  'country',
  'custom.country',
  'age',
  'version',
  'tags',
  'signup',
  'toString',
  '__proto__',
  'custom.',
]
const segments = new Map<string, SegmentDefinition>([
  [
    'seg1',
    {
      key: 'seg1',
      conditions: [
        { property: 'plan', operator: 'equals', value: 'pro' },
        { property: 'age', operator: 'greater_than', value: 18 },
      ],
    },
  ],
  ['seg2', { key: 'seg2', conditions: [] }],
])
const segmentKeys = new Set([...segments.keys()])

const scalar = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.double({ noNaN: true, noDefaultInfinity: true }))
const iso = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString())
const semver = fc
  .tuple(fc.nat(20), fc.nat(20), fc.nat(20), fc.option(fc.constantFrom('alpha', 'beta.2', 'rc.1', '0'), { nil: undefined }), fc.boolean())
  .map(([a, b, c, pre, v]) => `${v ? 'v' : ''}${a}.${b}.${c}${pre ? `-${pre}` : ''}`)
const json = fc.jsonValue({ maxDepth: 3 })

function valueFor(operator: string): fc.Arbitrary<unknown> {
  switch (operator) {
    case 'equals':
    case 'not_equals':
    case 'contains':
    case 'not_contains':
      return scalar
    case 'in':
    case 'not_in':
      return fc.array(scalar, { maxLength: 5 })
    case 'starts_with':
    case 'ends_with':
      return fc.string({ maxLength: 5 })
    case 'matches':
      return fc.constantFrom('^a', 'b+$', '(?i)x.*y', '\\d{3}', '[a-z]+@[a-z]+\\.com', '', '(a+)+$')
    case 'greater_than':
    case 'greater_than_or_equal':
    case 'less_than':
    case 'less_than_or_equal':
      return fc.double({ noNaN: true, noDefaultInfinity: true })
    case 'before':
    case 'after':
      return iso
    case 'semver_equals':
    case 'semver_greater_than':
    case 'semver_less_than':
      return semver
    case 'in_segment':
    case 'not_in_segment':
      return fc.constantFrom('seg1', 'seg2')
    default:
      return fc.option(json, { nil: undefined })
  }
}

const condition = fc
  .constantFrom(...OPERATORS)
  .chain((operator) => fc.record({ property: fc.constantFrom(...PROPERTIES), operator: fc.constant(operator), value: valueFor(operator) }))

// Every value of a flag has the type of its `value`, or is null (an explicit off value).
const OF_TYPE: Record<string, fc.Arbitrary<unknown>> = {
  boolean: fc.boolean(),
  string: fc.string({ maxLength: 8 }),
  number: fc.double({ noNaN: true, noDefaultInfinity: true }),
  object: fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 3 }),
  array: fc.array(json, { maxLength: 3 }),
  null: fc.constant(null),
}
const answerOf = (type: string) => fc.oneof({ weight: 4, arbitrary: OF_TYPE[type]! }, { weight: 1, arbitrary: fc.constant(null) })

const targeting = (type: string) =>
  fc.record(
    {
      rules: fc.array(fc.record({ conditions: fc.array(condition, { maxLength: 4 }), value: answerOf(type) }), { maxLength: 5 }),
      rollout: fc.option(
        fc.record({ percentage: fc.double({ min: 0, max: 100, noNaN: true }), attribute: fc.constantFrom(...PROPERTIES) }),
        { nil: undefined },
      ),
      overrides: fc.dictionary(fc.string({ maxLength: 4 }), answerOf(type), { maxKeys: 3 }),
    },
    { requiredKeys: [] },
  )

const window = fc.option(fc.tuple(fc.option(iso, { nil: null }), fc.option(iso, { nil: null })), { nil: undefined })

const flagDefinition: fc.Arbitrary<FlagDefinition> = fc
  .constantFrom(...Object.keys(OF_TYPE))
  .chain((type) =>
    fc.record({
      key: fc.string({ minLength: 1, maxLength: 10 }),
      enabled: fc.boolean(),
      value: OF_TYPE[type]!,
      targeting: fc.option(targeting(type), { nil: undefined }),
      environments: fc.option(
        fc.dictionary(
          fc.constantFrom(...ENVIRONMENTS),
          fc.record({ enabled: fc.boolean(), value: answerOf(type) }, { requiredKeys: ['enabled'] }),
        ),
        { nil: undefined },
      ),
      window,
    }),
  )
  .map(({ window: w, ...f }) => {
    const def = f as FlagDefinition
    if (w) {
      const [a, b] = w
      // Keep from < until so the window is valid.
      if (a && b) [def.active_from, def.active_until] = a < b ? [a, b] : a > b ? [b, a] : [a, null]
      else [def.active_from, def.active_until] = [a, b]
    }
    return def
  })

const junkOrJson = fc.oneof(fc.anything(), json)
const context: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 1, arbitrary: fc.anything() },
  {
    weight: 4,
    arbitrary: fc.record(
      {
        user_id: fc.oneof(fc.string({ maxLength: 6 }), junkOrJson),
        plan: fc.oneof(fc.constantFrom('pro', 'free'), junkOrJson),
        environment: fc.oneof(fc.constantFrom(...ENVIRONMENTS), junkOrJson),
        custom: fc.oneof(
          fc.dictionary(
            fc.constantFrom('country', 'age', 'version', 'tags', 'signup', 'plan', '__proto__', 'toString'),
            fc.oneof(scalar, iso, semver, junkOrJson),
          ),
          junkOrJson,
        ),
      },
      { requiredKeys: [] },
    ),
  },
)

const now = fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 }), { nil: undefined })

describe('evaluation properties', () => {
  test('generated flags are valid (the generator is not vacuous)', () => {
    fc.assert(
      fc.property(flagDefinition, (flag) => {
        expect(validateFlag(flag, { segmentKeys, environments: new Set(ENVIRONMENTS) })).toEqual([])
      }),
      { numRuns: 200 },
    )
  })

  const COVERAGE_SEED = 20261121
  test('valid flag + any context: never throws, known reason, matching type', () => {
    const seen = new Set<string>()
    fc.assert(
      fc.property(flagDefinition, fc.array(context, { minLength: 1, maxLength: 5 }), now, (flag, contexts, t) => {
        fc.pre(validateFlag(flag, { segmentKeys, environments: new Set(ENVIRONMENTS) }).length === 0)
        const compiled = compileFlag(flag, segments)
        for (const ctx of contexts) {
          const r = compiled.evaluate(ctx as EvaluationContext, t)
          expect(REASONS).toContain(r.reason)
          expect(r.type).toBe(typeOf(r.value))
          expect(r.value).not.toBeUndefined()
          seen.add(r.reason)
          // Deterministic: the same input gives the same answer.
          expect(compiled.evaluate(ctx as EvaluationContext, t)).toBe(r)
        }
      }),
      { numRuns: NUM_RUNS, seed: COVERAGE_SEED },
    )
    // The generator reaches every step of the evaluation order. Whether a random run reaches all six is
    // itself random, so this property runs on a fixed seed (the others stay randomly seeded). Flags with
    // prerequisites are generated by tests/engine/variants-property.test.ts.
    expect([...seen].sort()).toEqual(REASONS.filter((r) => r !== 'prerequisite_failed').sort())
  })

  test('validateFlag never throws, and compile + evaluate tolerate even invalid definitions', () => {
    const junkFlag = fc.oneof(
      fc.anything(),
      flagDefinition.chain((f) =>
        fc.record(
          {
            ...Object.fromEntries(Object.keys(f).map((k) => [k, fc.constant((f as never)[k])])),
            targeting: fc.anything(),
            environments: fc.anything(),
          },
          { requiredKeys: [] },
        ),
      ),
    )
    fc.assert(
      fc.property(junkFlag, context, (flag, ctx) => {
        validateFlag(flag, { segmentKeys })
        const r = compileFlag(flag as FlagDefinition, segments).evaluate(ctx as EvaluationContext)
        expect(REASONS).toContain(r.reason)
        expect(r.type).toBe(typeOf(r.value))
      }),
      { numRuns: NUM_RUNS },
    )
  })
})
