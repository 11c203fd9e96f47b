// Evaluation over HTTP (docs/behaviour.md §5, §7): freshness after writes, bulk evaluation, ETag/304 per
// context and the evaluation rate-limit class, on the real server. (Operators, reasons, rollout vectors:
// evaluation.test.ts.)
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { evaluationHelpers } from './evaluation-helpers'

let srv: TestServer
let admin: string
beforeAll(async () => {
  srv = await startServer()
  admin = srv.adminToken
})
afterAll(() => srv.stop())

const { ok, createFlag, updateFlag, createSegment, evaluateRaw, evaluate, bulk, oneRule } = evaluationHelpers(() => srv)

describe('changes are visible on the very next request', () => {
  test('flag updates and deletes', async () => {
    await createFlag({ key: 'fresh', enabled: true, value: 'one' })
    expect((await evaluate('fresh')).value).toBe('one')
    for (const value of ['two', 'three', 'four']) {
      await updateFlag('fresh', { value })
      expect((await evaluate('fresh')).value).toBe(value)
      expect((await bulk({ flags: ['fresh'] })).body.flags.fresh).toBe(value)
    }
    await updateFlag('fresh', { enabled: false })
    expect((await evaluate('fresh')).reason).toBe('disabled')
    ok(await api(srv, 'DELETE', '/api/v1/flags/fresh', { token: admin }), 200)
    const gone = await evaluateRaw('fresh')
    expect(gone.status).toBe(404)
    expect(gone.body.code).toBe('FLAG_NOT_FOUND')
    expect((await bulk({ flags: ['fresh'] })).body.missing.flags).toEqual(['fresh'])
  })

  test('a segment change re-targets the flags that use it', async () => {
    await createSegment('fresh-seg', [{ property: 'plan', operator: 'equals', value: 'pro' }])
    await createFlag({
      key: 'fresh-seg-flag',
      enabled: true,
      value: 'out',
      targeting: { rules: [{ conditions: [{ property: 'user_id', operator: 'in_segment', value: 'fresh-seg' }], value: 'in' }] },
    })
    expect((await evaluate('fresh-seg-flag', { plan: 'pro' })).value).toBe('in')
    expect((await evaluate('fresh-seg-flag', { plan: 'team' })).value).toBe('out')
    ok(
      await api(srv, 'PUT', '/api/v1/segments/fresh-seg', {
        token: admin,
        body: { conditions: [{ property: 'plan', operator: 'equals', value: 'team' }] },
      }),
      200,
    )
    expect((await evaluate('fresh-seg-flag', { plan: 'pro' })).value).toBe('out')
    expect((await evaluate('fresh-seg-flag', { plan: 'team' })).value).toBe('in')
    expect((await bulk({ context: { plan: 'team' }, flags: ['fresh-seg-flag'] })).body.flags['fresh-seg-flag']).toBe('in')
  })

  test('config updates and environment overrides', async () => {
    ok(await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: 'fresh-cfg', value: { n: 1 } } }))
    ok(await api(srv, 'PUT', '/api/v1/configs/fresh-cfg', { token: admin, body: { value: { n: 2 } } }), 200)
    expect((await api(srv, 'GET', '/api/v1/configs/fresh-cfg', { token: admin })).body).toEqual({ value: { n: 2 } })
    ok(await api(srv, 'PUT', '/api/v1/configs/fresh-cfg/environments/staging', { token: admin, body: { value: { n: 3 } } }), 200)
    expect((await api(srv, 'GET', '/api/v1/configs/fresh-cfg?environment=staging', { token: admin })).body).toEqual({ value: { n: 3 } })
    expect((await bulk({ context: { environment: 'staging' }, configs: ['fresh-cfg'] })).body.configs['fresh-cfg']).toEqual({ n: 3 })
  })
})

