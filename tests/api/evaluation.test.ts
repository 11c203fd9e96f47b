// Evaluation over HTTP (docs/behaviour.md §4): every operator, every reason, rules, attributes, the active
// window and the rollout vectors. Flags and segments are created with the API and evaluated with
// GET /api/v1/flags/:key?context=... on the real server. (Freshness, bulk, caching and the rate-limit class:
// evaluation-bulk.test.ts.)
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { api, startServer, type TestServer } from '../helpers/server'
import { evaluationHelpers, type Ctx } from './evaluation-helpers'

let srv: TestServer
let admin: string
beforeAll(async () => {
  srv = await startServer()
  admin = srv.adminToken
})
afterAll(() => srv.stop())

const { ok, createFlag, updateFlag, createSegment, evaluate, bulk, oneRule } = evaluationHelpers(() => srv)

describe('operators (one flag per operator, evaluated over HTTP)', () => {
  beforeAll(async () => {
    await createSegment('op-enterprise-de', [
      { property: 'plan', operator: 'equals', value: 'enterprise' },
      { property: 'country', operator: 'in', value: ['de', 'at'] },
    ])
  })

  // match: a context where the condition holds; nonMatch: a present property where it does not;
  // missing: the property absent. A missing property fails every operator except not_exists and not_*.
  const c = (custom: Record<string, unknown>): Ctx => ({ custom })
  const cases: { operator: string; condition: Record<string, unknown>; match: Ctx; nonMatch: Ctx; missing: Ctx; missingHolds: boolean }[] =
    [
      {
        operator: 'equals',
        condition: { property: 'plan', value: 'pro' },
        match: { plan: 'pro' },
        nonMatch: { plan: 'Pro' },
        missing: {},
        missingHolds: false,
      },
      {
        operator: 'not_equals',
        condition: { property: 'plan', value: 'pro' },
        match: { plan: 'free' },
        nonMatch: { plan: 'pro' },
        missing: {},
        missingHolds: true,
      },
      {
        operator: 'in',
        condition: { property: 'country', value: ['de', 'fr'] },
        match: c({ country: 'fr' }),
        nonMatch: c({ country: 'us' }),
        missing: c({}),
        missingHolds: false,
      },
      {
        operator: 'not_in',
        condition: { property: 'country', value: ['de', 'fr'] },
        match: c({ country: 'us' }),
        nonMatch: c({ country: 'de' }),
        missing: c({}),
        missingHolds: true,
      },
      {
        operator: 'contains',
        condition: { property: 'email', value: '@corp.' },
        match: c({ email: 'ann@corp.io' }),
        nonMatch: c({ email: 'ann@home.io' }),
        missing: c({ other: '@corp.' }),
        missingHolds: false,
      },
      {
        operator: 'contains',
        condition: { property: 'tags', value: 'beta' },
        match: c({ tags: ['alpha', 'beta'] }),
        nonMatch: c({ tags: ['alpha', 'betamax'] }),
        missing: c({}),
        missingHolds: false,
      },
      {
        operator: 'not_contains',
        condition: { property: 'email', value: '@corp.' },
        match: c({ email: 'ann@home.io' }),
        nonMatch: c({ email: 'ann@corp.io' }),
        missing: c({}),
        missingHolds: true,
      },
      {
        operator: 'starts_with',
        condition: { property: 'user_id', value: 'adm-' },
        match: { user_id: 'adm-7' },
        nonMatch: { user_id: 'usr-adm-7' },
        missing: { plan: 'adm-' },
        missingHolds: false,
      },
      {
        operator: 'ends_with',
        condition: { property: 'email', value: '.de' },
        match: c({ email: 'x@y.de' }),
        nonMatch: c({ email: 'x@y.de.com' }),
        missing: c({}),
        missingHolds: false,
      },
      {
        operator: 'matches',
        condition: { property: 'user_id', value: '^u[0-9]+$' },
        match: { user_id: 'u123' },
        nonMatch: { user_id: 'u12a' },
        missing: {},
        missingHolds: false,
      },
      {
        operator: 'greater_than',
        condition: { property: 'age', value: 18 },
        match: c({ age: 19 }),
        nonMatch: c({ age: 18 }),
        missing: c({}),
        missingHolds: false,
      },
      {
        operator: 'greater_than_or_equal',
        condition: { property: 'age', value: 18 },
        match: c({ age: 18 }),
        nonMatch: c({ age: 17.5 }),
        missing: c({}),
        missingHolds: false,
      },
      {
        operator: 'less_than',
        condition: { property: 'age', value: 18 },
        match: c({ age: 17 }),
        nonMatch: c({ age: 18 }),
        missing: c({}),
        missingHolds: false,
      },
      {
        operator: 'less_than_or_equal',
        condition: { property: 'age', value: 18 },
        match: c({ age: 18 }),
        nonMatch: c({ age: 18.01 }),
        missing: c({}),
        missingHolds: false,
      },
      {
        operator: 'before',
        condition: { property: 'signup', value: '2024-01-01T00:00:00Z' },
        match: c({ signup: '2023-12-31T23:59:59Z' }),
        nonMatch: c({ signup: '2024-01-01T00:00:01Z' }),
        missing: c({}),
        missingHolds: false,
      },
      {
        operator: 'after',
        condition: { property: 'signup', value: '2024-01-01T00:00:00Z' },
        match: c({ signup: '2024-06-01T12:00:00Z' }),
        nonMatch: c({ signup: '2023-06-01T12:00:00Z' }),
        missing: c({}),
        missingHolds: false,
      },
      {
        operator: 'semver_equals',
        condition: { property: 'app_version', value: '1.2.3' },
        match: c({ app_version: '1.2.3' }),
        nonMatch: c({ app_version: '1.2.4' }),
        missing: c({}),
        missingHolds: false,
      },
      // 1.10.0 > 1.9.0 numerically (a string comparison would say otherwise)
      {
        operator: 'semver_greater_than',
        condition: { property: 'app_version', value: '1.9.0' },
        match: c({ app_version: '1.10.0' }),
        nonMatch: c({ app_version: '1.9.0' }),
        missing: c({}),
        missingHolds: false,
      },
      // a pre-release sorts before its release
      {
        operator: 'semver_less_than',
        condition: { property: 'app_version', value: '2.0.0' },
        match: c({ app_version: '2.0.0-beta.1' }),
        nonMatch: c({ app_version: '2.0.0' }),
        missing: c({}),
        missingHolds: false,
      },
      // present (even as false) holds; JSON null counts as missing
      {
        operator: 'exists',
        condition: { property: 'beta_opt_in' },
        match: c({ beta_opt_in: false }),
        nonMatch: c({ beta_opt_in: null }),
        missing: c({}),
        missingHolds: false,
      },
      {
        operator: 'not_exists',
        condition: { property: 'beta_opt_in' },
        match: c({ beta_opt_in: null }),
        nonMatch: c({ beta_opt_in: 'yes' }),
        missing: c({}),
        missingHolds: true,
      },
      {
        operator: 'in_segment',
        condition: { property: 'user_id', value: 'op-enterprise-de' },
        match: { plan: 'enterprise', custom: { country: 'at' } },
        nonMatch: { plan: 'enterprise', custom: { country: 'us' } },
        missing: {},
        missingHolds: false,
      },
      {
        operator: 'not_in_segment',
        condition: { property: 'user_id', value: 'op-enterprise-de' },
        match: { plan: 'free', custom: { country: 'de' } },
        nonMatch: { plan: 'enterprise', custom: { country: 'de' } },
        missing: {},
        missingHolds: true,
      },
    ]
  /** `contains` tests an array or a string attribute: the case's name says which. */
  const testedAs = (x: (typeof cases)[number]) =>
    x.operator !== 'contains' ? '' : Array.isArray(x.match.custom && (x.match.custom as any).tags) ? ' (array)' : ' (string)'

  test.each(cases.map((x, i) => [`${x.operator}${testedAs(x)}`, i] as const))(
    '%s: match, non-match, missing property',
    async (_name, i) => {
      const x = cases[i]!
      const key = `op-${i}-${x.operator}`
      await oneRule(key, { ...x.condition, operator: x.operator })
      expect(await evaluate(key, x.match)).toEqual({ value: 'hit', type: 'string', reason: 'targeting' })
      expect(await evaluate(key, x.nonMatch)).toEqual({ value: 'miss', type: 'string', reason: 'default' })
      expect((await evaluate(key, x.missing)).value).toBe(x.missingHolds ? 'hit' : 'miss')
      // no context at all: the same as a missing property
      expect((await evaluate(key)).value).toBe(x.missingHolds ? 'hit' : 'miss')
    },
  )

  test('every operator of docs/behaviour.md §4 is covered above', () => {
    const covered = new Set(cases.map((x) => x.operator))
    const all = [
      'equals',
      'not_equals',
      'in',
      'not_in',
      'contains',
      'not_contains',
      'starts_with',
      'ends_with',
      'matches',
      'greater_than',
      'greater_than_or_equal',
      'less_than',
      'less_than_or_equal',
      'before',
      'after',
      'semver_equals',
      'semver_greater_than',
      'semver_less_than',
      'exists',
      'not_exists',
      'in_segment',
      'not_in_segment',
    ]
    expect(all.filter((o) => !covered.has(o))).toEqual([])
  })

  test('string comparisons are case-sensitive; equals compares types exactly', async () => {
    await oneRule('op-case', { property: 'country', operator: 'starts_with', value: 'D' })
    expect((await evaluate('op-case', { custom: { country: 'de' } })).value).toBe('miss')
    expect((await evaluate('op-case', { custom: { country: 'DE' } })).value).toBe('hit')
    await oneRule('op-type', { property: 'level', operator: 'equals', value: 30 })
    expect((await evaluate('op-type', { custom: { level: 30 } })).value).toBe('hit')
    expect((await evaluate('op-type', { custom: { level: '30' } })).value).toBe('miss')
  })
})

