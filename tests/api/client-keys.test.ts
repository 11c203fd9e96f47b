// Client keys (docs/teams.md "Client keys", edge.md §1) through HTTP: a `client` token, bound to one
// environment, may only evaluate, only flags and configs marked client_side, and its answers carry no
// rules, segments or other environments; every other route is 403 FORBIDDEN. The `client_side` field
// itself: API, history, the document format. Run on SQLite and (TEST_STORE=postgres) PostgreSQL.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { openSse, type SseStream } from '../helpers/sse'

let srv: TestServer
let admin: string
let client: string
const streams: SseStream[] = []

const ctx = (c: unknown) => `?context=${encodeURIComponent(JSON.stringify(c))}`
const bothPaths = async (path: string, token: string) => {
  const fast = await api(srv, 'GET', path, { token })
  const elysia = await api(srv, 'GET', path, { token, headers: { origin: 'https://app.example' } })
  expect({ status: elysia.status, body: elysia.body }).toEqual({ status: fast.status, body: fast.body })
  return fast
}

beforeAll(async () => {
  srv = await startServer()
  admin = srv.adminToken
  const post = (path: string, body: unknown) => api(srv, 'POST', path, { token: admin, body }).then((r) => expect(r.status).toBe(201))
  await post('/api/v1/segments', { key: 'staff', conditions: [{ property: 'email', operator: 'ends_with', value: '@secret.example' }] })
  // Visible to client keys: a rule on a segment, an override for one user, environments.
  await post('/api/v1/flags', {
    key: 'banner',
    enabled: true,
    value: false,
    client_side: true,
    targeting: { rules: [{ conditions: [{ operator: 'in_segment', value: 'staff' }], value: true }], overrides: { 'vip-user': true } },
    environments: { staging: { enabled: false } },
  })
  // Not visible to client keys.
  await post('/api/v1/flags', { key: 'internal', enabled: true, value: 'secret' })
  await post('/api/v1/configs', { key: 'theme', value: 'light', client_side: true, environments: { production: { value: 'dark' } } })
  await post('/api/v1/configs', { key: 'db-pool', value: 10 })
  client = await createToken(srv, ['client'], { environment: 'production' })
})
afterAll(() => {
  streams.forEach((s) => s.close())
  return srv?.stop()
})

describe('creating client keys', () => {
  test('a client key needs an environment, and holds the client permission only', async () => {
    const make = (body: Record<string, unknown>) =>
      api(srv, 'POST', '/api/v1/tokens', { token: admin, body: { name: 'web', project_id: 'default', ...body } })
    const noEnv = await make({ permissions: ['client'] })
    expect([noEnv.status, noEnv.body.details.issues.map((i: { path: string }) => i.path)]).toEqual([400, ['environment']])
    const mixed = await make({ permissions: ['client', 'read:flags'], environment: 'production' })
    expect([mixed.status, mixed.body.details.issues.map((i: { path: string }) => i.path)]).toEqual([400, ['permissions']])
    const ok = await make({ permissions: ['client'], environment: 'production' })
    expect([ok.status, ok.body.meta.permissions, ok.body.meta.environment]).toEqual([201, ['client'], 'production'])
  })
})

