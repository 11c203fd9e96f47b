// Keys bound to one environment (docs/teams.md "Environment keys", environments.md §2) through HTTP: every
// evaluation surface runs in the key's environment, refuses another (403 ENVIRONMENT_MISMATCH) and an
// unknown one (400 UNKNOWN_ENVIRONMENT, for every token); definitions and the stream carry only the key's
// environment; write rights are limited to it; deleting the environment is 409 IN_USE unless forced.
// Run on SQLite and (TEST_STORE=postgres) PostgreSQL.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { openSse, type SseStream } from '../helpers/sse'

let srv: TestServer
let admin: string
/** read:flags + read:configs, bound to production */
let prod: string
/** the same, bound to staging, with write rights too */
let stagingWriter: string
/** an ordinary read token (no environment) */
let reader: string
const streams: SseStream[] = []

const ctx = (c: unknown) => `?context=${encodeURIComponent(JSON.stringify(c))}`
/** The fast path serves a GET without Origin; a browser's (with one) takes Elysia's path. Both must answer alike. */
const bothPaths = async (path: string, token: string) => {
  const fast = await api(srv, 'GET', path, { token })
  const elysia = await api(srv, 'GET', path, { token, headers: { origin: 'https://app.example' } })
  expect({ status: elysia.status, body: elysia.body }).toEqual({ status: fast.status, body: fast.body })
  return fast
}
const ofrep = async (path: string, token: string, body: unknown, headers: Record<string, string> = {}) =>
  api(srv, 'POST', path, { token, body, headers })

beforeAll(async () => {
  srv = await startServer()
  admin = srv.adminToken
  const post = (path: string, body: unknown) => api(srv, 'POST', path, { token: admin, body }).then((r) => expect(r.status).toBe(201))
  // On in general, off in production; staging has its own value.
  await post('/api/v1/flags', {
    key: 'checkout',
    enabled: true,
    value: 'base',
    environments: { production: { enabled: false }, staging: { enabled: true, value: 'staging' } },
  })
  await post('/api/v1/configs', { key: 'limits', value: 1, environments: { production: { value: 100 }, staging: { value: 10 } } })
  prod = await createToken(srv, ['read:flags', 'read:configs'], { environment: 'production' })
  stagingWriter = await createToken(srv, ['read:flags', 'read:configs', 'write:flags'], { environment: 'staging' })
  reader = await createToken(srv, ['read:flags', 'read:configs'])
})
afterAll(() => {
  streams.forEach((s) => s.close())
  return srv?.stop()
})

describe('creating environment keys', () => {
  test('the key names its environment; its write scope is that environment (listed, and in /me)', async () => {
    const created = await api(srv, 'POST', '/api/v1/tokens', {
      token: admin,
      body: { name: 'web prod', project_id: 'default', permissions: ['read:flags'], environment: 'production' },
    })
    expect(created.status).toBe(201)
    expect(created.body.meta).toMatchObject({ environment: 'production', environments: ['production'] })
    const listed = (await api(srv, 'GET', '/api/v1/tokens', { token: admin })).body.tokens.find(
      (t: { name: string }) => t.name === 'web prod',
    )
    expect(listed).toMatchObject({ environment: 'production', environments: ['production'] })
    const me = await api(srv, 'GET', '/api/v1/me', { token: created.body.token })
    expect(me.body).toMatchObject({ environment: 'production' })
  })

  test("an unknown environment, or an environments scope other than the key's: 400, nothing created", async () => {
    const before = (await api(srv, 'GET', '/api/v1/tokens', { token: admin })).body.total
    const make = (body: Record<string, unknown>) =>
      api(srv, 'POST', '/api/v1/tokens', { token: admin, body: { name: 'x', project_id: 'default', permissions: ['read:flags'], ...body } })
    const unknown = await make({ environment: 'prod' })
    expect([unknown.status, unknown.body.code, unknown.body.details.issues[0].path]).toEqual([400, 'VALIDATION_ERROR', 'environment'])
    const other = await make({ environment: 'production', environments: ['staging'] })
    expect([other.status, other.body.details.issues[0].path]).toEqual([400, 'environments'])
    const more = await make({ environment: 'production', environments: ['production', 'staging'] })
    expect(more.status).toBe(400)
    // The same one is allowed (it says what the key is anyway).
    expect((await make({ environment: 'production', environments: ['production'] })).status).toBe(201)
    expect((await api(srv, 'GET', '/api/v1/tokens', { token: admin })).body.total).toBe(before + 1)
  })
})

