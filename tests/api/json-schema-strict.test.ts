// The document's JSON Schema (GET /schemas/flagship-v1.json, schemas/flagship-v1.json) is JSON Schema that
// strict validators take: ajv in strict mode (every warning an error) compiles it, and it accepts the
// example document of docs/as-code.md, the documents converted from the migration fixtures and a real
// export of a project using every field, and refuses a document the server refuses.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import Ajv, { type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { parse } from 'yaml'
import { api, startServer, type TestServer } from '../helpers/server'
import { convert } from '../../server/documents/convert'
import { serializeDocument } from '../../server/documents/serialize'

const ROOT = join(import.meta.dir, '..', '..')

function strictCompile(schema: object): ValidateFunction {
  const complain = (...args: unknown[]) => {
    throw new Error(`ajv strict: ${args.map(String).join(' ')}`)
  }
  const ajv = new Ajv({
    strict: true,
    strictTypes: true,
    strictTuples: true,
    strictRequired: true,
    allErrors: true,
    logger: { log: () => {}, warn: complain, error: complain },
  })
  addFormats(ajv)
  return ajv.compile(schema)
}

describe('the JSON Schema in ajv strict mode', () => {
  let srv: TestServer
  let validate: ValidateFunction
  beforeAll(async () => {
    srv = await startServer()
  })
  afterAll(() => srv.stop())

  test('the served schema equals the committed one and compiles in strict mode', async () => {
    const served = await (await fetch(`${srv.url}/schemas/flagship-v1.json`)).json()
    expect(served).toEqual(JSON.parse(readFileSync(join(ROOT, 'schemas', 'flagship-v1.json'), 'utf8')))
    validate = strictCompile(served)
  })

  test("docs/as-code.md's example document is valid", () => {
    const text = readFileSync(join(ROOT, 'docs', 'as-code.md'), 'utf8')
    const example = /## The document\n\n```yaml\n([\s\S]*?)```/.exec(text)![1]!
    expect(validate(parse(example))).toBe(true)
  })

  test('the documents converted from the migration fixtures (flagd and Unleash) are valid', () => {
    const dir = (tool: string) => join(ROOT, 'tests', 'fixtures', 'migration', tool)
    const read = (tool: string, names: string[]) => names.map((name) => ({ name, text: readFileSync(join(dir(tool), name), 'utf8') }))
    const flagd = convert(
      'flagd',
      read(
        'flagd',
        readdirSync(dir('flagd')).filter((n) => n.endsWith('.json')),
      ),
    )
    const unleash = convert('unleash', read('unleash', ['export.development.json', 'export.production.json', 'segments.json']))
    for (const { document } of [flagd, unleash]) {
      expect(document.flags!.length).toBeGreaterThan(3)
      expect({ valid: validate(JSON.parse(serializeDocument(document, 'json'))), errors: validate.errors }).toEqual({
        valid: true,
        errors: null,
      })
    }
  })

  test("a project's export (every field, nulls included) is valid; what the server refuses, ajv refuses", async () => {
    const token = srv.adminToken
    const post = async (path: string, body: unknown) => expect((await api(srv, 'POST', path, { token, body })).status).toBe(201)
    await post('/api/v1/segments', { key: 'beta', conditions: [{ property: 'plan', operator: 'in', value: ['beta', 'pro'] }] })
    await post('/api/v1/flags', { key: 'base', enabled: true, value: 'on' })
    await post('/api/v1/flags', {
      key: 'checkout',
      enabled: true,
      value: false,
      description: 'New checkout',
      tags: ['web'],
      owner: 'team-a',
      targeting: {
        rules: [{ conditions: [{ operator: 'in_segment', value: 'beta' }], value: true }],
        rollout: { percentage: 25, attribute: 'user_id' },
      },
      environments: { production: { enabled: false } },
      prerequisites: [{ key: 'base', value: 'on' }],
      active_from: '2026-01-01T00:00:00.000Z',
      active_until: null,
    })
    await post('/api/v1/flags', {
      key: 'colours',
      enabled: true,
      variants: { red: '#f00', blue: '#00f' },
      default_variant: 'red',
      off_variant: 'blue',
      targeting: null,
    })
    await post('/api/v1/configs', { key: 'limits', value: { max: 10 }, environments: { production: { value: { max: 100 } } } })
    for (const format of ['json', 'yaml']) {
      const res = await api(srv, 'GET', `/api/v1/export?format=${format}`, { token })
      expect(res.status).toBe(200)
      const doc = format === 'json' ? JSON.parse(res.text) : parse(res.text)
      expect(doc.flags).toHaveLength(3)
      expect({ format, valid: validate(doc), errors: validate.errors }).toEqual({ format, valid: true, errors: null })
    }
    // Nulls where the API takes them.
    const nulls = { flagship: 1, flags: [{ key: 'n', targeting: null, environments: null, active_from: null, active_until: null }] }
    expect(validate(nulls)).toBe(true)
    // …and the server's own check of documents (the same schema) agrees: plan and apply take it.
    expect((await api(srv, 'POST', '/api/v1/import?mode=plan', { token, body: nulls })).status).toBe(200)
    expect((await api(srv, 'POST', '/api/v1/import?mode=apply', { token, body: nulls })).status).toBe(200)
    const unknown = { flagship: 1, flags: [{ key: 'x', colour: 'red' }] }
    expect(validate(unknown)).toBe(false)
    const plan = await api(srv, 'POST', '/api/v1/import?mode=plan', { token, body: unknown })
    expect(plan.status).toBe(400)
  })
})
