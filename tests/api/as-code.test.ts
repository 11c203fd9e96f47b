// Flags as code over HTTP (docs/as-code.md): export, plan, apply, prune, If-Match on the plan id, the
// published JSON Schema, permissions. Real servers, both stores (TEST_STORE=postgres).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { openSse } from '../helpers/sse'
import { documentJsonSchemaText } from '../../server/documents/json-schema'

let srv: TestServer
let fresh: TestServer
beforeAll(async () => {
  ;[srv, fresh] = await Promise.all([startServer(), startServer()])
})
afterAll(async () => {
  await Promise.all([srv.stop(), fresh.stop()])
})

const send = (s: TestServer, path: string, text: string, opts: { token?: string; type?: string; headers?: Record<string, string> } = {}) =>
  api(s, 'POST', path, {
    token: opts.token ?? s.adminToken,
    rawBody: text,
    headers: { 'content-type': opts.type ?? 'application/yaml', ...opts.headers },
  })
const exportText = async (s: TestServer, query = 'format=yaml') => {
  const res = await api(s, 'GET', `/api/v1/export?${query}`, { token: s.adminToken })
  expect(res.status).toBe(200)
  return res.text
}
const write = async (s: TestServer, method: string, path: string, body?: unknown) => {
  const res = await api(s, method, path, { token: s.adminToken, body })
  expect(res.status).toBeLessThan(300)
  return res.body
}
const auditCount = async (s: TestServer) => (await api(s, 'GET', '/api/v1/audit?limit=1', { token: s.adminToken })).body.total as number

describe('the JSON Schema', () => {
  test('is served at /schemas/flagship-v1.json, equals the committed file, and is generated from the server schemas', async () => {
    const committed = readFileSync(join(import.meta.dir, '..', '..', 'schemas', 'flagship-v1.json'), 'utf8')
    // Drift: regenerate with `bun server/documents/json-schema.ts --write`.
    expect(documentJsonSchemaText()).toBe(committed)
    const res = await fetch(`${srv.url}/schemas/flagship-v1.json`)
    expect(res.status).toBe(200)
    expect(await res.text()).toBe(committed)
    const schema = JSON.parse(committed)
    expect(schema.properties.flags.items.additionalProperties).toBe(false)
    expect(Object.keys(schema.properties.flags.items.properties)).toContain('prerequisites')
  })
})

