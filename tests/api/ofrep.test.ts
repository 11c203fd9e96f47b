// OFREP through the clients users run: @openfeature/server-sdk with @openfeature/ofrep-provider against a
// real server (every type, every reason, variants, an unknown flag falling back to the caller's default),
// plus the wire itself: error shapes, X-API-Key, bulk ETag and 304, rate limit, and bad input changing
// nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { OpenFeature, type Client } from '@openfeature/server-sdk'
import { OFREPProvider } from '@openfeature/ofrep-provider'
import { api, createToken, startServer, type TestServer } from '../helpers/server'

let srv: TestServer
let client: Client
const post = (path: string, body: unknown) => api(srv, 'POST', path, { token: srv.adminToken, body })

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMIT_EVALUATION_PER_MINUTE: '100000' } })
  await post('/api/v1/flags', {
    key: 'bool',
    enabled: true,
    value: true,
    targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'free' }], value: false }] },
  })
  await post('/api/v1/flags', { key: 'str', enabled: true, value: 'blue', targeting: { overrides: { 'vip-1': 'gold' } } })
  await post('/api/v1/flags', { key: 'num', enabled: true, value: 10, targeting: { rollout: { percentage: 100, attribute: 'user_id' } } })
  await post('/api/v1/flags', {
    key: 'obj',
    enabled: true,
    value: { max: 5 },
    environments: { production: { enabled: true, value: { max: 50 } } },
  })
  await post('/api/v1/flags', { key: 'off', enabled: false, value: true })
  await post('/api/v1/flags', { key: 'off-str', enabled: false, value: 'x' })
  await post('/api/v1/flags', {
    key: 'country',
    enabled: true,
    value: false,
    targeting: { rules: [{ conditions: [{ property: 'country', operator: 'in', value: ['nl', 'be'] }], value: true }] },
  })
  await OpenFeature.setProviderAndWait(new OFREPProvider({ baseUrl: srv.url, headers: [['Authorization', `Bearer ${srv.adminToken}`]] }))
  client = OpenFeature.getClient()
})
afterAll(async () => {
  await OpenFeature.close()
  await srv.stop()
})

describe('OpenFeature server SDK + OFREP provider', () => {
  test('boolean, string, number and object flags with their reasons and variants', async () => {
    expect(await client.getBooleanDetails('bool', true, { targetingKey: 'u-1', plan: 'free' })).toMatchObject({
      value: false,
      reason: 'TARGETING_MATCH',
      variant: 'rule-1',
    })
    expect(await client.getBooleanDetails('bool', false, { targetingKey: 'u-1', plan: 'pro' })).toMatchObject({
      value: true,
      reason: 'DEFAULT',
      variant: 'default',
    })
    expect(await client.getStringDetails('str', 'none', { targetingKey: 'vip-1' })).toMatchObject({
      value: 'gold',
      reason: 'TARGETING_MATCH',
      variant: 'override',
    })
    expect(await client.getNumberDetails('num', 0, { targetingKey: 'u-7' })).toMatchObject({
      value: 10,
      reason: 'SPLIT',
      variant: 'rollout',
    })
    expect(await client.getObjectDetails('obj', {}, { targetingKey: 'u-1' })).toMatchObject({
      value: { max: 5 },
      reason: 'STATIC',
      variant: 'default',
    })
    expect(await client.getObjectDetails('obj', {}, { targetingKey: 'u-1', environment: 'production' })).toMatchObject({
      value: { max: 50 },
      reason: 'STATIC',
    })
    expect(await client.getBooleanDetails('off', true, { targetingKey: 'u-1' })).toMatchObject({
      value: false,
      reason: 'DISABLED',
      variant: 'off',
    })
    // A disabled non-boolean flag answers its off value, null, which typed getters refuse: the default.
    expect(await client.getStringDetails('off-str', 'fallback', { targetingKey: 'u-1' })).toMatchObject({ value: 'fallback' })
    // Other attributes are custom attributes, found by conditions on them.
    expect(await client.getBooleanValue('country', false, { targetingKey: 'u-1', country: 'nl' })).toBe(true)
    const meta = await client.getBooleanDetails('bool', true, { targetingKey: 'u-1', environment: 'staging' })
    expect(meta.flagMetadata).toEqual({ flagVersion: 1, environment: 'staging' })
  })

  test("an unknown flag, a missing targeting key and a wrong type give the caller's default with the error code", async () => {
    expect(await client.getBooleanDetails('no-such-flag', true, { targetingKey: 'u-1' })).toMatchObject({
      value: true,
      errorCode: 'FLAG_NOT_FOUND',
      reason: 'ERROR',
    })
    expect(await client.getNumberDetails('num', 3, {})).toMatchObject({ value: 3, errorCode: 'TARGETING_KEY_MISSING' })
    expect(await client.getNumberDetails('str', 3, { targetingKey: 'u-1' })).toMatchObject({ value: 3, errorCode: 'TYPE_MISMATCH' })
  })
})

