// convert --from flagd (docs/migration.md): real flagd files (tests/fixtures/migration/flagd, copied from the
// OpenFeature repositories) and a file of our own that uses every supported operator, converted, then
// evaluated by our engine against flagd's own evaluator (@openfeature/flagd-core) on the original files
// for many seeded contexts. fractional buckets users with another hash, so splits are compared by shares.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FlagdCore } from '@openfeature/flagd-core'
import { convert, ConvertError } from '../../server/documents/convert'
import { openFeatureContext, type Json } from '../../server/engine'
import { compileDocument, evaluate, expectValidDocument, seeded, shareTolerance } from './convert-helpers'

const DIR = join(import.meta.dir, '../fixtures/migration/flagd')
const REAL = ['cheat-sheet-flags.json', 'demo.flagd.json', 'testing-flags.json', 'evaluator-refs.json']

// Ours: every operator the converter supports, nested ifs, shared evaluators, fractional splits.
const OURS = {
  $evaluators: { staff: { ends_with: [{ var: 'email' }, '@shop.example'] } },
  flags: {
    'or-not': {
      state: 'ENABLED',
      variants: { yes: true, no: false },
      defaultVariant: 'no',
      targeting: {
        if: [
          {
            or: [{ $ref: 'staff' }, { '!': { and: [{ starts_with: [{ var: 'email' }, 'admin'] }, { '!=': [{ var: 'plan' }, 'free'] }] } }],
          },
          'yes',
          null,
        ],
      },
    },
    'in-text-and-list': {
      state: 'ENABLED',
      variants: { a: 'A', b: 'B', c: 'C' },
      defaultVariant: 'c',
      targeting: { if: [{ in: ['+test', { var: 'email' }] }, 'a', { in: [{ var: 'country' }, ['NO', 'SE']] }, 'b', null] },
    },
    'nested-if': {
      state: 'ENABLED',
      variants: { one: 1, two: 2, three: 3 },
      defaultVariant: 'three',
      targeting: {
        if: [
          { '==': [{ var: 'plan' }, 'pro'] },
          { if: [{ ends_with: [{ var: 'email' }, '.org'] }, 'one', 'two'] },
          { '===': [{ var: 'age' }, 42] },
          'one',
          null,
        ],
      },
    },
    semver: {
      state: 'ENABLED',
      variants: { eq: 'eq', ne: 'ne', lt: 'lt', le: 'le', gt: 'gt', ge: 'ge', caret: 'caret', tilde: 'tilde', none: 'none' },
      defaultVariant: 'none',
      targeting: {
        if: [
          { sem_ver: [{ var: 'v1' }, '=', '2.1.0'] },
          'eq',
          { sem_ver: [{ var: 'v2' }, '!=', 'v2.1.0'] },
          'ne',
          { sem_ver: [{ var: 'v3' }, '<', '2.1.0'] },
          'lt',
          { sem_ver: [{ var: 'v4' }, '<=', '2.1.0-rc.1'] },
          'le',
          { sem_ver: [{ var: 'v5' }, '>', '2.1.0'] },
          'gt',
          { sem_ver: [{ var: 'v6' }, '>=', '2.1.0'] },
          'ge',
          { sem_ver: [{ var: 'v7' }, '^', '2.1.0'] },
          'caret',
          { sem_ver: [{ var: 'v8' }, '~', '2.1.0'] },
          'tilde',
          null,
        ],
      },
    },
    'targeting-key': {
      state: 'ENABLED',
      variants: { on: true, off: false },
      defaultVariant: 'off',
      targeting: { if: [{ in: [{ var: 'targetingKey' }, ['user-1', 'user-2']] }, 'on', null] },
    },
    'boolean-result': {
      state: 'ENABLED',
      variants: { true: 'T', false: 'F' },
      defaultVariant: 'false',
      targeting: { if: [{ '==': [{ var: 'plan' }, 'pro'] }, true, false] },
    },
    'unknown-result': {
      state: 'ENABLED',
      variants: { a: 'A', b: 'B' },
      defaultVariant: 'a',
      targeting: { if: [{ '==': [{ var: 'plan' }, 'pro'] }, 'zzz', 'b'] },
    },
    disabled: {
      state: 'DISABLED',
      variants: { a: 'A', b: 'B' },
      defaultVariant: 'a',
      targeting: { if: [{ '==': [{ var: 'plan' }, 'pro'] }, 'b', null] },
    },
    numbers: {
      state: 'ENABLED',
      variants: { small: 's', big: 'b', mid: 'm', none: 'n', neg: 'x' },
      defaultVariant: 'none',
      targeting: {
        if: [
          { '<': [{ var: 'score' }, 1] },
          'small',
          { '>=': [{ var: 'score' }, 10] },
          'big',
          { '<': [2, { var: 'score' }, 8] },
          'mid',
          { '>': [0, { var: 'level' }] },
          'neg',
          null,
        ],
      },
    },
    // starts_with / ends_with either way round: ["text", attribute] holds when the attribute is one of the
    // text's prefixes (suffixes); a literal that is no text never holds (flagd answers null).
    affixes: {
      state: 'ENABLED',
      variants: { pre: 'pre', suf: 'suf', never: 'never', notext: 'notext', none: 'none' },
      defaultVariant: 'none',
      targeting: {
        if: [
          { starts_with: ['checkout-v2', { var: 'page' }] },
          'pre',
          { ends_with: ['shop.example', { var: 'domain' }] },
          'suf',
          { starts_with: [{ var: 'page' }, 5] },
          'never',
          { and: [{ '!': { ends_with: [{ var: 'domain' }, null] } }, { '==': [{ var: 'plan' }, 'free'] }] },
          'notext',
          null,
        ],
      },
    },
    'split-after-rules': {
      state: 'ENABLED',
      variants: { red: 'r', green: 'g', blue: 'b' },
      defaultVariant: 'red',
      targeting: {
        if: [
          { '==': [{ var: 'plan' }, 'pro'] },
          'blue',
          {
            fractional: [
              ['red', 25],
              ['green', 75],
            ],
          },
        ],
      },
    },
    'split-by-attribute': {
      state: 'ENABLED',
      variants: { x: 1, y: 2, z: 3 },
      defaultVariant: 'x',
      targeting: { fractional: [{ var: 'email' }, ['x', 1], ['y', 1], ['z', 1]] },
    },
  },
}
const FRACTIONAL = new Set(['split-after-rules', 'split-by-attribute'])

