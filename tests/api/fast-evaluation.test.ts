// GET /flags/:key and GET /configs/:key are answered ahead of Elysia (server/http/fast-evaluation.ts, picked by path in
// fast-dispatch.ts) when the token is already in memory, and by Elysia otherwise. These tests aim at what that split could
// break: shared, restamped response headers; counting a request exactly once when the fast path hands it
// over; cached callers that expire or are revoked; the cases the fast path must leave to Elysia.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, createToken, startServer, type TestServer } from '../helpers/server'

const LIMIT = 40
let srv: TestServer
let admin: string
const ctx = (c: unknown) => `?context=${encodeURIComponent(JSON.stringify(c))}`
const remaining = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-remaining'))

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMIT_EVALUATION_PER_MINUTE: String(LIMIT) } })
  admin = srv.adminToken
  await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'shared', enabled: true, value: 'on' } })
  await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: 'cfg', value: 1, environments: { staging: { value: 2 } } } })
})
afterAll(() => srv.stop())

describe('evaluation fast path', () => {
  test('responses that share one prepared body still carry each token its own X-RateLimit-Remaining', async () => {
    const a = await createToken(srv, ['read:flags'])
    const b = await createToken(srv, ['read:flags'])
    const seen: Record<string, number[]> = { a: [], b: [] }
    for (const [name, token] of [
      ['a', a],
      ['b', b],
      ['a', a],
      ['a', a],
      ['b', b],
    ] as const) {
      const res = await api(srv, 'GET', '/api/v1/flags/shared', { token })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ value: 'on', type: 'string', reason: 'default' })
      expect(res.headers.get('x-ratelimit-limit')).toBe(String(LIMIT))
      expect(res.headers.get('cache-control')).toBe('private, max-age=10')
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
      seen[name]!.push(remaining(res))
    }
    expect(seen.a).toEqual([LIMIT - 1, LIMIT - 2, LIMIT - 3])
    expect(seen.b).toEqual([LIMIT - 1, LIMIT - 2])
  })

  test('304 carries ETag, Cache-Control and the rate-limit headers, and counts', async () => {
    const token = await createToken(srv, ['read:flags'])
    const first = await api(srv, 'GET', '/api/v1/flags/shared', { token })
    const etag = first.headers.get('etag')!
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await api(srv, 'GET', '/api/v1/flags/shared', { token, headers: { 'if-none-match': ifNoneMatch } })
      expect(res.status).toBe(304)
      expect(res.text).toBe('')
      expect(res.headers.get('etag')).toBe(etag)
      expect(res.headers.get('cache-control')).toBe('private, max-age=10')
      expect(res.headers.get('x-ratelimit-limit')).toBe(String(LIMIT))
    }
    const after = await api(srv, 'GET', '/api/v1/flags/shared', { token, headers: { 'if-none-match': '"stale"' } })
    expect(after.status).toBe(200)
    expect(remaining(after)).toBe(LIMIT - 6)
  })

  test('a request the fast path hands to Elysia (404, bad context) is counted once', async () => {
    const token = await createToken(srv, ['read:flags', 'read:configs'])
    const r1 = await api(srv, 'GET', '/api/v1/flags/shared', { token })
    const missing = await api(srv, 'GET', '/api/v1/flags/missing', { token })
    expect(missing.status).toBe(404)
    expect(missing.body.code).toBe('FLAG_NOT_FOUND')
    const bad = await api(srv, 'GET', `/api/v1/flags/shared?context=${encodeURIComponent('{"user_id": 5}')}`, { token })
    expect(bad.status).toBe(400)
    expect(bad.body.details.issues).toEqual([{ path: 'context.user_id', message: 'must be a string' }])
    const noConfig = await api(srv, 'GET', '/api/v1/configs/missing', { token })
    expect(noConfig.status).toBe(404)
    const r2 = await api(srv, 'GET', '/api/v1/flags/shared', { token })
    expect([remaining(r1), remaining(missing), remaining(bad), remaining(noConfig), remaining(r2)]).toEqual([
      LIMIT - 1,
      LIMIT - 2,
      LIMIT - 3,
      LIMIT - 4,
      LIMIT - 5,
    ])
  })

  test('over the budget: 429 with Retry-After from the fast path, for flags and configs alike', async () => {
    const token = await createToken(srv, ['read:flags', 'read:configs'])
    for (let i = 0; i < LIMIT; i++)
      expect((await api(srv, 'GET', i % 2 ? '/api/v1/flags/shared' : '/api/v1/configs/cfg', { token })).status).toBe(200)
    for (const path of ['/api/v1/flags/shared', '/api/v1/configs/cfg']) {
      const res = await api(srv, 'GET', path, { token })
      expect(res.status).toBe(429)
      expect(res.body).toEqual({ error: 'Rate limit exceeded', code: 'RATE_LIMITED' })
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0')
    }
  })

  test('a token in memory is refused once it expires, and at once when revoked', async () => {
    const expiring = await createToken(srv, ['read:flags'], { expires_at: new Date(Date.now() + 1500).toISOString() })
    expect((await api(srv, 'GET', '/api/v1/flags/shared', { token: expiring })).status).toBe(200)
    await Bun.sleep(1600)
    const expired = await api(srv, 'GET', '/api/v1/flags/shared', { token: expiring })
    expect(expired.status).toBe(401)
    expect(expired.body.code).toBe('TOKEN_EXPIRED')

    const made = await api(srv, 'POST', '/api/v1/tokens', {
      token: admin,
      body: { name: 'revoked', project_id: 'default', permissions: ['read:flags'] },
    })
    const revoked: string = made.body.token
    expect((await api(srv, 'GET', '/api/v1/flags/shared', { token: revoked })).status).toBe(200)
    expect((await api(srv, 'DELETE', `/api/v1/tokens/${made.body.meta.hash}`, { token: admin })).status).toBe(200)
    const after = await api(srv, 'GET', '/api/v1/flags/shared', { token: revoked })
    expect(after.status).toBe(401)
    expect(after.body.code).toBe('UNAUTHORIZED')
  })

  test('a known token without the permission is refused: 403 on each endpoint', async () => {
    const configsOnly = await createToken(srv, ['read:configs'])
    expect((await api(srv, 'GET', '/api/v1/configs/cfg', { token: configsOnly })).status).toBe(200)
    const flag = await api(srv, 'GET', '/api/v1/flags/shared', { token: configsOnly })
    expect(flag.status).toBe(403)
    expect(flag.body.details).toEqual({ required: 'read:flags' })
    const flagsOnly = await createToken(srv, ['read:flags'])
    expect((await api(srv, 'GET', '/api/v1/flags/shared', { token: flagsOnly })).status).toBe(200)
    expect((await api(srv, 'GET', '/api/v1/configs/cfg', { token: flagsOnly })).status).toBe(403)
  })

  test('malformed or missing Authorization: 401 as before', async () => {
    for (const authorization of ['Bearer', 'Basic abc', `Bearer ${admin} extra`, 'Bearer ff_defa_unknown000000000000000']) {
      const res = await api(srv, 'GET', '/api/v1/flags/shared', { headers: { authorization } })
      expect(res.status).toBe(401)
      expect(res.body.code).toBe('UNAUTHORIZED')
      expect(res.headers.get('x-ratelimit-limit')).toBeNull()
    }
    expect((await api(srv, 'GET', '/api/v1/flags/shared')).status).toBe(401)
  })

  test('HEAD and other methods keep their answers; a percent-encoded key is the same key', async () => {
    const head = await fetch(`${srv.url}/api/v1/flags/shared`, { method: 'HEAD', headers: { authorization: `Bearer ${admin}` } })
    expect(head.status).toBe(405)
    expect(head.headers.get('allow')!.split(', ').sort()).toEqual(['DELETE', 'GET', 'PUT'])
    const configHead = await fetch(`${srv.url}/api/v1/configs/cfg`, { method: 'HEAD', headers: { authorization: `Bearer ${admin}` } })
    expect(configHead.status).toBe(405)
    expect(configHead.headers.get('allow')!.split(', ').sort()).toEqual(['DELETE', 'GET', 'PUT'])
    const patch = await api(srv, 'PATCH', '/api/v1/configs/cfg', { token: admin, body: {} })
    expect(patch.status).toBe(405)
    const encoded = await api(srv, 'GET', '/api/v1/flags/%73hared', { token: admin })
    expect(encoded.status).toBe(200)
    expect(encoded.body.value).toBe('on')
  })

  const CONFIG_CASES =
    'configs: the environment override, the base value for none, an unknown name refused, ' + 'repeated parameters as Elysia reads them'
  test(CONFIG_CASES, async () => {
    const token = await createToken(srv, ['read:configs'])
    const value = async (query: string) => (await api(srv, 'GET', `/api/v1/configs/cfg${query}`, { token })).body.value
    expect(await value('')).toBe(1)
    expect(await value('?environment=staging')).toBe(2)
    expect(await value('?environment=production')).toBe(1)
    const unknown = await api(srv, 'GET', '/api/v1/configs/cfg?environment=constructor', { token })
    expect([unknown.status, unknown.body.code, unknown.body.details]).toEqual([
      400,
      'UNKNOWN_ENVIRONMENT',
      { environment: 'constructor', known: ['development', 'staging', 'production'] },
    ])
    expect(await value('?environment=')).toBe(1)
    // A change is served on the next request.
    expect((await api(srv, 'PUT', '/api/v1/configs/cfg/environments/staging', { token: admin, body: { value: 3 } })).status).toBe(200)
    expect(await value('?environment=staging')).toBe(3)
  })

  test('every query answers alike whether the fast path serves it or Elysia does', async () => {
    // A GET carrying Origin (a browser's) is never taken by the fast path, so it shows Elysia's answer.
    // A token per resource: each stays inside its evaluation budget of LIMIT requests a minute.
    const tokens = { configs: await createToken(srv, ['read:configs']), flags: await createToken(srv, ['read:flags']) }
    const both = async (path: string) => {
      const token = path.startsWith('/api/v1/configs') ? tokens.configs : tokens.flags
      const fast = await api(srv, 'GET', path, { token })
      const elysia = await api(srv, 'GET', path, { token, headers: { origin: 'https://app.example' } })
      const view = (r: typeof fast) => ({
        status: r.status,
        body: r.text,
        etag: r.headers.get('etag'),
        cache: r.headers.get('cache-control'),
      })
      expect({ path, ...view(fast) }).toEqual({ path, ...view(elysia) })
      return fast.status
    }
    const statuses = []
    for (const query of [
      '',
      '?environment=staging',
      '?environment=',
      '?environment=production',
      '?foo=1',
      '?environment=staging&foo=1',
      '?Environment=staging',
      '?%65nvironment=staging',
      '?environment=staging&environment=production',
      '?environment=staging&environment',
      '?environment[]=staging',
      '?environment=%E0',
      '?environment=stag%69ng',
      '?environment=a+b',
      '?',
    ]) {
      statuses.push(await both(`/api/v1/configs/cfg${query}`))
    }
    expect(statuses).toContain(400)
    for (const query of [
      '',
      ctx({ plan: 'pro' }),
      `${ctx({ plan: 'pro' })}&context=x`,
      `?x=1&${ctx({ user_id: 'u' }).slice(1)}`,
      '?context=',
      '?context=%7B%7D',
      '?context=null',
      '?context=%E0',
      '?context=[]',
    ]) {
      await both(`/api/v1/flags/shared${query}`)
    }
  })

  test('the same context text evaluates the same; a flag change shows on the next request', async () => {
    await api(srv, 'POST', '/api/v1/flags', {
      token: admin,
      body: {
        key: 'plans',
        enabled: true,
        value: false,
        targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: true }] },
      },
    })
    const token = await createToken(srv, ['read:flags'])
    const get = async (c: unknown) => (await api(srv, 'GET', `/api/v1/flags/plans${ctx(c)}`, { token })).body
    for (let i = 0; i < 3; i++) {
      expect(await get({ plan: 'pro' })).toEqual({ value: true, type: 'boolean', reason: 'targeting' })
      expect(await get({ plan: 'free' })).toEqual({ value: false, type: 'boolean', reason: 'default' })
    }
    // `+` in a query value is a space, as form encoding writes it.
    const plus = await api(srv, 'GET', `/api/v1/flags/plans?context=${encodeURIComponent('{"plan":"pro"}').replace('%3A', ':')}+`, {
      token,
    })
    expect(plus.body.reason).toBe('targeting')
    await api(srv, 'PUT', '/api/v1/flags/plans', { token: admin, body: { enabled: false } })
    expect(await get({ plan: 'pro' })).toEqual({ value: false, type: 'boolean', reason: 'disabled' })
  })

  // Repeated requests are answered from a memo (server/http/flag-answers.ts): these make sure a remembered
  // answer never outlives what it was computed from.
  test("an environment key's repeated request follows a change to its environment's own rules", async () => {
    await api(srv, 'POST', '/api/v1/flags', {
      token: admin,
      body: {
        key: 'own-memo',
        enabled: true,
        value: 'flag',
        environments: {
          production: {
            enabled: true,
            targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: 'pro' }] },
          },
        },
      },
    })
    const token = await createToken(srv, ['read:flags'], { environment: 'production' })
    const get = async () => (await api(srv, 'GET', `/api/v1/flags/own-memo${ctx({ plan: 'pro' })}`, { token })).body
    for (let i = 0; i < 3; i++) expect(await get()).toEqual({ value: 'pro', type: 'string', reason: 'targeting' })
    await api(srv, 'PUT', '/api/v1/flags/own-memo', {
      token: admin,
      body: {
        environments: {
          production: {
            enabled: true,
            targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: 'pro-2' }] },
          },
        },
      },
    })
    expect(await get()).toEqual({ value: 'pro-2', type: 'string', reason: 'targeting' })
  })

  test('a repeated request sees an activity window end, with no change to the flag', async () => {
    const until = Date.now() + 3000
    await api(srv, 'POST', '/api/v1/flags', {
      token: admin,
      body: { key: 'window-memo', enabled: true, value: true, active_until: new Date(until).toISOString() },
    })
    const token = await createToken(srv, ['read:flags'])
    const get = async () => (await api(srv, 'GET', `/api/v1/flags/window-memo${ctx({ plan: 'pro' })}`, { token })).body
    for (let i = 0; i < 3; i++) expect(await get()).toEqual({ value: true, type: 'boolean', reason: 'default' })
    await Bun.sleep(Math.max(0, until - Date.now()) + 50)
    expect(await get()).toEqual({ value: false, type: 'boolean', reason: 'disabled' })
  })
})
