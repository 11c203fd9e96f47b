// Offline mode (docs/as-code.md): FLAGS_FILE makes the project's flags, configs and segments read-only for
// every credential — a machine token, a person's session, a personal token — on every route that writes
// them (decided once, from the route's declaration), whatever way the query is spelled; other projects,
// reads, plans and tokens are unaffected.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { api, startServer, type TestServer } from '../helpers/server'
import { sapi, setupOwner } from '../helpers/teams'
import { tempDir } from '../helpers/temp'

const file = join(tempDir(), 'flags.yaml')
const DOC = `flagship: 1
segments:
  - key: staff
    conditions: [{ property: plan, operator: equals, value: staff }]
flags:
  - key: banner
    enabled: true
    value: blue
configs:
  - key: limits
    value: 10
`
const YAML = { 'content-type': 'application/yaml' }
const IMPORTED = 'flagship: 1\nflags:\n  - key: smuggled\n    enabled: true\n'

let srv: TestServer
let owner: string
let personal: string
beforeAll(async () => {
  writeFileSync(file, DOC)
  srv = await startServer({ env: { FLAGS_FILE: file, FLAGS_FILE_POLL_MS: '50' } })
  owner = await setupOwner(srv)
  const made = await sapi(srv, 'POST', '/api/v1/me/tokens', {
    cookie: owner,
    body: { name: 'mine', project: 'default', permissions: ['*'] },
  })
  expect(made.status).toBe(201)
  personal = made.body.token
})
afterAll(() => srv.stop())

/** The same request as a machine token, as a session and as a personal token. */
const asEach = (method: string, path: string, opts: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}) =>
  Promise.all([
    api(srv, method, path, { token: srv.adminToken, ...opts }),
    sapi(srv, method, path, { cookie: owner, project: 'default', ...opts }),
    api(srv, method, path, { token: personal, ...opts }),
  ])

describe('offline mode refuses every write, for every credential', () => {
  test('flag, config and segment writes, schedules, archive and rollback, import apply and propose, promote: 405 READ_ONLY', async () => {
    const writes: [string, string, { body?: unknown; rawBody?: string; headers?: Record<string, string> }][] = [
      ['POST', '/api/v1/flags', { body: { key: 'x', enabled: true } }],
      ['PUT', '/api/v1/flags/banner', { body: { enabled: false } }],
      ['PUT', '/api/v1/flags/banner/environments/production', { body: { enabled: false } }],
      ['POST', '/api/v1/flags/banner/archive', {}],
      ['POST', '/api/v1/flags/banner/turn-off', {}],
      ['POST', '/api/v1/flags/banner/rollback', { body: { version: 1 } }],
      [
        'POST',
        '/api/v1/flags/banner/schedules',
        { body: { at: new Date(Date.now() + 3_600_000).toISOString(), changes: { enabled: false } } },
      ],
      ['POST', '/api/v1/configs', { body: { key: 'c', value: 1 } }],
      ['DELETE', '/api/v1/configs/limits', {}],
      ['POST', '/api/v1/segments', { body: { key: 's', conditions: [] } }],
      ['POST', '/api/v1/promote', { body: { from: 'staging', to: 'production' } }],
      ['POST', '/api/v1/import?mode=apply', { rawBody: IMPORTED, headers: YAML }],
      ['POST', '/api/v1/import?mode=propose', { rawBody: IMPORTED, headers: YAML }],
      // The query's names decoded as the framework decodes them for the handler.
      ['POST', '/api/v1/import?%6Dode=apply', { rawBody: IMPORTED, headers: YAML }],
      ['POST', '/api/v1/import?m%6fde=%61pply', { rawBody: IMPORTED, headers: YAML }],
    ]
    const seen: unknown[] = []
    for (const [method, path, opts] of writes) {
      const [token, session, pat] = await asEach(method, path, opts)
      seen.push({
        method,
        path,
        token: `${token.status} ${token.body?.code}`,
        session: `${session.status} ${session.body?.code}`,
        personal: `${pat.status} ${pat.body?.code}`,
      })
    }
    expect(seen).toEqual(
      writes.map(([method, path]) => ({ method, path, token: '405 READ_ONLY', session: '405 READ_ONLY', personal: '405 READ_ONLY' })),
    )
    // A repeated name is no way around it either (refused before anything is decided).
    for (const r of await asEach('POST', '/api/v1/import?mode=plan&mode=apply', { rawBody: IMPORTED, headers: YAML }))
      expect(r.status).toBeGreaterThanOrEqual(400)
    // Nothing was written.
    const flags = (await api(srv, 'GET', '/api/v1/definitions', { token: srv.adminToken })).body.flags.map((f: { key: string }) => f.key)
    expect(flags).toEqual(['banner'])
  })

  test('applying a change request is refused; opening one is not a write', async () => {
    const cr = await sapi(srv, 'POST', '/api/v1/change-requests', {
      cookie: owner,
      project: 'default',
      body: {
        title: 'new flag',
        items: [{ resource_type: 'flag', key: 'via-cr', action: 'create', body: { key: 'via-cr', enabled: true } }],
      },
    })
    expect(cr.status).toBe(201)
    const applied = await asEach('POST', `/api/v1/change-requests/${cr.body.id}/apply`, { body: {} })
    expect(applied.map((r) => `${r.status} ${r.body?.code}`)).toEqual(['405 READ_ONLY', '405 READ_ONLY', '405 READ_ONLY'])
    expect((await api(srv, 'GET', '/api/v1/flags/via-cr/definition', { token: srv.adminToken })).status).toBe(404)
  })

  test('reads, plans, explain, evaluation and tokens still work', async () => {
    for (const r of await asEach('POST', '/api/v1/import?mode=plan', { rawBody: IMPORTED, headers: YAML })) expect(r.status).toBe(200)
    for (const r of await asEach('POST', '/api/v1/import', { rawBody: IMPORTED, headers: YAML })) expect(r.status).toBe(200)
    for (const r of await asEach('POST', '/api/v1/flags/banner/explain', { body: { context: {} } })) expect(r.status).toBe(200)
    for (const r of await asEach('POST', '/api/v1/evaluate', { body: { context: {}, flags: ['banner'] } })) expect(r.status).toBe(200)
    expect(
      (
        await sapi(srv, 'POST', '/api/v1/tokens', {
          cookie: owner,
          project: 'default',
          body: { name: 'reader', project_id: 'default', permissions: ['read:flags'] },
        })
      ).status,
    ).toBe(201)
  })

  test('another project of the same server is writable', async () => {
    const made = await sapi(srv, 'POST', '/api/v1/projects', { cookie: owner, body: { name: 'Other', slug: 'other' } })
    expect(made.status).toBe(201)
    const created = await sapi(srv, 'POST', '/api/v1/flags', { cookie: owner, project: 'other', body: { key: 'free', enabled: true } })
    expect(created.status).toBe(201)
    const applied = await sapi(srv, 'POST', '/api/v1/import?%6Dode=apply', {
      cookie: owner,
      project: 'other',
      rawBody: IMPORTED,
      headers: YAML,
    })
    expect(applied.status).toBe(200)
  })
})