const files = [
  ...REAL.map((name) => ({ name, text: readFileSync(join(DIR, name), 'utf8') })),
  { name: 'ours.flagd.json', text: JSON.stringify(OURS) },
]
const { document, report } = convert('flagd', files)
const flags = compileDocument(document)
const cores = files.map((f) => {
  const core = new FlagdCore()
  core.setConfigurations(f.text)
  return core
})
const coreOf = (key: string) => cores.find((c) => c.getFlag(key) !== undefined)!
const KEYS = [...new Set(cores.flatMap((c) => [...c.getFlags().keys()]))]
// Not converted (reported): targeting on $flagd.timestamp.
const UNMAPPED = new Set(['timestamp-flag'])

const CALLER_DEFAULT = '\u0000caller-default'
function typeOf(key: string): 'boolean' | 'string' | 'number' | 'object' {
  const v = [...coreOf(key).getFlag(key)!.variants.values()][0]
  return typeof v === 'object' ? 'object' : (typeof v as 'boolean' | 'string' | 'number')
}
/** flagd's answer: the variant and value, or the caller's default (disabled, an error, no default). */
function flagdAnswer(key: string, context: Record<string, unknown>): { variant?: string; value: unknown } {
  const r = coreOf(key).resolve(typeOf(key), key, CALLER_DEFAULT as never, context as never)
  return r.value === CALLER_DEFAULT ? { value: CALLER_DEFAULT } : { variant: r.variant, value: r.value }
}
/** Ours, through the same context mapping as our OFREP service: null values (the off value, or the
 *  variant standing for flagd's "no default") are what an OpenFeature client answers with its default. */