describe("every evaluation surface runs in the key's environment", () => {
  test("GET /flags/:key (fast path and Elysia): the key's environment fills a context without one; naming it is fine", async () => {
    expect((await bothPaths('/api/v1/flags/checkout', prod)).body).toMatchObject({ value: null, reason: 'disabled' })
    expect((await bothPaths(`/api/v1/flags/checkout${ctx({ user_id: 'u1' })}`, prod)).body).toMatchObject({ reason: 'disabled' })
    expect((await bothPaths(`/api/v1/flags/checkout${ctx({ environment: 'production' })}`, prod)).body).toMatchObject({
      reason: 'disabled',
    })
    expect((await bothPaths('/api/v1/flags/checkout', stagingWriter)).body).toMatchObject({ value: 'staging' })
    // A key bound to none: as before, the main switch without an environment.
    expect((await bothPaths('/api/v1/flags/checkout', reader)).body).toMatchObject({ value: 'base' })
  })

  test('GET /flags/:key naming another environment, listed or not: 403 ENVIRONMENT_MISMATCH', async () => {
    for (const requested of ['staging', 'prod']) {
      const res = await bothPaths(`/api/v1/flags/checkout${ctx({ environment: requested })}`, prod)
      expect([res.status, res.body.code, res.body.details]).toEqual([
        403,
        'ENVIRONMENT_MISMATCH',
        { key_environment: 'production', requested },
      ])
    }
  })

  test('an unknown environment is 400 UNKNOWN_ENVIRONMENT for any token, never the main switch', async () => {
    const res = await bothPaths(`/api/v1/flags/checkout${ctx({ environment: 'prod' })}`, reader)
    expect([res.status, res.body.code, res.body.details]).toEqual([
      400,
      'UNKNOWN_ENVIRONMENT',
      { environment: 'prod', known: ['development', 'staging', 'production'] },
    ])
    const bulk = await api(srv, 'POST', '/api/v1/evaluate', { token: reader, body: { context: { environment: 'prod' } } })
    expect([bulk.status, bulk.body.code, bulk.body.details.known]).toEqual([
      400,
      'UNKNOWN_ENVIRONMENT',
      ['development', 'staging', 'production'],
    ])
    const config = await bothPaths('/api/v1/configs/limits?environment=prod', reader)
    expect([config.status, config.body.code]).toEqual([400, 'UNKNOWN_ENVIRONMENT'])
    for (const path of ['/ofrep/v1/evaluate/flags/checkout', '/ofrep/v1/evaluate/flags']) {
      const o = await ofrep(path, reader, { context: { targetingKey: 'u1', environment: 'prod' } })
      expect([o.status, o.body.errorCode]).toEqual([400, 'INVALID_CONTEXT'])
      expect(o.body.errorDetails).toContain('UNKNOWN_ENVIRONMENT')
    }
    // A listed one, and none at all, answer as before.
    expect((await bothPaths(`/api/v1/flags/checkout${ctx({ environment: 'staging' })}`, reader)).body.value).toBe('staging')
    expect((await bothPaths('/api/v1/configs/limits', reader)).body).toEqual({ value: 1 })
  })

  test("POST /evaluate: the key's environment; another is 403", async () => {
    const ok = await api(srv, 'POST', '/api/v1/evaluate', { token: prod, body: { context: { user_id: 'u1' } } })
    expect(ok.body).toMatchObject({ flags: { checkout: null }, configs: { limits: 100 } })
    const staging = await api(srv, 'POST', '/api/v1/evaluate', { token: stagingWriter, body: {} })
    expect(staging.body).toMatchObject({ flags: { checkout: 'staging' }, configs: { limits: 10 } })
    const other = await api(srv, 'POST', '/api/v1/evaluate', { token: prod, body: { context: { environment: 'staging' } } })
    expect([other.status, other.body.code, other.body.details]).toEqual([
      403,
      'ENVIRONMENT_MISMATCH',
      { key_environment: 'production', requested: 'staging' },
    ])
  })

  test("OFREP single (fast path and Elysia) and bulk: the key's environment in the answer; another is 403 in OFREP's shape", async () => {
    for (const headers of [{}, { origin: 'https://app.example' }] as Record<string, string>[]) {
      const one = await ofrep('/ofrep/v1/evaluate/flags/checkout', prod, { context: { targetingKey: 'u1' } }, headers)
      expect(one.body).toMatchObject({ key: 'checkout', reason: 'DISABLED', metadata: { environment: 'production' } })
      const empty = await api(srv, 'POST', '/ofrep/v1/evaluate/flags/checkout', { token: prod, headers })
      expect(empty.body).toMatchObject({ key: 'checkout', reason: 'DISABLED', metadata: { environment: 'production' } })
      const other = await ofrep(
        '/ofrep/v1/evaluate/flags/checkout',
        prod,
        { context: { targetingKey: 'u1', environment: 'staging' } },
        headers,
      )
      expect([other.status, other.body.key, other.body.errorCode]).toEqual([403, 'checkout', 'INVALID_CONTEXT'])
      expect(other.body.errorDetails).toContain('ENVIRONMENT_MISMATCH')
    }
    const bulk = await ofrep('/ofrep/v1/evaluate/flags', stagingWriter, { context: { targetingKey: 'u1' } })
    expect(bulk.body.flags).toContainEqual(
      expect.objectContaining({ key: 'checkout', value: 'staging', metadata: { flagVersion: 1, environment: 'staging' } }),
    )
    const refused = await ofrep('/ofrep/v1/evaluate/flags', prod, { context: { targetingKey: 'u1', environment: 'staging' } })
    expect([refused.status, refused.body.errorCode]).toEqual([403, 'INVALID_CONTEXT'])
  })

  test("GET /configs/:key serves the key's environment; another is 403", async () => {
    expect((await bothPaths('/api/v1/configs/limits', prod)).body).toEqual({ value: 100 })
    expect((await bothPaths('/api/v1/configs/limits?environment=production', prod)).body).toEqual({ value: 100 })
    const other = await bothPaths('/api/v1/configs/limits?environment=staging', prod)
    expect([other.status, other.body.code, other.body.details]).toEqual([
      403,
      'ENVIRONMENT_MISMATCH',
      { key_environment: 'production', requested: 'staging' },
    ])
  })
})