describe('what a client key may evaluate', () => {
  test('GET /flags/:key: client_side flags only (others 404 FLAG_NOT_FOUND), in its environment, no rules in the answer', async () => {
    const own = await bothPaths(`/api/v1/flags/banner${ctx({ user_id: 'vip-user' })}`, client)
    expect(own.body).toEqual({ value: true, type: 'boolean', reason: 'override' })
    const other = await bothPaths('/api/v1/flags/banner', client)
    expect(other.body).toEqual({ value: false, type: 'boolean', reason: 'default' })
    const hidden = await bothPaths('/api/v1/flags/internal', client)
    expect([hidden.status, hidden.body.code]).toEqual([404, 'FLAG_NOT_FOUND'])
    // Exactly as an unknown key.
    expect((await bothPaths('/api/v1/flags/nope', client)).body.code).toBe('FLAG_NOT_FOUND')
    const mismatch = await bothPaths(`/api/v1/flags/banner${ctx({ environment: 'staging' })}`, client)
    expect([mismatch.status, mismatch.body.code]).toEqual([403, 'ENVIRONMENT_MISMATCH'])
  })

  test('GET /configs/:key: client_side configs only, in its environment', async () => {
    expect((await bothPaths('/api/v1/configs/theme', client)).body).toEqual({ value: 'dark' })
    const hidden = await bothPaths('/api/v1/configs/db-pool', client)
    expect([hidden.status, hidden.body.code]).toEqual([404, 'CONFIG_NOT_FOUND'])
  })

  test('POST /evaluate leaves out what is not client_side (named ones are missing)', async () => {
    const all = await api(srv, 'POST', '/api/v1/evaluate', { token: client, body: { context: { user_id: 'u1' } } })
    expect(all.body).toEqual({ flags: { banner: false }, configs: { theme: 'dark' }, missing: { flags: [], configs: [] } })
    const named = await api(srv, 'POST', '/api/v1/evaluate', {
      token: client,
      body: { flags: ['banner', 'internal'], configs: ['db-pool'] },
    })
    expect(named.body).toEqual({ flags: { banner: false }, configs: {}, missing: { flags: ['internal'], configs: ['db-pool'] } })
  })

  test('OFREP single (fast path and Elysia) and bulk: client_side flags only, the values for the one context', async () => {
    for (const headers of [{}, { origin: 'https://app.example' }] as Record<string, string>[]) {
      const one = await api(srv, 'POST', '/ofrep/v1/evaluate/flags/banner', {
        token: client,
        headers,
        body: { context: { targetingKey: 'vip-user' } },
      })
      expect(one.body).toEqual({
        key: 'banner',
        value: true,
        reason: 'TARGETING_MATCH',
        variant: 'override',
        metadata: { flagVersion: 1, environment: 'production' },
      })
      const hidden = await api(srv, 'POST', '/ofrep/v1/evaluate/flags/internal', {
        token: client,
        headers,
        body: { context: { targetingKey: 'u1' } },
      })
      expect([hidden.status, hidden.body.errorCode]).toEqual([404, 'FLAG_NOT_FOUND'])
    }
    const bulk = await api(srv, 'POST', '/ofrep/v1/evaluate/flags', { token: client, body: { context: { targetingKey: 'u1' } } })
    expect(bulk.body.flags).toEqual([
      { key: 'banner', value: false, reason: 'DEFAULT', variant: 'default', metadata: { flagVersion: 1, environment: 'production' } },
    ])
    // Nothing of the rules, segments, overrides or other environments.
    for (const secret of ['secret.example', 'staff', 'vip-user', 'staging', 'internal']) expect(bulk.text).not.toContain(secret)
    // Its stream (the ticketed URL in the answer) is open to the key, and tells of changes.
    const s = await openSse(bulk.body.eventStreams[0].url)
    streams.push(s)
    expect(s.status).toBe(200)
    expect((await api(srv, 'PUT', '/api/v1/flags/banner', { token: admin, body: { value: false } })).status).toBe(200)
    expect((await s.next()).data.type).toBe('refetchEvaluation')
    const header = await openSse(`${srv.url}/ofrep/v1/stream`, { authorization: `Bearer ${client}` })
    streams.push(header)
    expect(header.status).toBe(200)
  })
})

describe('everything else is 403 FORBIDDEN for a client key', () => {
  const refused: [string, string, unknown?][] = [
    ['GET', '/api/v1/flags'],
    ['GET', '/api/v1/flags/banner/definition'],
    ['POST', '/api/v1/flags/banner/explain', { context: {} }],
    ['GET', '/api/v1/flags/banner/history'],
    ['GET', '/api/v1/flags/banner/usage'],
    ['POST', '/api/v1/flags', { key: 'x', enabled: true, value: true }],
    ['PUT', '/api/v1/flags/banner', { value: true }],
    ['GET', '/api/v1/configs'],
    ['GET', '/api/v1/configs/theme/definition'],
    ['GET', '/api/v1/segments'],
    ['GET', '/api/v1/segments/staff'],
    ['GET', '/api/v1/definitions'],
    ['GET', '/api/v1/usage'],
    ['POST', '/api/v1/usage', { counts: [] }],
    ['POST', '/api/v1/stream/tickets'],
    ['GET', '/api/v1/export'],
    ['GET', '/api/v1/project'],
    ['GET', '/api/v1/project/environments'],
    ['GET', '/api/v1/me'],
    ['GET', '/api/v1/tokens'],
    ['GET', '/api/v1/audit'],
    ['GET', '/api/v1/change-requests'],
  ]
  for (const [method, path, body] of refused) {
    test(`${method} ${path}`, async () => {
      const res = await api(srv, method, path, { token: client, ...(body !== undefined && { body }) })
      expect([res.status, res.body.code, res.body.details?.client_key]).toEqual([403, 'FORBIDDEN', true])
    })
  }

  test('the change stream (its resource feed)', async () => {
    const s = await openSse(`${srv.url}/api/v1/stream`, { authorization: `Bearer ${client}` })
    streams.push(s)
    expect(s.status).toBe(403)
  })
})