describe('POST /api/v1/evaluate', () => {
  beforeAll(async () => {
    await createFlag({ key: 'bulk-a', enabled: true, value: 'A', environments: { production: { enabled: true, value: 'A-prod' } } })
    await createFlag({
      key: 'bulk-b',
      enabled: true,
      value: false,
      targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: true }] },
    })
    await createFlag({ key: 'bulk-off', enabled: false, value: 'x' })
    ok(
      await api(srv, 'POST', '/api/v1/configs', {
        token: admin,
        body: { key: 'bulk-cfg', value: { limit: 10 }, environments: { production: { value: { limit: 99 } } } },
      }),
    )
    ok(await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: 'bulk-cfg2', value: [1, 2] } }))
  })

  test('explicit lists: values as GET /flags/:key gives them, unknown keys in `missing`', async () => {
    const res = await bulk({
      context: { plan: 'pro' },
      flags: ['bulk-a', 'bulk-b', 'bulk-off', 'no-such-flag'],
      configs: ['bulk-cfg', 'no-such-config'],
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      flags: { 'bulk-a': 'A', 'bulk-b': true, 'bulk-off': null },
      configs: { 'bulk-cfg': { limit: 10 } },
      missing: { flags: ['no-such-flag'], configs: ['no-such-config'] },
    })
    expect(res.body.flags['bulk-b']).toBe((await evaluate('bulk-b', { plan: 'pro' })).value)
    const free = await bulk({ context: { plan: 'free' }, flags: ['bulk-b'], configs: [] })
    expect(free.body).toEqual({ flags: { 'bulk-b': false }, configs: {}, missing: { flags: [], configs: [] } })
  })

  test('context.environment applies flag and config environment overrides', async () => {
    const res = await bulk({ context: { environment: 'production' }, flags: ['bulk-a'], configs: ['bulk-cfg', 'bulk-cfg2'] })
    expect(res.body.flags).toEqual({ 'bulk-a': 'A-prod' })
    expect(res.body.configs).toEqual({ 'bulk-cfg': { limit: 99 }, 'bulk-cfg2': [1, 2] })
    const staging = await bulk({ context: { environment: 'staging' }, flags: ['bulk-a'], configs: ['bulk-cfg'] })
    expect(staging.body.flags).toEqual({ 'bulk-a': 'A' })
    expect(staging.body.configs).toEqual({ 'bulk-cfg': { limit: 10 } })
  })

  test('omitted lists: every flag and config the token may read', async () => {
    const allFlags = (await api(srv, 'GET', '/api/v1/flags?limit=1000', { token: admin })).body.flags.map((f: any) => f.key).sort()
    const allConfigs = (await api(srv, 'GET', '/api/v1/configs?limit=1000', { token: admin })).body.configs.map((c: any) => c.key).sort()
    expect(allFlags.length).toBeGreaterThan(3)
    const everything = await bulk({ context: { plan: 'pro' } })
    expect(everything.status).toBe(200)
    expect(Object.keys(everything.body.flags).sort()).toEqual(allFlags)
    expect(Object.keys(everything.body.configs).sort()).toEqual(allConfigs)
    expect(everything.body.flags['bulk-b']).toBe(true)
    expect(everything.body.missing).toEqual({ flags: [], configs: [] })
    // a body without context works too
    expect(Object.keys((await bulk({})).body.flags).sort()).toEqual(allFlags)

    const flagsOnly = await createToken(srv, ['read:flags'])
    const onlyFlags = await bulk({}, flagsOnly)
    expect(onlyFlags.status).toBe(200)
    expect(Object.keys(onlyFlags.body.flags).sort()).toEqual(allFlags)
    expect(onlyFlags.body.configs).toEqual({})
    expect((await bulk({ configs: ['bulk-cfg'] }, flagsOnly)).status).toBe(403)

    const configsOnly = await createToken(srv, ['read:configs'])
    const onlyConfigs = await bulk({ context: { environment: 'production' } }, configsOnly)
    expect(onlyConfigs.body.flags).toEqual({})
    expect(onlyConfigs.body.configs['bulk-cfg']).toEqual({ limit: 99 })
    const denied = await bulk({ flags: ['bulk-a'] }, configsOnly)
    expect(denied.status).toBe(403)
    expect(denied.body.code).toBe('FORBIDDEN')
  })

  test('GET is 405 with Allow: POST', async () => {
    const res = await api(srv, 'GET', '/api/v1/evaluate', { token: admin })
    expect(res.status).toBe(405)
    expect(res.body.code).toBe('METHOD_NOT_ALLOWED')
    expect(res.headers.get('allow')).toBe('POST')
  })

  test('bad bodies are 400 VALIDATION_ERROR', async () => {
    const bad: [unknown, string][] = [
      [{ flags: 'bulk-a' }, 'flags'],
      [{ flags: [1] }, 'flags[0]'],
      [{ configs: {} }, 'configs'],
      [{ context: { user_id: 42 } }, 'context.user_id'],
      [{ context: { plan: true } }, 'context.plan'],
    ]
    for (const [body, path] of bad) {
      const res = await bulk(body)
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('VALIDATION_ERROR')
      expect(res.body.details.issues.map((i: any) => i.path)).toContain(path)
    }
    const malformed = await api(srv, 'POST', '/api/v1/evaluate', {
      token: admin,
      rawBody: '{"flags": [',
      headers: { 'content-type': 'application/json' },
    })
    expect(malformed.status).toBe(400)
    expect(malformed.body.code).toBe('VALIDATION_ERROR')
  })

  // KNOWN BUG (reported, server not changed here): Elysia's default body normalisation spreads a non-object
  // into an object ("x" -> {"0":"x"}, [1] -> {"0":1}) before the schema check, so these answer 200 and are
  // evaluated as garbage contexts, while GET /flags/:key rejects the same contexts with 400. Turn this into a
  // plain `test` once POST /evaluate rejects them.
  test('a context (or custom) that is not an object is 400', async () => {
    for (const body of [{ context: 'x' }, { context: [1] }, { context: 5 }, { context: { custom: [1] } }, { context: { custom: 'x' } }]) {
      const res = await bulk(body)
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('VALIDATION_ERROR')
    }
  })

  test('GET /flags/:key: a context that is not URL-encoded JSON of the context shape is 400', async () => {
    for (const raw of [
      '%7Bnot-json',
      encodeURIComponent('[1,2]'),
      encodeURIComponent('"str"'),
      encodeURIComponent('{"user_id":5}'),
      encodeURIComponent('{"custom":[1]}'),
    ]) {
      const res = await api(srv, 'GET', `/api/v1/flags/bulk-a?context=${raw}`, { token: admin })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('VALIDATION_ERROR')
    }
    expect((await evaluateRaw('no-such-flag')).status).toBe(404)
  })
})