function ourAnswer(key: string, context: Record<string, unknown>): { variant?: string; value: unknown } {
  const r = evaluate(flags, key, openFeatureContext(context))
  return r.value === null ? { value: CALLER_DEFAULT } : { variant: r.variant ?? undefined, value: r.value as Json }
}

const POOLS: Record<string, unknown[]> = {
  targetingKey: ['user-1', 'user-2', '5c3d8535-f81a-4478-a6d3-afaa4d51199e', 'user-9', undefined],
  email: [
    'ballmer@macrosoft.com',
    'jobs@orange.com',
    'admin@shop.example',
    'qa+test@shop.example',
    'admin.x@mail.org',
    'someone@example.com',
    'x@y.org',
    'adminless',
    undefined,
  ],
  plan: ['pro', 'free', 'PRO', undefined],
  tier: ['enterprise', 'premium', 'basic', undefined],
  region: ['us', 'usa', 'eu', 'fr', 'de', 'jp', undefined],
  country: ['NO', 'SE', 'DE', undefined],
  score: [0, 0.5, 1, 2, 5, 7.5, 8, 9.5, 10, 11, '7', '12', true, false, undefined],
  level: [-1, 0, 3, '-2', undefined],
  fn: ['Sulisław', 'Jan', undefined],
  ln: ['Świętopełk', 'Kowalski', undefined],
  age: [29, 42, 30, undefined],
  customer: [false, true, undefined],
  v1: ['2.1.0', '2.1.1', undefined],
  v2: ['2.1.0', '2.0.9', 'nope', undefined],
  v3: ['2.0.0', '2.1.0', '2.1.0-rc.1', undefined],
  v4: ['2.1.0-rc.1', '2.1.0-beta', '2.1.0', undefined],
  v5: ['2.1.1', '2.1.0', '10.0.0', undefined],
  v6: ['2.1.0', '2.0.99', '3.0.0-alpha', undefined],
  v7: ['2.0.0', '2.99.1', '3.0.0', '1.9.9', '2.0.0-alpha', undefined],
  v8: ['2.1.0', '2.1.9', '2.2.0', '2.1.0-beta', '2.0.5', undefined],
  page: ['checkout', 'checkout-v2', 'checkout-v3', 'Checkout', '', 'c', 'v2', 5, true, undefined],
  domain: ['example', '.example', 'shop.example', 'op.example', 'x.shop.example', 'Shop.example', '', 3, undefined],
}
function randomContext(r: ReturnType<typeof seeded>): Record<string, unknown> {
  const c: Record<string, unknown> = {}
  for (const [k, pool] of Object.entries(POOLS)) {
    const v = r.pick(pool)
    if (v !== undefined) c[k] = v
  }
  return c
}

test('every converted flag is accepted as the API accepts it', () => {
  expect(document.flags!.map((f) => f.key).sort()).toEqual([...KEYS].sort())
  expectValidDocument(document)
})

test('answers as flagd for 2,000 seeded contexts, every flag not split by fractional', () => {
  const r = seeded(42)
  const seen = new Map<string, Set<string>>()
  for (let i = 0; i < 2000; i++) {
    const c = randomContext(r)
    for (const key of KEYS) {
      if (FRACTIONAL.has(key) || UNMAPPED.has(key)) continue
      const theirs = flagdAnswer(key, c)
      const ours = ourAnswer(key, c)
      if (JSON.stringify(ours) !== JSON.stringify(theirs)) expect({ key, c, ours }).toEqual({ key, c, ours: theirs })
      const s = seen.get(key) ?? new Set()
      seen.set(key, s.add(String(theirs.variant)))
    }
  }
  // The contexts reach every branch of our own flags (else a branch would go untested).
  expect([...seen.get('semver')!].sort()).toEqual(['caret', 'eq', 'ge', 'gt', 'le', 'lt', 'ne', 'none', 'tilde'])
  expect(seen.get('nested-if')!.size).toBe(3)
  expect(seen.get('or-not')!.size).toBe(2)
  expect([...seen.get('numbers')!].sort()).toEqual(['big', 'mid', 'neg', 'none', 'small'])
  expect(seen.get('in-text-and-list')!.size).toBe(3)
  expect([...seen.get('affixes')!].sort()).toEqual(['none', 'notext', 'pre', 'suf'])
})