describe('definitions and the stream of an environment key', () => {
  test("/definitions carries only the key's environment's overrides; naming another is 403", async () => {
    const res = await api(srv, 'GET', '/api/v1/definitions', { token: prod })
    expect(res.status).toBe(200)
    const flag = res.body.flags.find((f: { key: string }) => f.key === 'checkout')
    expect(flag.environments).toEqual({ production: { enabled: false } })
    expect(res.body.configs.find((c: { key: string }) => c.key === 'limits').environments).toEqual({ production: { value: 100 } })
    expect(res.text).not.toContain('"staging":')
    const other = await api(srv, 'GET', '/api/v1/definitions?environment=staging', { token: prod })
    expect([other.status, other.body.code]).toEqual([403, 'ENVIRONMENT_MISMATCH'])
    // An ordinary token still sees every environment.
    const all = (await api(srv, 'GET', '/api/v1/definitions', { token: reader })).body.flags.find(
      (f: { key: string }) => f.key === 'checkout',
    )
    expect(Object.keys(all.environments).sort()).toEqual(['production', 'staging'])
  })

  test('the change stream leaves out changes made to other environments only', async () => {
    const s = await openSse(`${srv.url}/api/v1/stream`, { authorization: `Bearer ${prod}` })
    streams.push(s)
    await s.next((e) => e.event === 'ready')
    expect(
      (await api(srv, 'PUT', '/api/v1/flags/checkout/environments/staging', { token: admin, body: { enabled: true, value: 'staging-2' } }))
        .status,
    ).toBe(200)
    expect(
      (await api(srv, 'PUT', '/api/v1/flags/checkout/environments/production', { token: admin, body: { enabled: true, value: 'prod' } }))
        .status,
    ).toBe(200)
    expect((await api(srv, 'PUT', '/api/v1/flags/checkout', { token: admin, body: { description: 'all' } })).status).toBe(200)
    const first = await s.next((e) => e.event === 'change')
    const second = await s.next((e) => e.event === 'change')
    expect([first.data.environment, second.data.environment]).toEqual(['production', ''])
    expect(s.events.filter((e) => e.event === 'change' && e.data.environment === 'staging')).toEqual([])
    // The OFREP stream alike.
    const o = await openSse(`${srv.url}/ofrep/v1/stream`, { authorization: `Bearer ${prod}` })
    streams.push(o)
    expect(
      (await api(srv, 'PUT', '/api/v1/flags/checkout/environments/staging', { token: admin, body: { enabled: true, value: 'staging-3' } }))
        .status,
    ).toBe(200)
    expect(
      (await api(srv, 'PUT', '/api/v1/flags/checkout/environments/production', { token: admin, body: { enabled: false } })).status,
    ).toBe(200)
    const refetch = await o.next()
    const head = (await api(srv, 'GET', '/api/v1/definitions', { token: admin })).body.version
    expect(refetch.id).toBe(String(head))
  })
})

