// convert --from unleash (docs/migration.md): a real Unleash 8.2 project (tests/fixtures/migration/unleash,
// exported by the server itself) converted, then evaluated by our engine against what Unleash answers:
// the answers the server recorded, and unleash-client 6.12.1 (the evaluator embedded in that server) run
// on the same project for many seeded contexts. Per-user rollout buckets differ between the tools
// (different hashes), so rollouts are compared by their shares.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import UnleashClient from 'unleash-client/lib/client'
import { defaultStrategies } from 'unleash-client/lib/strategy'
import { convert, ConvertError } from '../../server/documents/convert'
import { serializeDocument } from '../../server/documents/serialize'
import type { EvaluationContext } from '../../server/engine'
import { compileDocument, evaluate, expectValidDocument, seeded, shareTolerance } from './convert-helpers'

const DIR = join(import.meta.dir, '../fixtures/migration/unleash')
const text = (name: string) => readFileSync(join(DIR, name), 'utf8')
const json = (name: string) => JSON.parse(text(name))
// Date constraints are decided at conversion time; Unleash is asked at the same instant (currentTime).
const NOW = Date.parse('2026-11-26T12:00:00.000Z')
const ENVS = ['development', 'production'] as const
const INPUT = ['export.development.json', 'export.production.json', 'segments.json', 'strategies.json'].map((name) => ({
  name,
  text: text(name),
}))
const { document, report } = convert('unleash', INPUT, { now: NOW })
const flags = compileDocument(document)
const FEATURES: string[] = json('export.development.json').features.map((f: { name: string }) => f.name)

interface UContext {
  userId?: string
  sessionId?: string
  properties: Record<string, string>
}
type Answer = true | string | undefined

/** unleash-client over what its server hands SDKs for one environment. */
function unleashOf(env: string, clientFeatures: { features: { name: string }[]; segments: { id: number }[] }) {
  const features = new Map(clientFeatures.features.map((f) => [f.name, f]))
  const segments = new Map(clientFeatures.segments.map((s) => [s.id, s]))
  const client = new UnleashClient(
    { getToggle: (n: string) => features.get(n), getSegment: (id: number) => segments.get(id) } as never,
    defaultStrategies,
  )
  return (feature: string, c: UContext): Answer => {
    const context = { ...c, environment: env, currentTime: new Date(NOW) }
    if (!client.isEnabled(feature, context, () => false)) return undefined
    const v = client.getVariant(feature, context)
    return v.name === 'disabled' ? true : v.name
  }
}
const UNLEASH = Object.fromEntries(ENVS.map((env) => [env, unleashOf(env, json(`client-features.${env}.json`))]))

/** The same context as a Flagship client sends it (docs/migration.md: userId is user_id, sessionId session_id). */
const ours = (c: UContext, env: string): EvaluationContext => ({
  ...(c.userId !== undefined ? { user_id: c.userId } : {}),
  environment: env,
  custom: { ...(c.sessionId !== undefined ? { session_id: c.sessionId } : {}), ...c.properties },
})
function ourAnswer(feature: string, c: UContext, env: string): Answer {
  const r = evaluate(flags, feature, ours(c, env), NOW)
  if (r.variant !== undefined) return r.variant === null || r.variant === 'off' ? undefined : r.variant === 'on' ? true : r.variant
  return r.value === true ? true : undefined
}

// Where a rollout (a hash of the user) decides: an enabled environment with a partial rollout or a split.
const HASHED = new Set([
  'dark-mode/development',
  'legacy-search/development',
  'new-checkout/production',
  'promo-pricing/development',
  'promo-pricing/production',
  'recommendations-v3/development',
  'recommendations-v3/production',
])

test('every converted flag and segment is accepted as the API accepts them', () => {
  expect(document.flags!.map((f) => f.key)).toEqual(expect.arrayContaining(FEATURES))
  expect(document.environments).toEqual(['development', 'production'])
  expect(document.segments!.map((s) => s.key)).toEqual(expect.arrayContaining(['internal-staff', 'nordics']))
  expectValidDocument(document)
})

