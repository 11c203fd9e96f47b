// The document model in process (server/documents): byte-stable output whatever the input's key order,
// YAML 1.2 core scalars, a property test of serialize -> parse -> serialize over random documents with
// unicode, JSON duplicate keys at any depth, paths, cycles of any length.
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { parseDocumentText, pathSegments } from '../../server/documents/parse'
import { canonicalDocument, serializeDocument } from '../../server/documents/serialize'
import { validateDocument } from '../../server/documents/validate'
import type { FlagshipDocument } from '../../server/documents/model'

const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ unit: 'grapheme' }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Object.is(d, -0)),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }), tie('value'), { maxKeys: 3 }),
  ),
})).value
const key = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/)
const doc = fc
  .record({
    flags: fc.uniqueArray(
      fc.record(
        {
          key,
          enabled: fc.boolean(),
          value: json,
          description: fc.option(fc.string({ unit: 'grapheme', maxLength: 20 }), { nil: undefined }),
          tags: fc.option(fc.array(fc.constantFrom('a', 'b', 'on', 'no'), { maxLength: 2 }), { nil: undefined }),
        },
        { requiredKeys: ['key', 'enabled', 'value'] },
      ),
      { selector: (f) => f.key, maxLength: 5 },
    ),
    configs: fc.uniqueArray(fc.record({ key, value: json }), { selector: (c) => c.key, maxLength: 5 }),
  })
  .map((d) => ({ flagship: 1 as const, ...d }) as FlagshipDocument)

describe('documents', () => {
  test('serialize -> parse -> serialize is byte-identical, in YAML and JSON, for random documents', () => {
    fc.assert(
      fc.property(doc, (d) => {
        for (const format of ['yaml', 'json'] as const) {
          const text = serializeDocument(d, format)
          const parsed = parseDocumentText(text, { format })
          expect(parsed.errors).toEqual([])
          expect(serializeDocument(parsed.document!, format)).toBe(text)
        }
      }),
      { numRuns: 200, seed: 42 },
    )
  })

  test('the same state writes the same bytes whatever the order it was given in', () => {
    const a: FlagshipDocument = {
      flagship: 1,
      configs: [
        { key: 'z', value: { b: 1, a: [{ y: 1, x: 2 }] } },
        { key: 'a', value: 1 },
      ],
      flags: [{ value: true, key: 'f', enabled: true, environments: { staging: { enabled: true }, development: { enabled: false } } }],
    }
    const b: FlagshipDocument = {
      flags: [{ key: 'f', environments: { development: { enabled: false }, staging: { enabled: true } }, enabled: true, value: true }],
      configs: [
        { key: 'a', value: 1 },
        { value: { a: [{ x: 2, y: 1 }], b: 1 }, key: 'z' },
      ],
      flagship: 1,
    } as FlagshipDocument
    expect(serializeDocument(a, 'yaml')).toBe(serializeDocument(b, 'yaml'))
    expect(serializeDocument(a, 'json')).toBe(serializeDocument(b, 'json'))
    expect(Object.keys(canonicalDocument(a))).toEqual(['flagship', 'flags', 'configs'])
  })

  test('YAML 1.2 core: no, on, yes, off stay strings; 0o17 and 1e3 are numbers', () => {
    const parsed = parseDocumentText(
      'flagship: 1\nflags:\n  - key: f\n    enabled: true\n    tags: [no, on, yes, off]\n    value: 0o17\n' +
        'configs:\n  - key: c\n    value: 1e3\n',
    )
    expect(parsed.errors).toEqual([])
    expect(parsed.document!.flags![0]!.tags).toEqual(['no', 'on', 'yes', 'off'])
    expect(parsed.document!.flags![0]!.value).toBe(15)
    expect(parsed.document!.configs![0]!.value).toBe(1000)
  })

  test('a duplicate key inside a JSON value is refused with its path and line; odd keys keep their path', () => {
    const res = parseDocumentText('{"flagship": 1, "configs": [{"key": "c", "value": {"a": 1,\n"b": {"x": 1, "x": 2}}}]}')
    expect(res.errors).toEqual([{ path: 'configs[0].value.b.x', line: 2, message: 'duplicate key' }])
    expect(pathSegments('flags[3].targeting.rules[0]')).toEqual(['flags', 3, 'targeting', 'rules', 0])
    expect(pathSegments('configs[0].value["a b"].c')).toEqual(['configs', 0, 'value', 'a b', 'c'])
  })

  test('validate: a prerequisite cycle of any length, a key defined twice, an unknown environment', () => {
    const n = 50
    const flags = Array.from({ length: n }, (_, i) => ({
      key: `f${i}`,
      enabled: true,
      prerequisites: [{ key: `f${(i + 1) % n}`, value: true }],
    }))
    const issues = validateDocument({
      flagship: 1,
      environments: ['production'],
      flags: [...flags, { key: 'f1', environments: { moon: { enabled: true } } }],
    } as FlagshipDocument)
    const text = issues.map((i) => `${i.path}: ${i.message}`).join('\n')
    expect(text).toContain('flags[50].key: "f1" is defined twice (also flags[1])')
    expect(text).toContain('prerequisites form a cycle: f0 → f1 →')
    const env = validateDocument({
      flagship: 1,
      environments: ['production'],
      flags: [{ key: 'g', enabled: true, environments: { moon: { enabled: true } } }],
    } as FlagshipDocument)
    expect(env).toEqual([{ path: 'flags[0].environments.moon', message: 'Environment moon: unknown environment "moon"' }])
  })
})