describe('fractional keeps its shares', () => {
  const r = seeded(7)
  const population = Array.from({ length: 6000 }, (_, i) => ({
    ...randomContext(r),
    targetingKey: `member-${i}`,
    email: `member-${i}@mail.example`,
  }))
  for (const key of FRACTIONAL) {
    test(key, () => {
      const count = (answer: (c: Record<string, unknown>) => { variant?: string }) => {
        const m = new Map<string, number>()
        for (const c of population) m.set(String(answer(c).variant), (m.get(String(answer(c).variant)) ?? 0) + 1)
        return m
      }
      const ours = count((c) => ourAnswer(key, c))
      const theirs = count((c) => flagdAnswer(key, c))
      expect([...ours.keys()].sort()).toEqual([...theirs.keys()].sort())
      for (const [v, n] of theirs)
        expect(Math.abs((ours.get(v) ?? 0) - n) / population.length).toBeLessThan(shareTolerance(n / population.length, population.length))
    })
  }
  test('a context flagd cannot bucket gets the default variant, as in flagd', () => {
    expect(ourAnswer('split-after-rules', { plan: 'free' })).toEqual(flagdAnswer('split-after-rules', { plan: 'free' }))
    expect(ourAnswer('split-by-attribute', {})).toEqual(flagdAnswer('split-by-attribute', {}))
  })
})

test('the report names what is not exact', () => {
  const has = (...parts: string[]) => expect(report.some((line) => parts.every((p) => line.includes(p)))).toBe(true)
  has('timestamp-flag', 'targeting not converted', '$flagd.timestamp')
  has('ref-to-nonexistent-evaluator-flag', 'does not exist', 'disabled')
  has('code-default-flag', 'no default variant', 'code-default')
  has('unknown-result', '"zzz"', 'no variant')
  has('fractional splits', 'split-after-rules', 'split-by-attribute', 'shares are kept')
  has('fractional weights 1:1:1', '33.33 / 33.34 / 33.33')
  has('==, != and <, <=, >, >= coerce in flagd')
  has('sem_ver reads partial versions')
  has('cheat-sheet-flags.json', 'metadata (flagSetId)')
  // Exact conversions stay out of it.
  expect(report.some((line) => /flag (or-not|nested-if|semver|region-config|user-tier-flag):/.test(line))).toBe(false)
})

test('starts_with / ends_with with the text first list its prefixes / suffixes; a longer text than 256 is reported', () => {
  const text = JSON.stringify({
    flags: {
      f: {
        state: 'ENABLED',
        variants: { a: 1, b: 2 },
        defaultVariant: 'b',
        targeting: { if: [{ ends_with: ['abc', { var: 'x' }] }, 'a', null] },
      },
      long: {
        state: 'ENABLED',
        variants: { a: 1, b: 2 },
        defaultVariant: 'b',
        targeting: { if: [{ starts_with: ['x'.repeat(257), { var: 'x' }] }, 'a', null] },
      },
    },
  })
  const out = convert('flagd', [{ name: 'a.json', text }])
  expect(out.document.flags![0]!.targeting).toEqual({
    rules: [{ conditions: [{ property: 'x', operator: 'in', value: ['', 'c', 'bc', 'abc'] }], variant: 'a' }],
  })
  expect(out.report).toEqual([
    'flag long: targeting not converted (starts_with of a text longer than 256 characters against an attribute has no equivalent): ' +
      'everyone gets the default variant',
  ])
})