test('the recorded answers of the Unleash server, wherever no rollout decides', () => {
  const recorded = json('expected-evaluations.json')
  let compared = 0
  for (const { context, results } of recorded.contexts) {
    for (const env of ENVS) {
      for (const feature of FEATURES) {
        if (HASHED.has(`${feature}/${env}`)) continue
        expect({ feature, env, context, answer: ourAnswer(feature, context, env) }).toEqual({
          feature,
          env,
          context,
          answer: results[env][feature],
        })
        compared++
      }
    }
  }
  expect(compared).toBe(6 * 13)
})

const POOLS = {
  userId: ['u-1001', 'u-1002', 'u-1003', 'qa-1', 'u-2002', 'shopper-7', undefined],
  sessionId: ['sess-1', 'sess-2', 's-9', undefined],
  plan: ['free', 'pro', 'enterprise', 'Pro', undefined],
  country: ['NO', 'SE', 'DK', 'dk', 'FI', 'IS', 'DE', 'FR', 'NL', 'US', undefined],
  email: [
    'kari@mail.example',
    'ADMIN@shop.example',
    'qa+test@shop.example',
    'Admin.fr@mail.example',
    'ole@Shop.Example',
    'admin',
    'x@shop.example.org',
    undefined,
  ],
  appVersion: ['3.1.0', '3.1.1', '3.2.0', '3.2.0-beta.1', '3.10.0', '2.9.9', 'latest', undefined],
  orderCount: ['0', '3', '4', '5', '9', '12', 'many', undefined],
  signupDate: ['2025-06-01T00:00:00.000Z', '2024-12-31T23:59:59.000Z', undefined],
}
function randomContext(r: ReturnType<typeof seeded>): UContext {
  const c: UContext = { properties: {} }
  for (const [field, pool] of Object.entries(POOLS)) {
    const v = r.pick(pool)
    if (v === undefined) continue
    if (field === 'userId' || field === 'sessionId') c[field] = v
    else c.properties[field] = v
  }
  return c
}

test('answers as unleash-client for 3,000 seeded contexts, wherever no rollout decides', () => {
  const r = seeded(23)
  let compared = 0
  for (let i = 0; i < 3000; i++) {
    const c = randomContext(r)
    for (const env of ENVS) {
      for (const feature of FEATURES) {
        if (HASHED.has(`${feature}/${env}`)) continue
        const expected = UNLEASH[env]!(feature, c)
        if (ourAnswer(feature, c, env) !== expected)
          expect({ feature, env, c, answer: ourAnswer(feature, c, env) }).toEqual({ feature, env, c, answer: expected })
        compared++
      }
    }
  }
  expect(compared).toBe(3000 * 13)
})

/** How often each answer comes, over a population. */
function shares(answer: (c: UContext) => Answer, population: UContext[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const c of population) {
    const a = String(answer(c))
    counts.set(a, (counts.get(a) ?? 0) + 1)
  }
  return new Map([...counts].map(([k, n]) => [k, n / population.length]))
}
function expectSameShares(ourShares: Map<string, number>, theirs: Map<string, number>, n: number, what: string) {
  for (const k of new Set([...ourShares.keys(), ...theirs.keys()])) {
    const a = ourShares.get(k) ?? 0
    const b = theirs.get(k) ?? 0
    if (Math.abs(a - b) > shareTolerance(b, n)) expect({ what, answer: k, ours: a }).toEqual({ what, answer: k, ours: b })
  }
}

