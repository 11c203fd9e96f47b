// Hostile and malformed input (docs/behaviour.md §8), sent the way an attacker would, to every input
// position: each gets a clear 4xx JSON error, quickly, without delaying other requests, and nothing changes.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, startServer, type ApiResponse, type TestServer } from '../helpers/server'
import { rawHttp } from '../helpers/raw-http'

let srv: TestServer
let admin: string
const DEEP = '['.repeat(100_000) + ']'.repeat(100_000)

beforeAll(async () => {
  srv = await startServer()
  admin = srv.adminToken
  await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'f', enabled: true, value: true } })
  await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: 'c', value: 1 } })
})
afterAll(() => srv.stop())

/** What a successful hostile request could have changed: every list's total and the audit log. */
async function state() {
  const totals = await Promise.all(
    ['flags', 'configs', 'segments', 'tokens', 'webhooks', 'audit'].map(async (what) => {
      const res = await api(srv, 'GET', `/api/v1/${what}`, { token: admin })
      return res.body.total ?? res.body[what]?.length
    }),
  )
  return { totals, project: (await api(srv, 'GET', '/api/v1/project', { token: admin })).body }
}

const expectError = (res: ApiResponse, status: number, code: string) => {
  expect({ status: res.status, code: res.body?.code, json: res.headers.get('content-type')?.includes('application/json') }).toEqual({
    status,
    code,
    json: true,
  })
}

/** Every route that takes a body, with a key in its path that exists (so the body is what is refused). */
async function bodyRoutes(): Promise<{ method: string; path: string }[]> {
  const doc = (await api(srv, 'GET', '/openapi.json')).body
  const routes: { method: string; path: string }[] = []
  for (const [path, ops] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      if (!op.requestBody) continue
      routes.push({
        method: method.toUpperCase(),
        path: path
          .replace('{key}', 'f')
          .replace('{env}', 'production')
          .replace(/\{[^}]+\}/g, 'x'),
      })
    }
  }
  return routes
}

describe('nesting deeper than 64 levels', () => {
  test('a 100,000-deep body is a 400 on every route that takes a body, quickly, and other requests go on', async () => {
    const before = await state()
    const routes = await bodyRoutes()
    expect(routes.length).toBeGreaterThanOrEqual(12)
    for (const { method, path } of routes) {
      const started = performance.now()
      const [res, health] = await Promise.all([
        // (the sign-in routes want the console's CSRF header even without a cookie)
        api(srv, method, path, { token: admin, rawBody: DEEP, headers: { 'content-type': 'application/json', 'x-flagship-request': '1' } }),
        fetch(`${srv.url}/health`).then((r) => r.status),
      ])
      if (path.startsWith('/ofrep/')) {
        // OFREP routes answer in OFREP's error shape.
        expect({ route: `${method} ${path}`, status: res.status, code: res.body?.errorCode }).toEqual({
          route: `${method} ${path}`,
          status: 400,
          code: 'PARSE_ERROR',
        })
        expect(res.body.errorDetails).toContain('nests deeper than 64 levels')
      } else {
        expect({ route: `${method} ${path}`, status: res.status, code: res.body?.code }).toEqual({
          route: `${method} ${path}`,
          status: 400,
          code: 'VALIDATION_ERROR',
        })
        expect(res.body.details.issues).toEqual([{ path: 'body', message: 'nests deeper than 64 levels' }])
      }
      expect(health).toBe(200)
      expect(performance.now() - started).toBeLessThan(1000) // was ~6 s, then a 500
    }
    expect(await state()).toEqual(before)
  })

  test('deep values in a key, a name, a URL, an environment name, a context and a rule value', async () => {
    const before = await state()
    const deep = (n: number) => JSON.parse('['.repeat(n) + ']'.repeat(n))
    const cases: [string, string, unknown][] = [
      ['POST', '/api/v1/flags', { key: deep(65) }],
      ['POST', '/api/v1/flags', { key: 'g', value: true, targeting: { rules: [{ conditions: [], value: deep(70) }] } }],
      ['POST', '/api/v1/tokens', { name: deep(100), project_id: 'default', permissions: ['*'] }],
      ['POST', '/api/v1/webhooks', { url: deep(100), events: ['*'] }],
      ['POST', '/api/v1/project/environments', { name: deep(100) }],
      ['PUT', '/api/v1/project', { name: deep(100) }],
      ['POST', '/api/v1/evaluate', { context: { custom: { a: deep(100) } } }],
    ]
    for (const [method, path, body] of cases) expectError(await api(srv, method, path, { token: admin, body }), 400, 'VALIDATION_ERROR')
    // Up to 64 levels (3 of them the body's own, here) is fine.
    const ok = await api(srv, 'POST', '/api/v1/evaluate', { token: admin, body: { context: { custom: { a: deep(61) } } } })
    expect(ok.status).toBe(200)
    expect(await state()).toEqual(before)
  })

  test('the URL context: deep JSON is a 400 on the evaluation GET (fast path and route alike)', async () => {
    for (const ctx of ['['.repeat(2000) + ']'.repeat(2000), `{"custom":${'{"a":'.repeat(80)}1${'}'.repeat(80)}}`]) {
      const res = await api(srv, 'GET', `/api/v1/flags/f?context=${encodeURIComponent(ctx)}`, { token: admin })
      expectError(res, 400, 'VALIDATION_ERROR')
      expect(res.body.details.issues).toEqual([{ path: 'context', message: 'nests deeper than 64 levels' }])
    }
  })

  test('a long key of brackets in the path: a compact 4xx JSON answer', async () => {
    const res = await api(srv, 'GET', `/api/v1/flags/${'%5B'.repeat(1500)}`, { token: admin })
    expect(res.status).toBeGreaterThanOrEqual(400)
    expect(res.status).toBeLessThan(500)
    expect(res.text.length).toBeLessThan(2000)
    const put = await api(srv, 'PUT', `/api/v1/flags/f/environments/${'%5B'.repeat(1500)}`, { token: admin, body: { enabled: true } })
    expectError(put, 400, 'VALIDATION_ERROR')
    expect(put.text.length).toBeLessThan(2000)
  })
})