describe('caching: ETag per context, Cache-Control', () => {
  test('GET /flags/:key: 304 for the same context, 200 with a new ETag when the result differs', async () => {
    await createFlag({
      key: 'etag-flag',
      enabled: true,
      value: 'basic',
      targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: 'premium' }] },
    })
    const pro = { user_id: 'u1', plan: 'pro' }
    const first = await evaluateRaw('etag-flag', pro)
    expect(first.status).toBe(200)
    expect(first.headers.get('cache-control')).toBe('private, max-age=10')
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/)
    // strong validator: base64url of the first 16 bytes of SHA-256 of the body
    const digest = new Bun.CryptoHasher('sha256').update(first.text).digest()
    expect(etag).toBe(`"${digest.subarray(0, 16).toString('base64url')}"`)

    const again = await evaluateRaw('etag-flag', pro, { headers: { 'if-none-match': etag } })
    expect(again.status).toBe(304)
    expect(again.text).toBe('')
    expect(again.headers.get('etag')).toBe(etag)
    expect(again.headers.get('cache-control')).toBe('private, max-age=10')

    // another context with another result: 200 and a different ETag, even when sending the old one
    const free = await evaluateRaw('etag-flag', { user_id: 'u1', plan: 'free' }, { headers: { 'if-none-match': etag } })
    expect(free.status).toBe(200)
    expect(free.body.value).toBe('basic')
    expect(free.headers.get('etag')).not.toBe(etag)

    // after an update the old ETag no longer matches
    await updateFlag('etag-flag', {
      targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: 'premium-plus' }] },
    })
    const changed = await evaluateRaw('etag-flag', pro, { headers: { 'if-none-match': etag } })
    expect(changed.status).toBe(200)
    expect(changed.body.value).toBe('premium-plus')
    expect(changed.headers.get('etag')).not.toBe(etag)
  })

  test('GET /configs/:key: private, max-age=60 with ETag and 304', async () => {
    ok(
      await api(srv, 'POST', '/api/v1/configs', {
        token: admin,
        body: { key: 'etag-cfg', value: { theme: 'dark' }, environments: { staging: { value: { theme: 'light' } } } },
      }),
    )
    const res = await api(srv, 'GET', '/api/v1/configs/etag-cfg', { token: admin })
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('private, max-age=60')
    const etag = res.headers.get('etag')!
    const again = await api(srv, 'GET', '/api/v1/configs/etag-cfg', { token: admin, headers: { 'if-none-match': etag } })
    expect(again.status).toBe(304)
    expect(again.headers.get('cache-control')).toBe('private, max-age=60')
    const staging = await api(srv, 'GET', '/api/v1/configs/etag-cfg?environment=staging', {
      token: admin,
      headers: { 'if-none-match': etag },
    })
    expect(staging.status).toBe(200)
    expect(staging.body).toEqual({ value: { theme: 'light' } })
  })

  test('POST /evaluate is not cacheable', async () => {
    const res = await bulk({ flags: ['etag-flag'] })
    expect(res.headers.get('cache-control')).toBe('private, no-store')
    expect(res.headers.get('etag')).toBeNull()
  })
})