describe('rollouts keep their shares', () => {
  const r = seeded(8)
  const population: UContext[] = Array.from({ length: 4000 }, (_, i) => ({
    ...randomContext(r),
    userId: `user-${i}`,
    sessionId: `session-${i}`,
  }))
  for (const pair of HASHED) {
    const [feature, env] = pair.split('/') as [string, string]
    test(`${pair}: as unleash-client, over 4,000 users`, () => {
      expectSameShares(
        shares((c) => ourAnswer(feature, c, env), population),
        shares((c) => UNLEASH[env]!(feature, c), population),
        population.length,
        pair,
      )
    })
  }
  test('as the Unleash server counted its population', () => {
    const recorded = json('expected-evaluations.json').population
    const people: UContext[] = Array.from({ length: recorded.size }, (_, i) => ({
      userId: `shopper-${i}`,
      sessionId: `s-${i}`,
      properties: { plan: 'free', country: 'US' },
    }))
    for (const env of ENVS) {
      for (const [feature, count] of Object.entries(recorded.counts[env]) as [
        string,
        { enabled: number; variants: Record<string, number> },
      ][]) {
        const theirs = new Map<string, number>([['undefined', 1 - count.enabled / recorded.size]])
        if (Object.keys(count.variants).length === 0) theirs.set('true', count.enabled / recorded.size)
        for (const [v, n] of Object.entries(count.variants)) theirs.set(v, n / recorded.size)
        expectSameShares(
          shares((c) => ourAnswer(feature, c, env), people),
          theirs,
          recorded.size,
          `${feature}/${env}`,
        )
      }
    }
  })
})

test('the report names what is not exact', () => {
  const has = (...parts: string[]) => expect(report.some((line) => parts.every((p) => line.includes(p)))).toBe(true)
  has('rollouts', 'shares are kept', 'new-checkout (production)', 'dark-mode (development)')
  has('currency-switcher', 'DATE_BEFORE 2030-01-01', 'schedule')
  has('rollouts', 'promo-pricing (development)', 'promo-pricing (production)', 'recommendations-v3 (development)')
  has('stickiness "default"', 'new-checkout')
  has('feature types', 'kill-switch')
  // Exact conversions stay out of it.
  expect(report.some((line) => line.includes('vip-support') || line.includes('staff-tools') || line.includes('free-shipping-banner'))).toBe(
    false,
  )
})

test("each environment's strategies are its own rules; a feature on in an Unleash environment is on there", () => {
  for (const env of ENVS) {
    const ex = json(`export.${env}.json`)
    for (const fe of ex.featureEnvironments as { featureName: string; enabled: boolean }[]) {
      const flag = document.flags!.find((f) => f.key === fe.featureName)!
      expect({ flag: flag.key, env, enabled: flag.environments![env]!.enabled }).toEqual({ flag: flag.key, env, enabled: fe.enabled })
      expect(flag.enabled).toBe(false)
    }
  }
  // every answer not compared exactly (a rollout decides) is one the report lists as not exact
  const rolloutsLine = report.find((line) => line.startsWith('rollouts ('))!
  for (const pair of HASHED) {
    const [feature, env] = pair.split('/')
    expect(rolloutsLine).toContain(`${feature} (${env})`)
  }
  // no rule of any flag tests the environment: each environment has its rules
  expect(JSON.stringify(document.flags)).not.toContain('"property":"environment"')
  expect(document.flags!.some((f) => Object.values(f.environments ?? {}).some((o) => o.targeting))).toBe(true)
})

test('input that is not an Unleash export is refused', () => {
  expect(() => convert('unleash', [{ name: 'x.json', text: '{' }])).toThrow(ConvertError)
  expect(() => convert('unleash', [{ name: 'client.json', text: text('client-features.production.json') }])).toThrow(/client API format/)
  expect(() => convert('unleash', [{ name: 'segments.json', text: text('segments.json') }])).toThrow(/no Unleash export/)
  expect(() => convert('unleash', [INPUT[0]!, { ...INPUT[0]!, name: 'again.json' }])).toThrow(/given twice/)
})

test('the same files give the same document, byte for byte, and the same report', () => {
  const again = convert(
    'unleash',
    INPUT.map((f) => ({ ...f })),
    { now: NOW },
  )
  expect(serializeDocument(again.document, 'yaml')).toBe(serializeDocument(document, 'yaml'))
  expect(again.report).toEqual(report)
})