describe('reasons, off values and types', () => {
  test('disabled: off value false for a boolean flag, null otherwise', async () => {
    await createFlag({ key: 'r-off-bool', enabled: false, value: true })
    await createFlag({
      key: 'r-off-str',
      enabled: false,
      value: 'blue',
      targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'exists' }], value: 'rule' }] },
    })
    await createFlag({ key: 'r-off-obj', enabled: false, value: { a: 1 } })
    expect(await evaluate('r-off-bool', { user_id: 'u' })).toEqual({ value: false, type: 'boolean', reason: 'disabled' })
    // disabled wins over a matching rule
    expect(await evaluate('r-off-str', { plan: 'pro' })).toEqual({ value: null, type: 'null', reason: 'disabled' })
    expect(await evaluate('r-off-obj')).toEqual({ value: null, type: 'null', reason: 'disabled' })
  })

  test('default: the flag value', async () => {
    await createFlag({ key: 'r-default', enabled: true, value: 'blue' })
    expect(await evaluate('r-default', { user_id: 'u1', plan: 'pro' })).toEqual({ value: 'blue', type: 'string', reason: 'default' })
  })

  test('override (individual targeting by user_id) wins over rules and rollout', async () => {
    await createFlag({
      key: 'r-override',
      enabled: true,
      value: 'base',
      targeting: {
        overrides: { 'vip-1': 'vip-value' },
        rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: 'rule' }],
        rollout: { percentage: 100, attribute: 'user_id' },
      },
    })
    expect(await evaluate('r-override', { user_id: 'vip-1', plan: 'pro' })).toEqual({
      value: 'vip-value',
      type: 'string',
      reason: 'override',
    })
    expect(await evaluate('r-override', { user_id: 'vip-2', plan: 'pro' })).toEqual({ value: 'rule', type: 'string', reason: 'targeting' })
    expect(await evaluate('r-override', { user_id: 'vip-2' })).toEqual({ value: 'base', type: 'string', reason: 'rollout' })
    // only the top-level user_id is an override key
    expect((await evaluate('r-override', { custom: { user_id: 'vip-1' } })).reason).not.toBe('override')
  })

  test('rollout: in gives the value, out the off value (false for boolean, null otherwise)', async () => {
    await createFlag({ key: 'r-roll-all', enabled: true, value: 'new', targeting: { rollout: { percentage: 100, attribute: 'user_id' } } })
    await createFlag({
      key: 'r-roll-none-bool',
      enabled: true,
      value: true,
      targeting: { rollout: { percentage: 0, attribute: 'user_id' } },
    })
    await createFlag({
      key: 'r-roll-none-str',
      enabled: true,
      value: 'new',
      targeting: { rollout: { percentage: 0, attribute: 'user_id' } },
    })
    expect(await evaluate('r-roll-all', { user_id: 'anyone' })).toEqual({ value: 'new', type: 'string', reason: 'rollout' })
    expect(await evaluate('r-roll-none-bool', { user_id: 'anyone' })).toEqual({ value: false, type: 'boolean', reason: 'rollout' })
    expect(await evaluate('r-roll-none-str', { user_id: 'anyone' })).toEqual({ value: null, type: 'null', reason: 'rollout' })
    // without the attribute a context is outside, even at 100%
    expect(await evaluate('r-roll-all', { plan: 'pro' })).toEqual({ value: null, type: 'null', reason: 'rollout' })
  })

  test('environment_override: context.environment replaces enabled and (if given) value', async () => {
    await createFlag({
      key: 'r-env',
      enabled: false,
      value: 'base',
      environments: { production: { enabled: true, value: 'prod' }, staging: { enabled: true } },
    })
    expect(await evaluate('r-env', { environment: 'production' })).toEqual({
      value: 'prod',
      type: 'string',
      reason: 'environment_override',
    })
    expect(await evaluate('r-env', { environment: 'staging' })).toEqual({ value: 'base', type: 'string', reason: 'environment_override' })
    expect(await evaluate('r-env', { environment: 'development' })).toEqual({ value: null, type: 'null', reason: 'disabled' })
    expect(await evaluate('r-env')).toEqual({ value: null, type: 'null', reason: 'disabled' })
    // the other way round: an enabled flag switched off in one environment
    await createFlag({ key: 'r-env-off', enabled: true, value: true, environments: { staging: { enabled: false } } })
    expect(await evaluate('r-env-off', { environment: 'staging' })).toEqual({ value: false, type: 'boolean', reason: 'disabled' })
    expect(await evaluate('r-env-off', { environment: 'production' })).toEqual({ value: true, type: 'boolean', reason: 'default' })
    // an override set through PUT /flags/:key/environments/:env applies on the next request
    ok(
      await api(srv, 'PUT', '/api/v1/flags/r-env-off/environments/production', { token: admin, body: { enabled: true, value: false } }),
      200,
    )
    expect(await evaluate('r-env-off', { environment: 'production' })).toEqual({
      value: false,
      type: 'boolean',
      reason: 'environment_override',
    })
  })

  test('type names: boolean, string, number, object, array, null', async () => {
    const values: [string, unknown][] = [
      ['boolean', true],
      ['string', 's'],
      ['number', 42.5],
      ['object', { a: [1] }],
      ['array', [1, 'x']],
      ['null', null],
    ]
    // A flag answers values of one type (rules and overrides match its value's type), so one flag per type.
    for (const [kind, value] of values) {
      await createFlag({
        key: `r-type-${kind}`,
        enabled: true,
        value,
        targeting: { rules: [{ conditions: [{ property: 'kind', operator: 'equals', value: kind }], value }] },
      })
      expect(await evaluate(`r-type-${kind}`, { custom: { kind } })).toEqual({ value: value as never, type: kind, reason: 'targeting' })
    }
    // a false boolean is still typed boolean (not the off value of a disabled flag)
    await createFlag({ key: 'r-false', enabled: true, value: false })
    expect(await evaluate('r-false')).toEqual({ value: false, type: 'boolean', reason: 'default' })
    await createFlag({ key: 'r-number', enabled: false, value: 0 })
    expect(await evaluate('r-number')).toEqual({ value: null, type: 'null', reason: 'disabled' })
  })
})