describe('export and import', () => {
  test('round trip: export -> import into an empty project -> export is byte-identical, in YAML and JSON', async () => {
    await write(srv, 'POST', '/api/v1/segments', {
      key: 'beta-users',
      conditions: [{ property: 'plan', operator: 'in', value: ['beta', 'pro'] }],
    })
    await write(srv, 'POST', '/api/v1/flags', {
      key: 'base',
      enabled: true,
      value: 'on',
      description: 'ünïcødé → 🚩',
      tags: ['core'],
      owner: 'team-a',
    })
    await write(srv, 'POST', '/api/v1/flags', {
      key: 'checkout',
      enabled: true,
      variants: { new: { layout: 'grid', ключ: 'значение' }, old: { layout: 'list' } },
      default_variant: 'old',
      off_variant: 'old',
      targeting: {
        rules: [{ conditions: [{ operator: 'in_segment', value: 'beta-users' }], variant: 'new' }],
        rollout: {
          distribution: [
            { variant: 'new', weight: 30 },
            { variant: 'old', weight: 70 },
          ],
          attribute: 'user_id',
        },
        overrides: { 'u-1': 'new' },
      },
      environments: { production: { enabled: false } },
      prerequisites: [{ key: 'base', value: 'on' }],
      active_from: '2026-01-01T00:00:00.000Z',
      tags: ['core', 'web'],
    })
    await write(srv, 'POST', '/api/v1/flags', { key: 'old-thing', value: 'no' })
    await write(srv, 'POST', '/api/v1/flags/old-thing/archive')
    await write(srv, 'POST', '/api/v1/configs', {
      key: 'limits',
      value: { max: 10, ü: [1, 2.5, null] },
      environments: { production: { value: { max: 100 } } },
    })

    for (const format of ['yaml', 'json'] as const) {
      const first = await exportText(srv, `format=${format}`)
      expect(await exportText(srv, `format=${format}`)).toBe(first)
      const plan = await send(srv, '/api/v1/import?mode=plan', first, { type: `application/${format}` })
      expect(plan.status).toBe(200)
      expect(plan.body.summary).toEqual({ create: 0, update: 0, delete: 0, unchanged: 5 })
      expect(plan.body.changes).toEqual([])
    }
    const yaml = await exportText(srv)
    expect(yaml).toContain('flagship: 1')
    expect(yaml).toContain('archived: true')
    const applied = await send(fresh, '/api/v1/import?mode=apply', yaml)
    expect(applied.status).toBe(200)
    expect(applied.body.summary).toEqual({ create: 5, update: 0, delete: 0, unchanged: 0 })
    expect(await exportText(fresh)).toBe(yaml)
    expect(await exportText(fresh, 'format=json')).toBe(await exportText(srv, 'format=json'))
    // The flags evaluate the same on both servers.
    const ctx = { context: { user_id: 'u-1', plan: 'beta' }, flags: ['checkout', 'base'] }
    const a = await api(srv, 'POST', '/api/v1/evaluate', { token: srv.adminToken, body: ctx })
    const b = await api(fresh, 'POST', '/api/v1/evaluate', { token: fresh.adminToken, body: ctx })
    expect(b.body).toEqual(a.body)
    expect((await api(fresh, 'GET', '/api/v1/flags/old-thing', { token: fresh.adminToken })).status).toBe(404)
  })

  test('export: strong ETag, selection by keys pulls in the segments and prerequisites needed', async () => {
    const res = await api(srv, 'GET', '/api/v1/export?format=json&keys=checkout', { token: srv.adminToken })
    const doc = JSON.parse(res.text)
    expect(doc.flags.map((f: any) => f.key)).toEqual(['base', 'checkout'])
    expect(doc.segments.map((s: any) => s.key)).toEqual(['beta-users'])
    expect(doc.configs).toEqual([])
    const etag = res.headers.get('etag')!
    expect(etag).toMatch(/^"[^W]/)
    const again = await fetch(`${srv.url}/api/v1/export?format=json&keys=checkout`, {
      headers: { authorization: `Bearer ${srv.adminToken}`, 'if-none-match': etag },
    })
    expect(again.status).toBe(304)
    const byTag = JSON.parse((await api(srv, 'GET', '/api/v1/export?format=json&kinds=flags&tags=web', { token: srv.adminToken })).text)
    expect(byTag.flags.map((f: any) => f.key)).toEqual(['base', 'checkout'])
    expect(byTag.configs).toBeUndefined()
  })

  test('apply: one audit entry per changed resource under one change set, webhooks; idempotent; plan equals apply', async () => {
    const hook = (await write(srv, 'POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'] })).id
    const before = await auditCount(srv)
    const doc = `flagship: 1
flags:
  - key: base
    enabled: false
    value: "on"
    description: "ünïcødé → 🚩"
    tags: [core]
    owner: team-a
  - key: brand-new
    enabled: true
    value: no
configs:
  - key: timeout
    value: 30
`
    const plan = await send(srv, '/api/v1/import?mode=plan', doc)
    expect(plan.body.errors).toEqual([])
    expect(plan.body.summary).toEqual({ create: 2, update: 1, delete: 0, unchanged: 0 })
    expect(plan.body.changes.find((c: any) => c.key === 'base')).toEqual({
      resource_type: 'flag',
      key: 'base',
      action: 'update',
      current_version: 1,
      diff: [{ op: 'replace', path: '/enabled', value: false }],
    })
    expect(await auditCount(srv)).toBe(before)

    const stream = await openSse(`${srv.url}/api/v1/stream`, { authorization: `Bearer ${srv.adminToken}` })
    const applied = await send(srv, '/api/v1/import?mode=apply', doc, { headers: { 'if-match': `"${plan.body.plan_id}"` } })
    expect(applied.status).toBe(200)
    expect(applied.body.changes).toEqual(plan.body.changes)
    // One stream event per changed resource, after the commit.
    const events = [
      await stream.next((e) => e.event === 'change'),
      await stream.next((e) => e.event === 'change'),
      await stream.next((e) => e.event === 'change'),
    ]
    expect(events.map((e) => `${e.data.action} ${e.data.resource_type}:${e.data.key}`)).toEqual([
      'update flag:base',
      'create flag:brand-new',
      'create config:timeout',
    ])
    stream.close()
    expect(applied.body.plan_id).toBe(plan.body.plan_id)
    // `no` stays a string (YAML 1.2 core).
    expect((await api(srv, 'GET', '/api/v1/flags/brand-new', { token: srv.adminToken })).body.value).toBe('no')
    const audit = (await api(srv, 'GET', `/api/v1/audit?limit=10`, { token: srv.adminToken })).body.entries as any[]
    const entries = audit.slice(0, 3)
    expect(await auditCount(srv)).toBe(before + 3)
    expect(new Set(entries.map((e) => e.details?.change_set))).toEqual(new Set([applied.body.change_set]))
    expect(entries.map((e) => `${e.action} ${e.resource_type}:${e.resource_key}`).sort()).toEqual([
      'create config:timeout',
      'create flag:brand-new',
      'update flag:base',
    ])
    const deliveries = (await api(srv, 'GET', `/api/v1/webhooks/${hook}/deliveries`, { token: srv.adminToken })).body.deliveries as any[]
    expect(deliveries.map((d) => d.event).sort()).toEqual(['config.created', 'flag.created', 'flag.updated'])

    const second = await send(srv, '/api/v1/import?mode=apply', doc)
    expect(second.body.summary).toEqual({ create: 0, update: 0, delete: 0, unchanged: 3 })
    expect(second.body.change_set).toBeNull()
    expect(await auditCount(srv)).toBe(before + 3)
    expect(
      ((await api(srv, 'GET', `/api/v1/webhooks/${hook}/deliveries`, { token: srv.adminToken })).body.deliveries as any[]).length,
    ).toBe(3)
    await write(srv, 'DELETE', `/api/v1/webhooks/${hook}`)
  })

  test('If-Match: a change between plan and apply answers 409 PLAN_OUTDATED with what moved, and writes nothing', async () => {
    const doc = 'flagship: 1\nflags:\n  - key: base\n    enabled: true\n    value: "on"\n'
    const plan = await send(srv, '/api/v1/import?mode=plan', doc)
    expect(plan.body.summary.update).toBe(1)
    await write(srv, 'PUT', '/api/v1/flags/base', { owner: 'team-b' })
    const before = await auditCount(srv)
    const res = await send(srv, '/api/v1/import?mode=apply', doc, { headers: { 'if-match': `"${plan.body.plan_id}"` } })
    expect(res.status).toBe(409)
    expect(res.body.code).toBe('PLAN_OUTDATED')
    expect(res.body.details.moved).toEqual([{ kind: 'flags', key: 'base', planned_version: 2, current_version: 3 }])
    expect(await auditCount(srv)).toBe(before)
    expect(JSON.parse(await exportText(srv, 'format=json&keys=base')).flags[0]).toMatchObject({ enabled: false, owner: 'team-b' })
  })

  const PRUNE_TITLE =
    'prune deletes only what the document omits, of the kinds it lists ' + '(an empty list counts; an absent kind is untouched)'
  test(PRUNE_TITLE, async () => {
    const doc = 'flagship: 1\nconfigs: []\n'
    const noPrune = await send(srv, '/api/v1/import?mode=plan', doc)
    expect(noPrune.body.summary).toEqual({ create: 0, update: 0, delete: 0, unchanged: 0 })
    const plan = await send(srv, '/api/v1/import?mode=plan&prune=true', doc)
    expect(plan.body.changes.map((c: any) => `${c.action} ${c.resource_type}:${c.key}`)).toEqual([
      'delete config:timeout',
      'delete config:limits',
    ])
    const applied = await send(srv, '/api/v1/import?mode=apply&prune=true', doc, { headers: { 'if-match': `"${plan.body.plan_id}"` } })
    expect(applied.status).toBe(200)
    expect((await api(srv, 'GET', '/api/v1/configs', { token: srv.adminToken })).body.total).toBe(0)
    expect((await api(srv, 'GET', '/api/v1/flags/base', { token: srv.adminToken })).status).toBe(200)
  })

  test('cycles and missing references across the document are plan errors; apply refuses them and writes nothing', async () => {
    const doc = `flagship: 1
flags:
  - key: a
    prerequisites: [{ key: b, value: true }]
  - key: b
    prerequisites: [{ key: c, value: true }]
  - key: c
    prerequisites: [{ key: a, value: true }]
  - key: d
    targeting: { rules: [{ conditions: [{ operator: in_segment, value: nowhere }], value: true }] }
  - key: e
    prerequisites: [{ key: ghost, value: true }]
    environments: { moon: { enabled: true } }
`
    const plan = await send(srv, '/api/v1/import?mode=plan', doc)
    const messages = plan.body.errors.map((e: any) => `${e.path}: ${e.message}`).join('\n')
    expect(messages).toContain('cycle')
    expect(messages).toContain('nowhere')
    expect(messages).toContain('unknown flag "ghost"')
    expect(messages).toContain('flags[4].environments.moon')
    // Each problem points at its line in the text.
    expect(plan.body.errors.find((e: any) => e.path === 'flags[4].environments.moon').line).toBe(13)
    const before = await auditCount(srv)
    const res = await send(srv, '/api/v1/import?mode=apply', doc)
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('VALIDATION_ERROR')
    expect(await auditCount(srv)).toBe(before)
    expect((await api(srv, 'GET', '/api/v1/flags/a', { token: srv.adminToken })).status).toBe(404)
  })
})

