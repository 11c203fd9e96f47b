import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import { api, createToken, startServer, type TestServer } from '../helpers/server'

let srv: TestServer
let admin: string
beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMIT_MANAGEMENT_PER_MINUTE: '300', RATE_LIMIT_EVALUATION_PER_MINUTE: '600' } })
  admin = srv.adminToken
  await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'cached', enabled: true, value: 'v' } })
  await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: 'cfg', value: { a: 1 } } })
  await api(srv, 'POST', '/api/v1/segments', { token: admin, body: { key: 'seg', conditions: [] } })
})
afterAll(() => srv.stop())

describe('error model', () => {
  test('unknown route: 404 JSON', async () => {
    for (const path of ['/api/v1/nothing', '/api/v2/flags', '/api/v1/flags/a/b/c']) {
      const res = await api(srv, 'GET', path, { token: admin })
      expect(res.status).toBe(404)
      expect(res.headers.get('content-type')).toContain('application/json')
      expect(res.body.code).toBe('NOT_FOUND')
    }
  })

  test('known path, wrong method: 405 with Allow', async () => {
    const res = await api(srv, 'GET', '/api/v1/evaluate')
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('POST')
    expect(res.body.code).toBe('METHOD_NOT_ALLOWED')
    const patch = await api(srv, 'PATCH', '/api/v1/flags/cached', { token: admin, body: {} })
    expect(patch.status).toBe(405)
    expect(patch.headers.get('allow')!.split(', ').sort()).toEqual(['DELETE', 'GET', 'PUT'])
  })

  test('malformed JSON: 400 VALIDATION_ERROR; wrong media type: 415; too large: 413 — nothing changes', async () => {
    const malformed = await api(srv, 'POST', '/api/v1/flags', {
      token: admin,
      rawBody: '{"key": "x",',
      headers: { 'content-type': 'application/json' },
    })
    expect(malformed.status).toBe(400)
    expect(malformed.body.code).toBe('VALIDATION_ERROR')
    const text = await api(srv, 'POST', '/api/v1/flags', { token: admin, rawBody: 'key=x', headers: { 'content-type': 'text/plain' } })
    expect(text.status).toBe(415)
    expect(text.body.code).toBe('UNSUPPORTED_MEDIA_TYPE')
    const big = await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: 'huge', value: 'x'.repeat(1024 * 1024 + 10) } })
    expect(big.status).toBe(413)
    expect(big.body.code).toBe('PAYLOAD_TOO_LARGE')
    const tooBigValue = await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: 'big', value: 'x'.repeat(300 * 1024) } })
    expect(tooBigValue.status).toBe(400)
    const flags = await api(srv, 'GET', '/api/v1/flags', { token: admin })
    expect(flags.body.total).toBe(1)
    expect((await api(srv, 'GET', '/api/v1/configs/huge', { token: admin })).status).toBe(404)
  })

  test('bad context: 400', async () => {
    for (const ctx of ['{not json', '[1,2]', JSON.stringify({ user_id: 5 }), JSON.stringify({ custom: 'x' })]) {
      const res = await api(srv, 'GET', `/api/v1/flags/cached?context=${encodeURIComponent(ctx)}`, { token: admin })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('VALIDATION_ERROR')
    }
  })
})

describe('caching', () => {
  const table: [string, string][] = [
    ['/api/v1/flags/cached', 'private, max-age=10'],
    ['/api/v1/flags', 'private, max-age=30'],
    ['/api/v1/configs', 'private, max-age=60'],
    ['/api/v1/configs/cfg', 'private, max-age=60'],
    ['/api/v1/segments', 'private, max-age=30'],
    ['/api/v1/segments/seg', 'private, max-age=30'],
    ['/health', 'public, max-age=10, stale-while-revalidate=30'],
    ['/openapi.json', 'public, max-age=3600, stale-while-revalidate=86400'],
  ]
  for (const [path, cacheControl] of table) {
    test(`${path}: Cache-Control, strong ETag, 304 on If-None-Match`, async () => {
      const first = await api(srv, 'GET', path, { token: path.startsWith('/api') ? admin : null })
      expect(first.status).toBe(200)
      expect(first.headers.get('cache-control')).toBe(cacheControl)
      const etag = first.headers.get('etag')!
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/)
      const digest = new Bun.CryptoHasher('sha256').update(first.text).digest()
      expect(etag).toBe(`"${digest.subarray(0, 16).toString('base64url')}"`)
      const again = await api(srv, 'GET', path, { token: path.startsWith('/api') ? admin : null, headers: { 'if-none-match': etag } })
      expect(again.status).toBe(304)
      expect(again.text).toBe('')
      expect(again.headers.get('etag')).toBe(etag)
      expect(again.headers.get('cache-control')).toBe(cacheControl)
    })
  }

  test('the ETag follows the evaluated body: another context or a change gives a new one', async () => {
    const a = await api(srv, 'GET', '/api/v1/flags/cached', { token: admin })
    await api(srv, 'PUT', '/api/v1/flags/cached', { token: admin, body: { value: 'w' } })
    const b = await api(srv, 'GET', '/api/v1/flags/cached', { token: admin, headers: { 'if-none-match': a.headers.get('etag')! } })
    expect(b.status).toBe(200)
    expect(b.body.value).toBe('w')
  })
})