test('a flag defined in two files: the later one wins, as in flagd, and the report says so', () => {
  const a = JSON.stringify({ flags: { f: { state: 'ENABLED', variants: { a: 1, b: 2 }, defaultVariant: 'a' } } })
  const b = JSON.stringify({ flags: { f: { state: 'ENABLED', variants: { a: 1, b: 2 }, defaultVariant: 'b' } } })
  const out = convert('flagd', [
    { name: 'a.json', text: a },
    { name: 'b.json', text: b },
  ])
  expect(out.document.flags).toEqual([{ key: 'f', enabled: true, value: 2, variants: { a: 1, b: 2 }, default_variant: 'b' }])
  expect(out.report).toEqual(['flag f: defined again in b.json, which replaces the earlier definition (as in flagd)'])
})

test('input that is not a flagd file is refused', () => {
  expect(() => convert('flagd', [{ name: 'x.json', text: '[]' }])).toThrow(ConvertError)
  expect(() => convert('flagd', [{ name: 'x.json', text: 'flags:' }])).toThrow(/not JSON/)
})

test('a flag whose variants mix value types is reported, not converted', () => {
  const text = JSON.stringify({
    flags: {
      mixed: { state: 'ENABLED', variants: { a: true, b: 'x' }, defaultVariant: 'a' },
      fine: { state: 'ENABLED', variants: { a: 1 }, defaultVariant: 'a' },
    },
  })
  const out = convert('flagd', [{ name: 'm.json', text }])
  expect(out.document.flags!.map((f) => f.key)).toEqual(['fine'])
  expect(out.report).toEqual(["flag mixed: not converted: its variants mix value types (boolean, string); a flag's variants share one"])
})

test('what our limits refuse is reported too (more rules than a flag may hold)', () => {
  const chain = Array.from({ length: 210 }, (_, i) => [{ '==': [{ var: 'n' }, `v${i}`] }, 'b']).flat()
  const text = JSON.stringify({
    flags: { long: { state: 'ENABLED', variants: { a: 1, b: 2 }, defaultVariant: 'a', targeting: { if: [...chain, 'a'] } } },
  })
  const out = convert('flagd', [{ name: 'l.json', text }])
  expect(out.report.some((l) => l.includes('fails validation at flags[0].targeting.rules') && l.includes('at most 200 rules'))).toBe(true)
})

test('hostile nesting is reported, not a crash', () => {
  let deep: unknown = { '==': [{ var: 'x' }, 1] }
  for (let i = 0; i < 5000; i++) deep = { '!': deep }
  let ifs: unknown = 'a'
  for (let i = 0; i < 5000; i++) ifs = { if: [true, ifs] }
  // Many alternatives: an OR of 40 conditions, negated and AND-ed, would be 40^2 rules.
  const wide = {
    and: [
      { or: Array.from({ length: 40 }, (_, i) => ({ '==': [{ var: 'a' }, i] })) },
      { or: Array.from({ length: 40 }, (_, i) => ({ '==': [{ var: 'b' }, i] })) },
    ],
  }
  const flags = Object.fromEntries(
    [
      ['deep', deep],
      ['ifs', ifs],
      ['wide', wide],
    ].map(([k, cond]) => [
      k,
      { state: 'ENABLED', variants: { a: 1, b: 2 }, defaultVariant: 'b', targeting: k === 'ifs' ? cond : { if: [cond, 'a', null] } },
    ]),
  )
  const out = convert('flagd', [{ name: 'h.json', text: JSON.stringify({ flags }) }])
  expect(out.report).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^flag deep: targeting not converted \(conditions nested deeper than 64\)/),
      expect.stringMatching(/^flag ifs: targeting not converted \(if nested deeper than 64\)/),
      expect.stringMatching(/^flag wide: targeting not converted \(more than 32 alternatives\)/),
    ]),
  )
  expectValidDocument(out.document)
})