describe('bytes, charset and size', () => {
  const post = (body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(`${srv.url}/api/v1/configs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', ...headers },
      body,
    })

  test('invalid UTF-8 is a 400 and is never stored (not replaced with U+FFFD)', async () => {
    const before = await state()
    const bytes = new Uint8Array([...new TextEncoder().encode('{"key":"u8","value":"caf'), 0xe9, ...new TextEncoder().encode('"}')])
    const res = await post(bytes)
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { issues: [{ path: 'body', message: 'is not valid UTF-8' }] },
    })
    expect((await api(srv, 'GET', '/api/v1/configs/u8', { token: admin })).status).toBe(404)
    expect(await state()).toEqual(before)
  })

  test('a charset other than UTF-8 is a 415; utf-8 in any spelling is accepted', async () => {
    for (const type of ['application/json; charset=latin1', 'application/json;charset=ISO-8859-1', 'application/json; charset="utf-16"']) {
      const res = await post(JSON.stringify({ key: 'cs', value: 1 }), { 'content-type': type })
      expect({ type, status: res.status, code: ((await res.json()) as any).code }).toEqual({
        type,
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      })
    }
    expect((await api(srv, 'GET', '/api/v1/configs/cs', { token: admin })).status).toBe(404)
    for (const [i, type] of [
      'application/json; charset=utf-8',
      'application/json; charset="UTF-8"',
      'application/merge-patch+json',
    ].entries()) {
      expect((await post(JSON.stringify({ key: `cs${i}`, value: 1 }), { 'content-type': type })).status).toBe(201)
    }
  })

  test('any body over 1 MiB, however large, gets the JSON 413 (with and without Content-Length)', async () => {
    const before = await state()
    const big = new Uint8Array(20 * 1024 * 1024).fill(0x20)
    const withLength = await post(big)
    expect(withLength.status).toBe(413)
    expect(await withLength.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' })
    let sent = 0
    const chunked = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 20) return controller.close()
        sent++
        controller.enqueue(new Uint8Array(1024 * 1024).fill(0x20))
      },
    })
    const withoutLength = await post(chunked)
    expect(withoutLength.status).toBe(413)
    expect(await withoutLength.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' })
    expect(await state()).toEqual(before)
  })

  const raw = (request: string) => rawHttp(srv.port, request)

  const BEFORE_THE_SERVICE =
    'what the runtime answers before the service runs, as docs/api.md documents: ' + 'NUL in a header 400, headers over 16 KiB 431'
  test(BEFORE_THE_SERVICE, async () => {
    const nul = await raw(
      `GET /api/v1/flags/f HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\nAuthorization: Bearer ${admin}\r\nConnection: close\r\n\r\n`,
    )
    expect(nul.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request')
    const huge = await raw(`GET /api/v1/flags/f HTTP/1.1\r\nHost: x\r\nX-A: ${'a'.repeat(70_000)}\r\nConnection: close\r\n\r\n`)
    expect(huge.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large')
  })
})

describe('names and query parameters', () => {
  test('control characters are refused in names, keys and environment names', async () => {
    const before = await state()
    for (const bad of ['a\u0000b', 'a\u0007', 'line\nbreak', 'tab\there', 'del\u007f']) {
      const cases: [string, string, unknown][] = [
        ['POST', '/api/v1/flags', { key: bad }],
        ['POST', '/api/v1/configs', { key: bad, value: 1 }],
        ['POST', '/api/v1/segments', { key: bad, conditions: [] }],
        ['POST', '/api/v1/tokens', { name: bad, project_id: 'default', permissions: ['read:flags'] }],
        ['PUT', '/api/v1/project', { name: bad }],
        ['PUT', '/api/v1/project', { slug: bad }],
        ['POST', '/api/v1/project/environments', { name: bad }],
        ['PUT', '/api/v1/flags/f', { environments: { [bad]: { enabled: true } } }],
      ]
      for (const [method, path, body] of cases) expectError(await api(srv, method, path, { token: admin, body }), 400, 'VALIDATION_ERROR')
      expectError(
        await api(srv, 'PUT', `/api/v1/flags/f/environments/${encodeURIComponent(bad)}`, { token: admin, body: { enabled: true } }),
        400,
        'VALIDATION_ERROR',
      )
    }
    expect(await state()).toEqual(before)
  })

  test('numeric query parameters are plain decimal integers', async () => {
    for (const path of ['/api/v1/flags', '/api/v1/audit', '/api/v1/tokens']) {
      for (const value of ['1e3', '0x10', '10abc', '1.5', '%205', '+5', '-1', '', '1%00']) {
        const res = await api(srv, 'GET', `${path}?limit=${value}`, { token: admin })
        expectError(res, 400, 'VALIDATION_ERROR')
        expect(res.body.details.issues).toEqual([{ path: 'limit', message: 'must be an integer from 1 to 1000' }])
      }
      expectError(await api(srv, 'GET', `${path}?offset=0x1`, { token: admin }), 400, 'VALIDATION_ERROR')
      expect((await api(srv, 'GET', `${path}?limit=10&offset=0`, { token: admin })).status).toBe(200)
    }
  })

  test('unknown query parameters on the evaluation endpoints are a 400 naming the known ones', async () => {
    const ctx = encodeURIComponent('{"user_id":"u"}')
    const flag = await api(srv, 'GET', `/api/v1/flags/f?ctx=${ctx}`, { token: admin })
    expectError(flag, 400, 'VALIDATION_ERROR')
    expect(flag.body.details.issues).toEqual([{ path: 'ctx', message: 'unknown parameter; known: context' }])
    expectError(await api(srv, 'GET', `/api/v1/flags/f?context=${ctx}&extra=1`, { token: admin }), 400, 'VALIDATION_ERROR')
    const config = await api(srv, 'GET', '/api/v1/configs/c?env=production', { token: admin })
    expectError(config, 400, 'VALIDATION_ERROR')
    expect(config.body.details.issues).toEqual([{ path: 'env', message: 'unknown parameter; known: environment' }])
    const bulk = await api(srv, 'POST', '/api/v1/evaluate?context=x', { token: admin, body: {} })
    expectError(bulk, 400, 'VALIDATION_ERROR')
    expect(bulk.body.details.issues).toEqual([{ path: 'context', message: 'unknown parameter; this endpoint takes no query parameters' }])
    // The documented forms still work.
    expect((await api(srv, 'GET', `/api/v1/flags/f?context=${ctx}`, { token: admin })).status).toBe(200)
    expect((await api(srv, 'GET', '/api/v1/configs/c?environment=production', { token: admin })).status).toBe(200)
  })
})
