// Hostile documents (docs/as-code.md "Hostile input", docs/migration.md): YAML tags beyond the core JSON
// types, a `__proto__` key inside a value, flagd `$ref`s that expand exponentially and a malformed Unleash
// export are each refused with a clear message naming the place — over HTTP (400, nothing written) and by
// the `flagship` command line (exit 1) — and export shows a stored `__proto__` key instead of hiding it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { api, startServer, type TestServer } from '../helpers/server'
import { runFlagship } from '../helpers/cli'
import { tempDir } from '../helpers/temp'

const ROOT = join(import.meta.dir, '..', '..')
const YAML = { 'content-type': 'application/yaml' }
const TAGGED = [
  ['!!binary aGVsbG8=', '!!binary'],
  ['!!set { a, b }', '!!set'],
  ['!!timestamp 2001-12-14', '!!timestamp'],
  ['{ at: !!timestamp 2001-12-14 }', '!!timestamp'],
  ['!!omap [ { a: 1 } ]', '!!omap'],
  ['!!pairs [ { a: 1 } ]', '!!pairs'],
] as const
const flagWith = (value: string) => `flagship: 1\nflags:\n  - key: tagged\n    enabled: true\n    value: ${value}\n`

let srv: TestServer
beforeAll(async () => {
  srv = await startServer()
})
afterAll(() => srv.stop())

const importDoc = (mode: string, body: { rawBody: string; headers: Record<string, string> }) =>
  api(srv, 'POST', `/api/v1/import?mode=${mode}`, { token: srv.adminToken, ...body })
const definitions = async () =>
  (await api(srv, 'GET', '/api/v1/definitions', { token: srv.adminToken })).body.flags.map((f: { key: string }) => f.key)

describe('over HTTP', () => {
  test('YAML !!binary, !!set, !!timestamp, !!omap, !!pairs: 400 naming the path, in plan and apply alike; nothing written', async () => {
    for (const [value, tag] of TAGGED) {
      for (const mode of ['plan', 'apply']) {
        const res = await importDoc(mode, { rawBody: flagWith(value), headers: YAML })
        expect({ value, mode, status: res.status, code: res.body.code }).toEqual({ value, mode, status: 400, code: 'VALIDATION_ERROR' })
        const issue = res.body.details.issues[0]
        expect(issue.path).toStartWith('flags[0].value')
        expect(issue.line).toBe(5)
        expect(issue.message).toContain(`the YAML tag ${tag} is not allowed`)
      }
    }
    // The core JSON types stay allowed: `!!str 12` is the text "12".
    expect((await importDoc('apply', { rawBody: flagWith('!!str 12'), headers: YAML })).status).toBe(200)
    expect((await api(srv, 'GET', '/api/v1/flags/tagged/definition', { token: srv.adminToken })).body.flag.value).toBe('12')
    expect(await definitions()).toEqual(['tagged'])
  })

  test('a __proto__ key inside a value: 400 naming the path (JSON and YAML), nothing written', async () => {
    const json = JSON.stringify({
      flagship: 1,
      flags: [{ key: 'proto', enabled: true, value: { __proto__: { admin: true }, y: 2 } }],
    }).replace('"y"', '"__proto__":{"admin":true},"y"')
    expect(json).toContain('__proto__')
    for (const [body, path] of [
      [{ rawBody: json, headers: { 'content-type': 'application/json' } }, 'flags[0].value.__proto__'],
      [
        { rawBody: 'flagship: 1\nconfigs:\n  - key: proto\n    value: { list: [ { __proto__: { admin: true } } ] }\n', headers: YAML },
        'configs[0].value.list[0].__proto__',
      ],
    ] as const) {
      for (const mode of ['plan', 'apply']) {
        const res = await importDoc(mode, body)
        expect(res.status).toBe(400)
        expect(res.body.details.issues[0]).toMatchObject({ path, message: 'the key __proto__ is not allowed in a document (rename it)' })
      }
    }
    expect(await definitions()).not.toContain('proto')
  })

  test('a __proto__ key stored through the API (kept as data there) is shown by export, not hidden', async () => {
    const created = await api(srv, 'POST', '/api/v1/configs', {
      token: srv.adminToken,
      rawBody: '{"key":"kept","value":{"__proto__":{"admin":true},"y":2}}',
      headers: { 'content-type': 'application/json' },
    })
    expect(created.status).toBe(201)
    const served = await api(srv, 'GET', '/api/v1/configs/kept', { token: srv.adminToken })
    expect(served.text).toContain('"__proto__"')
    const exported = await api(srv, 'GET', '/api/v1/export?format=json&kinds=configs', { token: srv.adminToken })
    expect(exported.text).toContain('"__proto__"')
    const yaml = await api(srv, 'GET', '/api/v1/export?format=yaml&kinds=configs', { token: srv.adminToken })
    expect(yaml.text).toContain('__proto__')
    // Importing it back is refused at that place, rather than silently dropping the key.
    const again = await importDoc('plan', { rawBody: exported.text, headers: { 'content-type': 'application/json' } })
    expect(again.status).toBe(400)
    expect(again.body.details.issues[0].path).toBe('configs[0].value.__proto__')
  })
})