describe('rules, attributes, active window', () => {
  test('rule order: the first matching rule wins', async () => {
    await createFlag({
      key: 'order',
      enabled: true,
      value: 'none',
      targeting: {
        rules: [
          {
            conditions: [
              { property: 'plan', operator: 'equals', value: 'pro' },
              { property: 'country', operator: 'equals', value: 'de' },
            ],
            value: 'first',
          },
          { conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: 'second' },
          { conditions: [{ property: 'plan', operator: 'exists' }], value: 'third' },
        ],
      },
    })
    expect((await evaluate('order', { plan: 'pro', custom: { country: 'de' } })).value).toBe('first')
    expect((await evaluate('order', { plan: 'pro', custom: { country: 'fr' } })).value).toBe('second')
    expect((await evaluate('order', { plan: 'free' })).value).toBe('third')
    expect(await evaluate('order', {})).toEqual({ value: 'none', type: 'string', reason: 'default' })
    // reordering the rules changes the winner on the next request
    const def = await api(srv, 'GET', '/api/v1/flags/order/definition', { token: admin })
    await updateFlag('order', { targeting: { rules: [...def.body.flag.targeting.rules].reverse() } })
    expect((await evaluate('order', { plan: 'pro', custom: { country: 'de' } })).value).toBe('third')
  })

  test('custom attributes: `country` and `custom.country` both read custom.country; top-level fields first', async () => {
    await oneRule('attr-short', { property: 'country', operator: 'equals', value: 'de' })
    await oneRule('attr-long', { property: 'custom.country', operator: 'equals', value: 'de' })
    for (const key of ['attr-short', 'attr-long']) {
      expect((await evaluate(key, { custom: { country: 'de' } })).value).toBe('hit')
      expect((await evaluate(key, { custom: { country: 'fr' } })).value).toBe('miss')
      expect((await evaluate(key, { custom: { countryy: 'de' } })).value).toBe('miss')
    }
    // a known top-level field is read first, custom is the fallback
    await oneRule('attr-plan', { property: 'plan', operator: 'equals', value: 'pro' })
    expect((await evaluate('attr-plan', { plan: 'pro', custom: { plan: 'free' } })).value).toBe('hit')
    expect((await evaluate('attr-plan', { plan: 'free', custom: { plan: 'pro' } })).value).toBe('miss')
    expect((await evaluate('attr-plan', { custom: { plan: 'pro' } })).value).toBe('hit')
    // inherited object members are not attributes
    await oneRule('attr-proto', { property: 'constructor', operator: 'exists' })
    expect((await evaluate('attr-proto', { custom: {} })).value).toBe('miss')
  })

  test('active window: active_from in the future or active_until in the past is disabled', async () => {
    const future = new Date(Date.now() + 86_400_000).toISOString()
    const past = new Date(Date.now() - 86_400_000).toISOString()
    await createFlag({ key: 'win-future', enabled: true, value: true, active_from: future })
    await createFlag({ key: 'win-past', enabled: true, value: 'v', active_until: past })
    await createFlag({ key: 'win-open', enabled: true, value: 'v', active_from: past, active_until: future })
    expect(await evaluate('win-future')).toEqual({ value: false, type: 'boolean', reason: 'disabled' })
    expect(await evaluate('win-past')).toEqual({ value: null, type: 'null', reason: 'disabled' })
    expect(await evaluate('win-open')).toEqual({ value: 'v', type: 'string', reason: 'default' })
    // clearing the bound opens the window on the next request
    await updateFlag('win-future', { active_from: null })
    expect(await evaluate('win-future')).toEqual({ value: true, type: 'boolean', reason: 'default' })
    // an environment override that enables the flag does not bypass the window
    await createFlag({ key: 'win-env', enabled: false, value: 'v', active_until: past, environments: { production: { enabled: true } } })
    expect((await evaluate('win-env', { environment: 'production' })).reason).toBe('disabled')
  })
})