describe('hostile documents are refused early, with paths and lines, and change nothing', () => {
  const refused = async (text: string, type = 'application/yaml') => {
    const res = await send(srv, '/api/v1/import?mode=apply', text, { type })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('VALIDATION_ERROR')
    return res.body.details.issues as { path: string; line?: number; message: string }[]
  }
  test('duplicate keys in YAML and in JSON', async () => {
    expect((await refused('flagship: 1\nflags:\n  - key: x\n    enabled: true\n    enabled: false\n'))[0]).toMatchObject({
      line: 5,
      message: expect.stringContaining('unique'),
    })
    expect((await refused('{"flagship": 1,\n "flags": [{"key": "x",\n "key": "y"}]}', 'application/json'))[0]).toEqual({
      path: 'flags[0].key',
      line: 3,
      message: 'duplicate key',
    })
  })
  test('unknown fields, by path and line', async () => {
    const issues = await refused('flagship: 1\nflags:\n  - key: x\n    enabled: true\n    colour: red\n')
    expect(issues).toEqual([{ path: 'flags[0].colour', line: 5, message: 'is not a known field' }])
  })
  test('alias bombs, custom tags, deep nesting', async () => {
    const bomb = [
      'flagship: 1',
      'a: &a ["x","x","x","x","x","x","x","x","x","x"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]',
    ].join('\n')
    expect((await refused(bomb))[0]!.message).toContain('alias')
    expect((await refused('flagship: 1\nflags:\n  - !!js/function "x"\n'))[0]).toMatchObject({ line: 3 })
    expect((await refused('flagship: 1\nproject: !custom x\n'))[0]!.message).toContain('tag')
    expect((await refused(`flagship: 1\nflags: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`))[0]!.message).toContain('deeper')
    expect(
      (await refused(`{"flagship": 1, "flags": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`, 'application/json'))[0]!.message,
    ).toContain('deeper')
  })
  test('a 20 MB scalar is refused by size before parsing; other media types get 415', async () => {
    const res = await send(srv, '/api/v1/import?mode=plan', `flagship: 1\nproject: "${'x'.repeat(20 * 1024 * 1024)}"\n`)
    expect(res.status).toBe(413)
    expect((await send(srv, '/api/v1/import?mode=plan', 'flagship: 1', { type: 'text/plain' })).status).toBe(415)
  })
})