describe('write rights of an environment key', () => {
  test('changes affecting only its environment are allowed; others are 403 ENVIRONMENT_FORBIDDEN', async () => {
    const own = await api(srv, 'PUT', '/api/v1/flags/checkout/environments/staging', { token: stagingWriter, body: { enabled: false } })
    expect(own.status).toBe(200)
    const other = await api(srv, 'PUT', '/api/v1/flags/checkout/environments/production', { token: stagingWriter, body: { enabled: true } })
    expect([other.status, other.body.code, other.body.details.environments]).toEqual([403, 'ENVIRONMENT_FORBIDDEN', ['production']])
    const everywhere = await api(srv, 'PUT', '/api/v1/flags/checkout', { token: stagingWriter, body: { description: 'nope' } })
    expect([everywhere.status, everywhere.body.code]).toEqual([403, 'ENVIRONMENT_FORBIDDEN'])
    const create = await api(srv, 'POST', '/api/v1/flags', { token: stagingWriter, body: { key: 'new-one', enabled: true, value: true } })
    expect(create.status).toBe(403)
    expect((await api(srv, 'GET', '/api/v1/flags/new-one/definition', { token: admin })).status).toBe(404)
  })
})

describe('deleting an environment keys are bound to', () => {
  test('409 IN_USE naming the keys; ?force=true revokes them in the same change, audited', async () => {
    expect((await api(srv, 'POST', '/api/v1/project/environments', { token: admin, body: { name: 'qa' } })).status).toBe(201)
    const qa = await api(srv, 'POST', '/api/v1/tokens', {
      token: admin,
      body: { name: 'qa key', project_id: 'default', permissions: ['read:flags'], environment: 'qa' },
    })
    expect(qa.status).toBe(201)
    expect((await bothPaths('/api/v1/flags/checkout', qa.body.token)).status).toBe(200)

    const refused = await api(srv, 'DELETE', '/api/v1/project/environments/qa', { token: admin })
    expect([refused.status, refused.body.code, refused.body.details.tokens]).toEqual([
      409,
      'IN_USE',
      [{ name: 'qa key', token_prefix: qa.body.meta.token_prefix }],
    ])
    expect((await api(srv, 'GET', '/api/v1/project/environments', { token: admin })).body.environments).toContain('qa')
    expect((await bothPaths('/api/v1/flags/checkout', qa.body.token)).status).toBe(200)

    const forced = await api(srv, 'DELETE', '/api/v1/project/environments/qa?force=true', { token: admin })
    expect(forced.status).toBe(200)
    expect(forced.body.environments).not.toContain('qa')
    expect((await api(srv, 'GET', '/api/v1/flags/checkout', { token: qa.body.token })).status).toBe(401)
    const audit = await api(srv, 'GET', '/api/v1/audit?resource_type=token', { token: admin })
    const entry = audit.body.entries.find(
      (e: { resource_key: string; action: string }) => e.resource_key === qa.body.meta.token_prefix && e.action === 'delete',
    )
    expect(entry).toBeDefined()
    expect(JSON.stringify(audit.body)).not.toContain(qa.body.token)
  })
})

describe('explain and personal environment keys', () => {
  test("explain runs in the key's environment; another is 403, an unknown one 400", async () => {
    const own = await api(srv, 'POST', '/api/v1/flags/checkout/explain', { token: prod, body: { context: { user_id: 'u1' } } })
    expect(own.status).toBe(200)
    expect(own.body.trace[0]).toMatchObject({ step: 'environment_override' })
    const other = await api(srv, 'POST', '/api/v1/flags/checkout/explain', { token: prod, body: { context: { environment: 'staging' } } })
    expect([other.status, other.body.code]).toEqual([403, 'ENVIRONMENT_MISMATCH'])
    const unknown = await api(srv, 'POST', '/api/v1/flags/checkout/explain', { token: reader, body: { context: { environment: 'prod' } } })
    expect([unknown.status, unknown.body.code]).toEqual([400, 'UNKNOWN_ENVIRONMENT'])
  })

  test('a token limited to staging cannot make a production key (nor one bound to none)', async () => {
    const scoped = await createToken(srv, ['*'], { environments: ['staging'] })
    const make = (body: Record<string, unknown>) =>
      api(srv, 'POST', '/api/v1/tokens', {
        token: scoped,
        body: { name: 'k', project_id: 'default', permissions: ['read:flags'], ...body },
      })
    // An admin action counts as affecting every environment, so a scoped token makes no tokens at all.
    expect((await make({ environment: 'production' })).status).toBe(403)
    expect((await make({ environment: 'staging' })).status).toBe(403)
  })
})