describe('the OFREP wire', () => {
  const ofrep = (path: string, init: { body?: string; headers?: Record<string, string> } = {}) =>
    fetch(`${srv.url}${path}`, {
      method: 'POST',
      body: init.body,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${srv.adminToken}`, ...init.headers },
    })

  test('single flag: success, 404 FLAG_NOT_FOUND, X-API-Key instead of Bearer, rate-limit headers', async () => {
    const res = await fetch(`${srv.url}/ofrep/v1/evaluate/flags/bool`, {
      method: 'POST',
      headers: { 'x-api-key': srv.adminToken, 'content-type': 'application/json' },
      body: '{"context":{"targetingKey":"u","plan":"free"}}',
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      key: 'bool',
      value: false,
      reason: 'TARGETING_MATCH',
      variant: 'rule-1',
      metadata: { flagVersion: 1, environment: '' },
    })
    expect(res.headers.get('x-ratelimit-limit')).toBe('100000')
    const missing = await ofrep('/ofrep/v1/evaluate/flags/nope')
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({ key: 'nope', errorCode: 'FLAG_NOT_FOUND', errorDetails: 'Flag "nope" not found' })
  })

  test('an unknown OFREP path is a JSON 404, never the console page', async () => {
    for (const path of ['/ofrep/v1/nope', '/ofrep/v2/evaluate/flags/bool', '/ofrep']) {
      const res = await fetch(`${srv.url}${path}`)
      expect([path, res.status, res.headers.get('content-type')]).toEqual([path, 404, 'application/json; charset=utf-8'])
      expect((await res.json()).code).toBe('NOT_FOUND')
    }
  })

  test('bad input: PARSE_ERROR and INVALID_CONTEXT in the OFREP shape; 401 and 403 as elsewhere; nothing changes', async () => {
    const before = (await api(srv, 'GET', '/api/v1/audit', { token: srv.adminToken })).body.total
    const cases: [string, string | undefined, number, string][] = [
      ['/ofrep/v1/evaluate/flags/bool', '{"context":', 400, 'PARSE_ERROR'],
      ['/ofrep/v1/evaluate/flags/bool', '['.repeat(100) + ']'.repeat(100), 400, 'PARSE_ERROR'],
      ['/ofrep/v1/evaluate/flags/bool', '{"context":[1]}', 400, 'INVALID_CONTEXT'],
      ['/ofrep/v1/evaluate/flags/bool', '{"context":{"targetingKey":5}}', 400, 'INVALID_CONTEXT'],
      ['/ofrep/v1/evaluate/flags/bool', '"text"', 400, 'INVALID_CONTEXT'],
      ['/ofrep/v1/evaluate/flags', '{"context":"x"}', 400, 'INVALID_CONTEXT'],
      ['/ofrep/v1/evaluate/flags', '{', 400, 'PARSE_ERROR'],
    ]
    for (const [path, body, status, code] of cases) {
      const res = await ofrep(path, { body })
      expect({ path, body, status: res.status, code: ((await res.json()) as any).errorCode }).toEqual({ path, body, status, code })
    }
    expect((await fetch(`${srv.url}/ofrep/v1/evaluate/flags/bool`, { method: 'POST' })).status).toBe(401)
    const configsOnly = await createToken(srv, ['read:configs'])
    const forbidden = await ofrep('/ofrep/v1/evaluate/flags/bool', { headers: { authorization: `Bearer ${configsOnly}` } })
    expect(forbidden.status).toBe(403)
    expect(((await forbidden.json()) as any).code).toBe('FORBIDDEN')
    expect((await api(srv, 'GET', '/api/v1/audit', { token: srv.adminToken })).body.total).toBe(before + 1) // the token above
  })

  test('bulk: every flag, per-flag errors never fail the whole, strong ETag over the body, 304', async () => {
    const res = await ofrep('/ofrep/v1/evaluate/flags', { body: '{"context":{"plan":"free"}}' })
    expect(res.status).toBe(200)
    const body = (await res.json()) as any
    expect(body.metadata).toEqual({})
    const byKey = Object.fromEntries(body.flags.map((f: any) => [f.key, f]))
    expect(Object.keys(byKey).sort()).toEqual(['bool', 'country', 'num', 'obj', 'off', 'off-str', 'str'])
    expect(byKey.bool).toMatchObject({ value: false, reason: 'TARGETING_MATCH' })
    expect(byKey.num).toEqual({ key: 'num', errorCode: 'TARGETING_KEY_MISSING', errorDetails: expect.any(String) })
    const etag = res.headers.get('etag')!
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/)
    const again = await ofrep('/ofrep/v1/evaluate/flags', { body: '{"context":{"plan":"free"}}', headers: { 'if-none-match': etag } })
    expect(again.status).toBe(304)
    const other = await ofrep('/ofrep/v1/evaluate/flags', {
      body: '{"context":{"plan":"pro","targetingKey":"u"}}',
      headers: { 'if-none-match': etag },
    })
    expect(other.status).toBe(200)
    expect(other.headers.get('etag')).not.toBe(etag)
  })

  test('the evaluation rate-limit class: 429 with Retry-After', async () => {
    const small = await startServer({ env: { RATE_LIMIT_EVALUATION_PER_MINUTE: '2' } })
    try {
      const call = () =>
        fetch(`${small.url}/ofrep/v1/evaluate/flags/x`, { method: 'POST', headers: { authorization: `Bearer ${small.adminToken}` } })
      expect((await call()).status).toBe(404)
      expect((await call()).status).toBe(404)
      const limited = await call()
      expect(limited.status).toBe(429)
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      // management calls are counted apart
      expect((await api(small, 'GET', '/api/v1/flags', { token: small.adminToken })).status).toBe(200)
    } finally {
      await small.stop()
    }
  })
})