describe('the flagship command line', () => {
  test('validate refuses a tagged value and a __proto__ key (exit 1, the place named)', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'tagged.yaml'), flagWith('!!set { a, b }'))
    const tagged = runFlagship({}, 'validate', '-f', join(dir, 'tagged.yaml'))
    expect(tagged.code).toBe(1)
    expect(tagged.err).toContain('flags[0].value')
    expect(tagged.err).toContain('the YAML tag !!set is not allowed')
    writeFileSync(join(dir, 'proto.json'), '{"flagship": 1, "flags": [{"key": "p", "value": {"__proto__": {"x": 1}}}]}')
    const proto = runFlagship({}, 'validate', '-f', join(dir, 'proto.json'))
    expect(proto.code).toBe(1)
    expect(proto.err).toContain('flags[0].value.__proto__')
  })

  test('convert --from flagd: $evaluators that expand exponentially are refused (exit 1), not expanded', () => {
    // A 1.3 kB file: each evaluator refers twice to the next, 2^30 copies of the last one.
    const evaluators: Record<string, unknown> = {}
    for (let i = 0; i < 30; i++) evaluators[`e${i}`] = { or: [{ $ref: `e${i + 1}` }, { $ref: `e${i + 1}` }] }
    evaluators.e30 = { '==': [{ var: 'plan' }, 'pro'] }
    const file = join(tempDir(), 'bomb.flagd.json')
    writeFileSync(
      file,
      JSON.stringify({
        $evaluators: evaluators,
        flags: {
          f: {
            state: 'ENABLED',
            variants: { on: true, off: false },
            defaultVariant: 'off',
            targeting: { if: [{ $ref: 'e0' }, 'on', null] },
          },
        },
      }),
    )
    expect(readFileSync(file, 'utf8').length).toBeLessThan(2000)
    const res = runFlagship({}, 'convert', '--from', 'flagd', file)
    expect(res.code).toBe(1)
    expect(res.err).toContain('bomb.flagd.json: substituting $evaluators')
    expect(res.err).toContain('past 10485760 characters')
    // A reasonable use of shared evaluators still converts.
    const ok = join(tempDir(), 'ok.flagd.json')
    writeFileSync(
      ok,
      JSON.stringify({
        $evaluators: { pro: { '===': [{ var: 'plan' }, 'pro'] } },
        flags: {
          f: {
            state: 'ENABLED',
            variants: { on: true, off: false },
            defaultVariant: 'off',
            targeting: { if: [{ $ref: 'pro' }, 'on', null] },
          },
        },
      }),
    )
    expect(runFlagship({}, 'convert', '--from', 'flagd', ok).code).toBe(0)
  })

  test('convert --from unleash: a malformed export is refused with the place named (exit 1), no TypeError', () => {
    const real = JSON.parse(readFileSync(join(ROOT, 'tests', 'fixtures', 'migration', 'unleash', 'export.production.json'), 'utf8'))
    const cases: [(e: any) => void, string][] = [
      [
        (e) => (e.featureStrategies[0].constraints = [{ contextName: 'userId', operator: 'IN', values: 5 }]),
        'featureStrategies[0].constraints[0].values: expected array',
      ],
      [(e) => (e.featureStrategies[1] = null), 'featureStrategies[1]: expected object'],
      [(e) => (e.dependencies = [{ feature: 'x' }]), 'dependencies[0].dependencies: expected required property'],
      [(e) => (e.featureTags = [{ featureName: 'x', tagType: 'simple', tagValue: 3 }]), 'featureTags[0].tagValue: expected string'],
    ]
    const dir = tempDir()
    for (const [spoil, message] of cases) {
      const broken = structuredClone(real)
      spoil(broken)
      const file = join(dir, 'export.production.json')
      writeFileSync(file, JSON.stringify(broken))
      const res = runFlagship({}, 'convert', '--from', 'unleash', file)
      expect({ code: res.code, err: res.err.trim() }).toEqual({ code: 1, err: `error: ${file}: not a valid Unleash export: ${message}` })
    }
  })
})