describe('the client_side field', () => {
  test('defaults to absent (false); set and cleared through the API; in history; validated', async () => {
    expect((await api(srv, 'GET', '/api/v1/flags/internal/definition', { token: admin })).body.flag.client_side).toBeUndefined()
    expect((await api(srv, 'PUT', '/api/v1/flags/internal', { token: admin, body: { client_side: true } })).status).toBe(200)
    expect((await bothPaths('/api/v1/flags/internal', client)).body).toMatchObject({ value: 'secret' })
    expect((await api(srv, 'PUT', '/api/v1/flags/internal', { token: admin, body: { client_side: null } })).status).toBe(200)
    expect((await bothPaths('/api/v1/flags/internal', client)).status).toBe(404)
    const history = (await api(srv, 'GET', '/api/v1/flags/internal/history', { token: admin })).body
    expect(history.versions.map((v: { flag: { client_side?: boolean } }) => v.flag.client_side ?? false)).toEqual([false, true, false])
    const bad = await api(srv, 'PUT', '/api/v1/flags/internal', { token: admin, body: { client_side: 'yes' } })
    expect(bad.status).toBe(400)
    expect((await api(srv, 'PUT', '/api/v1/configs/db-pool', { token: admin, body: { client_side: true } })).status).toBe(200)
    expect((await bothPaths('/api/v1/configs/db-pool', client)).body).toEqual({ value: 10 })
    expect((await api(srv, 'GET', '/api/v1/configs/db-pool/definition', { token: admin })).body.config.client_side).toBe(true)
    expect((await api(srv, 'PUT', '/api/v1/configs/db-pool', { token: admin, body: { client_side: false } })).status).toBe(200)
    expect((await bothPaths('/api/v1/configs/db-pool', client)).status).toBe(404)
  })

  test('in the document format: exported, imported, refused when not a boolean', async () => {
    const exported = await api(srv, 'GET', '/api/v1/export?format=json', { token: admin })
    const doc = JSON.parse(exported.text)
    expect(doc.flags.find((f: { key: string }) => f.key === 'banner').client_side).toBe(true)
    expect(doc.configs.find((c: { key: string }) => c.key === 'theme').client_side).toBe(true)
    const yaml =
      'flagship: 1\nflags:\n  - key: from-file\n    enabled: true\n    value: true\n    client_side: true\n' +
      'configs:\n  - key: cfg-file\n    value: 1\n    client_side: true\n'
    const applied = await api(srv, 'POST', '/api/v1/import?mode=apply', {
      token: admin,
      rawBody: yaml,
      headers: { 'content-type': 'application/yaml' },
    })
    expect(applied.status).toBe(200)
    expect((await bothPaths('/api/v1/flags/from-file', client)).body.value).toBe(true)
    expect((await bothPaths('/api/v1/configs/cfg-file', client)).body.value).toBe(1)
    const wrong = await api(srv, 'POST', '/api/v1/import?mode=plan', {
      token: admin,
      rawBody: 'flagship: 1\nconfigs:\n  - key: c2\n    value: 1\n    client_side: "yes"\n',
      headers: { 'content-type': 'application/yaml' },
    })
    expect(wrong.status).toBe(400)
    const schema = await api(srv, 'GET', '/schemas/flagship-v1.json')
    expect(schema.text).toContain('client_side')
  })
})