describe('permissions and modes', () => {
  test('export needs read:flags for flags and segments, read:configs for configs; import the matching write permissions', async () => {
    const configsOnly = await createToken(srv, ['read:configs', 'write:configs'])
    expect((await api(srv, 'GET', '/api/v1/export', { token: configsOnly })).status).toBe(403)
    expect((await api(srv, 'GET', '/api/v1/export?kinds=configs', { token: configsOnly })).status).toBe(200)
    expect((await send(srv, '/api/v1/import?mode=plan', 'flagship: 1\nflags: []\n', { token: configsOnly })).status).toBe(403)
    expect((await send(srv, '/api/v1/import?mode=plan', 'flagship: 1\nconfigs: []\n', { token: configsOnly })).status).toBe(200)
    const readFlags = await createToken(srv, ['read:flags'])
    expect((await api(srv, 'GET', '/api/v1/export?kinds=configs', { token: readFlags })).status).toBe(403)
    expect((await send(srv, '/api/v1/import?mode=plan', 'flagship: 1\nflags: []\n', { token: readFlags })).status).toBe(403)
    expect((await api(srv, 'GET', '/api/v1/export', { token: null })).status).toBe(401)
  })
  test('a document with no kinds plans to nothing', async () => {
    const res = await send(srv, '/api/v1/import?mode=plan', 'flagship: 1\n')
    expect(res.status).toBe(200)
    expect(res.body.changes).toEqual([])
  })
  test('mode=propose plans as mode=plan; with nothing to change it opens no change request (200, change_request: null)', async () => {
    const before = (await api(srv, 'GET', '/api/v1/change-requests?limit=1', { token: srv.adminToken })).body.total
    const res = await send(srv, '/api/v1/import?mode=propose', 'flagship: 1\n')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ changes: [], errors: [], change_request: null })
    expect((await api(srv, 'GET', '/api/v1/change-requests?limit=1', { token: srv.adminToken })).body.total).toBe(before)
  })
})