describe('evaluation rate-limit class', () => {
  let limited: TestServer
  beforeAll(async () => {
    limited = await startServer({ env: { RATE_LIMIT_EVALUATION_PER_MINUTE: '20', RATE_LIMIT_MANAGEMENT_PER_MINUTE: '1000' } })
  })
  afterAll(() => limited?.stop())

  test('20 evaluations per minute across GET /flags/:key, POST /evaluate, GET /configs/:key; management unaffected', async () => {
    const token = limited.adminToken
    const call = (method: string, path: string, body?: unknown) => api(limited, method, path, { token, body })
    expect((await call('POST', '/api/v1/flags', { key: 'rl', enabled: true })).status).toBe(201)
    const created = await call('POST', '/api/v1/configs', { key: 'rl-cfg', value: 1 })
    expect(created.status).toBe(201)
    expect(created.headers.get('x-ratelimit-limit')).toBe('1000')

    const evaluations = [
      () => call('GET', '/api/v1/flags/rl'),
      () => call('POST', '/api/v1/evaluate', { flags: ['rl'] }),
      () => call('GET', '/api/v1/configs/rl-cfg'),
    ]
    for (let i = 0; i < 20; i++) {
      const res = await evaluations[i % 3]!()
      expect(res.status).toBe(200)
      expect(res.headers.get('x-ratelimit-limit')).toBe('20')
      expect(Number(res.headers.get('x-ratelimit-remaining'))).toBe(19 - i)
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now())
    }
    for (const next of evaluations) {
      const res = await next()
      expect(res.status).toBe(429)
      expect(res.body).toEqual({ error: 'Rate limit exceeded', code: 'RATE_LIMITED' })
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(120)
      expect(res.headers.get('x-ratelimit-limit')).toBe('20')
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0')
    }
    // management calls still succeed, counted against their own limit
    const list = await call('GET', '/api/v1/flags')
    expect(list.status).toBe(200)
    expect(list.headers.get('x-ratelimit-limit')).toBe('1000')
    const put = await call('PUT', '/api/v1/flags/rl', { value: 'after' })
    expect(put.status).toBe(200)
    expect(put.headers.get('x-ratelimit-limit')).toBe('1000')
    // the limit is per token: another token still has its whole budget
    const other = await createToken(limited, ['read:flags'])
    const fresh = await api(limited, 'GET', '/api/v1/flags/rl', { token: other })
    expect(fresh.status).toBe(200)
    expect(fresh.body.value).toBe('after')
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe('19')
  })
})