describe('rollout vectors over HTTP', () => {
  const vectors: { flag: string; value: string; bucket: number }[] = JSON.parse(
    readFileSync(new URL('../fixtures/rollout-vectors.json', import.meta.url), 'utf8'),
  ).vectors

  test('pricing_v2 at 50%: every context is in exactly when its bucket < 50', async () => {
    const pv = vectors.filter((v) => v.flag === 'pricing_v2').slice(0, 120)
    expect(pv.length).toBeGreaterThan(50)
    expect(pv.some((v) => v.bucket < 50) && pv.some((v) => v.bucket >= 50)).toBe(true)
    await createFlag({ key: 'pricing_v2', enabled: true, value: 'v2', targeting: { rollout: { percentage: 50, attribute: 'user_id' } } })
    const results = await Promise.all(pv.map((v) => evaluate('pricing_v2', { user_id: v.value })))
    const wrong = pv.filter((v, i) => results[i]!.value !== (v.bucket < 50 ? 'v2' : null))
    expect(wrong).toEqual([])
    expect(results.every((r) => r.reason === 'rollout')).toBe(true)
  })

  test('a percentage just above / at a vector bucket flips it in / out', async () => {
    const chosen = [
      vectors.find((v) => v.flag === 'pricing_v2' && v.value === 'user-487359')!, // 41.7
      vectors.find((v) => v.flag === 'pricing_v2' && v.value === '669528482')!, // 20.99
      vectors.find((v) => v.flag === 'pricing_v2' && v.value === '')!, // empty string is a value
      vectors.find((v) => v.flag === 'pricing_v2' && /[^\x00-\x7f]/.test(v.value))!, // UTF-8 bytes
    ]
    expect(chosen.every(Boolean)).toBe(true)
    for (const v of chosen) {
      await updateFlag('pricing_v2', {
        targeting: { rollout: { percentage: Math.round((v.bucket + 0.01) * 100) / 100, attribute: 'user_id' } },
      })
      expect(await evaluate('pricing_v2', { user_id: v.value })).toEqual({ value: 'v2', type: 'string', reason: 'rollout' })
      await updateFlag('pricing_v2', { targeting: { rollout: { percentage: v.bucket, attribute: 'user_id' } } })
      expect(await evaluate('pricing_v2', { user_id: v.value })).toEqual({ value: null, type: 'null', reason: 'rollout' })
    }
  })

  test('bucketing on a custom attribute (number and custom.x form) and on a key with a dot', async () => {
    const numeric = vectors.find((v) => v.flag === 'a' && /^\d+$/.test(v.value))!
    await createFlag({
      key: 'a',
      enabled: true,
      value: true,
      targeting: { rollout: { percentage: numeric.bucket + 0.01, attribute: 'org' } },
    })
    expect((await evaluate('a', { custom: { org: Number(numeric.value) } })).value).toBe(true)
    expect((await evaluate('a', { custom: { org: numeric.value } })).value).toBe(true)
    await updateFlag('a', { targeting: { rollout: { percentage: numeric.bucket, attribute: 'custom.org' } } })
    expect(await evaluate('a', { custom: { org: Number(numeric.value) } })).toEqual({ value: false, type: 'boolean', reason: 'rollout' })
    const dotted = vectors.find((v) => v.flag === 'beta.search' && /[^\x00-\x7f]/.test(v.value))!
    await createFlag({
      key: 'beta.search',
      enabled: true,
      value: 'on',
      targeting: { rollout: { percentage: dotted.bucket + 0.01, attribute: 'user_id' } },
    })
    expect((await evaluate('beta.search', { user_id: dotted.value })).value).toBe('on')
    await updateFlag('beta.search', { targeting: { rollout: { percentage: dotted.bucket, attribute: 'user_id' } } })
    expect((await evaluate('beta.search', { user_id: dotted.value })).value).toBe(null)
  })
})