describe('rate limits', () => {
  test('X-RateLimit-* on authenticated responses, errors included', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/flags'],
      ['GET', '/api/v1/flags/missing'],
      ['GET', '/api/v1/flags/cached'],
    ]) {
      const res = await api(srv, method, path, { token: admin })
      // GET /flags is management; GET /flags/:key (found or not) is evaluation.
      expect(Number(res.headers.get('x-ratelimit-limit'))).toBe(path === '/api/v1/flags' ? 300 : 600)
      expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(0)
      const reset = Number(res.headers.get('x-ratelimit-reset'))
      expect(reset).toBeGreaterThan(Date.now())
      expect(reset).toBeLessThanOrEqual(Date.now() + 60_000)
    }
    expect((await api(srv, 'GET', '/health')).headers.get('x-ratelimit-limit')).toBeNull()
  })

  test('over the limit: 429 RATE_LIMITED with Retry-After; per token; classes counted apart', async () => {
    const token = await createToken(srv, ['read:flags', 'write:flags'])
    // The first 300 are always admitted. The window slides: when the run straddles a minute's end, the
    // previous bucket's weight decays while requests are made, so the refusal may come a few requests after
    // the 301st (at most 300 × elapsed/60 s later); it must come, and well before 340.
    let last
    let sent = 0
    for (; sent < 300; sent++) expect((await api(srv, 'GET', '/api/v1/flags?limit=1', { token })).status).toBe(200)
    do {
      last = await api(srv, 'GET', '/api/v1/flags?limit=1', { token })
      sent++
    } while (last.status === 200 && sent < 340)
    expect(last!.status).toBe(429)
    expect(last!.body).toEqual({ error: 'Rate limit exceeded', code: 'RATE_LIMITED' })
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(last!.headers.get('x-ratelimit-remaining')).toBe('0')
    // Evaluation has its own budget, and other tokens are unaffected.
    expect((await api(srv, 'GET', '/api/v1/flags/cached', { token })).status).toBe(200)
    expect((await api(srv, 'GET', '/api/v1/flags?limit=1', { token: admin })).status).toBe(200)
    // A refused write changes nothing.
    expect((await api(srv, 'POST', '/api/v1/flags', { token, body: { key: 'limited' } })).status).toBe(429)
    expect((await api(srv, 'GET', '/api/v1/flags/limited', { token: admin })).status).toBe(404)
  })
})

describe('public endpoints', () => {
  test('/health', async () => {
    const res = await api(srv, 'GET', '/health')
    expect(res.body).toMatchObject({ status: 'ok', environment: 'test' })
  })

  test('/openapi.json is a valid OpenAPI 3.0 document describing every route with schemas and bearer auth', async () => {
    const res = await api(srv, 'GET', '/openapi.json')
    const doc = res.body
    expect(doc.openapi).toMatch(/^3\.0\./)
    await SwaggerParser.validate(structuredClone(doc))
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' })
    const expected = [
      'get /api/v1/flags',
      'post /api/v1/flags',
      'get /api/v1/flags/{key}',
      'put /api/v1/flags/{key}',
      'delete /api/v1/flags/{key}',
      'put /api/v1/flags/{key}/environments/{env}',
      'delete /api/v1/flags/{key}/environments/{env}',
      'get /api/v1/configs',
      'post /api/v1/configs',
      'get /api/v1/configs/{key}',
      'put /api/v1/configs/{key}',
      'delete /api/v1/configs/{key}',
      'put /api/v1/configs/{key}/environments/{env}',
      'delete /api/v1/configs/{key}/environments/{env}',
      'get /api/v1/segments',
      'post /api/v1/segments',
      'get /api/v1/segments/{key}',
      'put /api/v1/segments/{key}',
      'delete /api/v1/segments/{key}',
      'post /api/v1/evaluate',
      'get /api/v1/tokens',
      'post /api/v1/tokens',
      'delete /api/v1/tokens/{hash}',
      'get /api/v1/webhooks',
      'post /api/v1/webhooks',
      'delete /api/v1/webhooks/{id}',
      'get /api/v1/audit',
      'get /api/v1/project',
      'put /api/v1/project',
      'get /api/v1/project/environments',
      'post /api/v1/project/environments',
      'delete /api/v1/project/environments/{name}',
      'get /health',
    ]
    for (const route of expected) {
      const [method, path] = route.split(' ')
      const op = doc.paths[path]?.[method]
      expect(op, route).toBeDefined()
      const success = op.responses['200'] ?? op.responses['201']
      expect(success?.content?.['application/json']?.schema, `${route} response schema`).toBeDefined()
      if (['post', 'put'].includes(method) && path.startsWith('/api'))
        expect(op.requestBody?.content?.['application/json']?.schema, `${route} request schema`).toBeDefined()
      if (path.startsWith('/api')) {
        // The evaluation operations take the token as X-API-Key too (tests/api/openapi.test.ts lists them).
        expect(
          op.security.filter((s: Record<string, unknown>) => !('apiKey' in s)),
          `${route} security`,
        ).toEqual([{ bearer: [] }])
        expect(op.responses['401'], `${route} 401`).toBeDefined()
      }
    }
  })

  test('/docs is an interactive page whose files all come from this server', async () => {
    const res = await fetch(`${srv.url}/docs`)
    expect(res.status).toBe(200)
    const html = await res.text()
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
    expect(sources).toEqual(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/docs/assets/init.js'])
    for (const asset of sources) expect((await fetch(`${srv.url}${asset}`)).status).toBe(200)
    expect(await (await fetch(`${srv.url}/docs/assets/init.js`)).text()).toContain("url: '/openapi.json'")
    const unknown = await fetch(`${srv.url}/docs/assets/other.js`)
    expect(unknown.status).toBe(404)
    expect(((await unknown.json()) as any).code).toBe('NOT_FOUND')
  })
})
