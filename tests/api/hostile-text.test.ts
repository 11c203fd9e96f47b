// Text no store can keep, sent where a client can put text (docs/behaviour.md §8): JSON escapes for NUL
// and unpaired surrogates in bodies and in `?context=`, control characters and broken percent-encoding in
// paths and queries, and query names that are Object.prototype's. Each is a clear 400 on both stores
// (TEST_STORE=postgres runs this file against PostgreSQL, which refused these with a 500), and nothing
// changes.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, createToken, startServer, type ApiResponse, type TestServer } from '../helpers/server'
import { setupOwner } from '../helpers/teams'

let srv: TestServer
let admin: string
let webhookId: string
let routes: { method: string; path: string; query: string[]; body: boolean; permission: string }[]
/** the instance owner's session: routes only a person may call are sent with it (teams) */
let ownerCookie: string

beforeAll(async () => {
  srv = await startServer()
  admin = srv.adminToken
  await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'f', enabled: true, value: true } })
  await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: 'c', value: 1, environments: { staging: { value: 2 } } } })
  await api(srv, 'POST', '/api/v1/segments', { token: admin, body: { key: 's', conditions: [] } })
  ownerCookie = await setupOwner(srv)
  webhookId = (await api(srv, 'POST', '/api/v1/webhooks', { token: admin, body: { url: 'http://127.0.0.1:9/hook', events: ['*'] } })).body
    .id
  const doc = (await api(srv, 'GET', '/openapi.json')).body
  routes = Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
    Object.entries<any>(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      query: (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name),
      body: op.requestBody !== undefined,
      permission: op['x-permission'] as string,
    })),
  )
})
afterAll(() => srv.stop())

/** An OpenAPI path with every parameter filled with something that exists, except `hostile` for `param`. */
function fill(path: string, param?: string, hostile?: string): string {
  const existing: Record<string, string> = { key: 'f', env: 'production', id: webhookId, name: 'staging', hash: 'x', delivery_id: 'x' }
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => (name === param ? hostile! : (existing[name] ?? 'x')))
}

/** What a hostile request could have changed: every list's total, the audit log, the project. */
async function state() {
  const totals = await Promise.all(
    ['flags', 'configs', 'segments', 'tokens', 'webhooks', 'audit'].map(async (what) => {
      const res = await api(srv, 'GET', `/api/v1/${what}`, { token: admin })
      return res.body.total ?? res.body[what]?.length
    }),
  )
  return { totals, project: (await api(srv, 'GET', '/api/v1/project', { token: admin })).body }
}

/** The 400 in the route's own error shape: `{ code: VALIDATION_ERROR }`, or OFREP's PARSE_ERROR. */
function expect400(label: string, path: string, res: ApiResponse): string {
  const ofrep = path.startsWith('/ofrep/')
  expect({ label, status: res.status, code: ofrep ? res.body?.errorCode : res.body?.code }).toEqual({
    label,
    status: 400,
    code: ofrep ? 'PARSE_ERROR' : 'VALIDATION_ERROR',
  })
  return ofrep ? res.body.errorDetails : res.body.error
}

const NUL = '\\u0000 (NUL)'
/** How a client reaches a route: the admin token, or (routes for people only) the owner's session as the
 *  console sends it; sign-in routes with the console's CSRF header. */
function credentials(permission: string | undefined): { token?: string; headers: Record<string, string> } {
  if (permission === 'session' || permission?.startsWith('instance:'))
    return { headers: { cookie: ownerCookie, 'x-flagship-request': '1' } }
  if (permission === 'public') return { headers: { 'x-flagship-request': '1' } }
  return { token: admin, headers: {} }
}
const permissionOf = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path)?.permission
const raw = (method: string, path: string, text: string, permission?: string) => {
  const c = credentials(permission)
  return api(srv, method, path, { token: c.token, rawBody: text, headers: { 'content-type': 'application/json', ...c.headers } })
}

describe('JSON strings: NUL and unpaired surrogates', () => {
  // JSON text as sent: `\\u0000` here is the six characters of the escape.
  const BODIES = [
    '{"value":"a\\u0000b"}',
    '{"k\\u0000":1}',
    '{"value":"\\ud800"}',
    '{"value":["x","\\udc00y"]}',
    '{"\\ud83d":true}',
    '"\\ud800\\ud800\\udc00"',
  ]

  test('every route that takes a body refuses them before anything else reads the body', async () => {
    const before = await state()
    const bodyRoutes = routes.filter((r) => r.body)
    expect(bodyRoutes.length).toBeGreaterThanOrEqual(12)
    for (const { method, path } of bodyRoutes) {
      for (const text of BODIES) {
        const message = expect400(`${method} ${path} ${text}`, path, await raw(method, fill(path), text, permissionOf(method, path)))
        expect(message).toMatch(/\\u(0000|d800|dc00|d83d) \((NUL|an unpaired UTF-16 surrogate)\), which is not allowed in text/)
      }
    }
    expect(await state()).toEqual(before)
  })

  test('the 400 names the field (or the object whose property name it is)', async () => {
    const cases: [string, string, string, { path: string; message: string }][] = [
      [
        'POST',
        '/api/v1/configs',
        '{"key":"n","value":{"list":[1,"x\\u0000"]}}',
        { path: 'value.list[1]', message: `contains ${NUL}, which is not allowed in text` },
      ],
      [
        'PUT',
        '/api/v1/flags/f',
        '{"targeting":{"overrides":{"u\\udc00":true}}}',
        {
          path: 'targeting.overrides',
          message: 'has a property name that contains \\udc00 (an unpaired UTF-16 surrogate), which is not allowed in text',
        },
      ],
      [
        'POST',
        '/api/v1/evaluate',
        '{"context":{"user_id":"\\ud800"}}',
        { path: 'context.user_id', message: 'contains \\ud800 (an unpaired UTF-16 surrogate), which is not allowed in text' },
      ],
      [
        'POST',
        '/api/v1/tokens',
        '{"name":"t","project_id":"default\\u0000","permissions":["*"]}',
        { path: 'project_id', message: `contains ${NUL}, which is not allowed in text` },
      ],
      [
        'POST',
        '/api/v1/webhooks',
        '{"url":"http://127.0.0.1:9/","events":["*"],"secret":"s\\u0000"}',
        { path: 'secret', message: `contains ${NUL}, which is not allowed in text` },
      ],
      ['POST', '/api/v1/configs', '"\\u0000"', { path: 'body', message: `contains ${NUL}, which is not allowed in text` }],
      // A duplicate key's dropped value is still refused; the place is then the text's.
      [
        'POST',
        '/api/v1/configs',
        '{"key":"n","value":"\\u0000","value":1}',
        { path: 'body', message: `contains ${NUL} at position 20, which is not allowed in text` },
      ],
    ]
    for (const [method, path, text, issue] of cases) {
      const res = await raw(method, path, text)
      expect(res.status).toBe(400)
      expect(res.body.details.issues).toEqual([issue])
      expect(res.body.error).toBe(`Invalid request: ${issue.path}: ${issue.message}`)
    }
    const ofrep = await raw('POST', '/ofrep/v1/evaluate/flags/f', '{"context":{"targetingKey":"u\\u0000"}}')
    expect(ofrep.body).toEqual({
      key: 'f',
      errorCode: 'PARSE_ERROR',
      errorDetails: `Invalid request: context.targetingKey: contains ${NUL}, which is not allowed in text`,
    })
  })

  test('surrogate pairs (escaped or not) and other control escapes are stored and read back as sent', async () => {
    const res = await raw(
      'POST',
      '/api/v1/configs',
      '{"key":"text","value":{"emoji":"\\ud83d\\ude00 \ud83c\udf89","ctl":"\\u0001\\u001f","\\ud83d\\udd11":"k"}}',
    )
    expect(res.status).toBe(201)
    const back = await api(srv, 'GET', '/api/v1/configs/text', { token: admin })
    expect(back.body.value).toEqual({ emoji: '😀 🎉', ctl: '\u0001\u001f', '🔑': 'k' })
    expect((await api(srv, 'DELETE', '/api/v1/configs/text', { token: admin })).status).toBe(200)
  })

  test('`?context=` of GET /flags/:key: a 400 on the fast path (known token) and on Elysia (first use)', async () => {
    const fresh = await createToken(srv, ['read:flags'])
    for (const [context, issue] of [
      ['{"user_id":"u\\u0000"}', { path: 'context.user_id', message: `contains ${NUL}, which is not allowed in text` }],
      [
        '{"custom":{"\\udfff":1}}',
        {
          path: 'context.custom',
          message: 'has a property name that contains \\udfff (an unpaired UTF-16 surrogate), which is not allowed in text',
        },
      ],
    ] as const) {
      for (const token of [fresh, admin, admin]) {
        const res = await api(srv, 'GET', `/api/v1/flags/f?context=${encodeURIComponent(context)}`, { token })
        expect({ status: res.status, issues: res.body.details?.issues }).toEqual({ status: 400, issues: [issue] })
      }
    }
    const ok = await api(srv, 'GET', `/api/v1/flags/f?context=${encodeURIComponent('{"user_id":"\\ud83d\\ude00"}')}`, { token: admin })
    expect(ok.status).toBe(200)
  })
})

describe('paths: control characters and percent-encoding that is not UTF-8', () => {
  const SEGMENTS = ['a%00b', 'a%0A', '%1F', 'a%7F', '%FF', '%C3%28', '%ED%A0%80', '%zz']

  test('in every path parameter of every route: a 400 quoting the segment as sent, never a 404 or 500', async () => {
    const before = await state()
    let checked = 0
    for (const { method, path, body } of routes) {
      for (const param of [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)) {
        for (const segment of SEGMENTS) {
          const url = fill(path, param, segment)
          const res = await api(srv, method, url, { token: admin, ...(body && { body: {} }) })
          const message = expect400(`${method} ${url}`, path, res)
          expect(message).toContain(`segment "${segment}"`)
          expect(message).toMatch(/contains a control character|is not valid percent-encoded UTF-8/)
          // Neither the decoded character nor Bun's replacement character is echoed.
          expect(res.text).not.toMatch(/\\u00(00|0a|1f|7f)|\ufffd/i)
          if (path.startsWith('/ofrep/')) expect(res.body.key).toBe(segment)
          checked++
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(25 * SEGMENTS.length)
    expect(await state()).toEqual(before)
  })

  test('the evaluation reads hand such keys to the checked path, for tokens already in memory too', async () => {
    const reader = await createToken(srv, ['read:flags', 'read:configs'])
    for (const token of [reader, reader, admin]) {
      for (const url of [
        '/api/v1/flags/%FF',
        '/api/v1/flags/f%00',
        '/api/v1/configs/%C3%28',
        '/api/v1/configs/c%0A',
        '/api/v1/configs/c?environment=staging%00',
        '/api/v1/configs/c?environment=%FF',
      ]) {
        const res = await api(srv, 'GET', url, { token })
        expect({ url, status: res.status, code: res.body.code }).toEqual({ url, status: 400, code: 'VALIDATION_ERROR' })
      }
    }
    expect((await api(srv, 'GET', '/api/v1/configs/c?environment=staging', { token: reader })).body).toEqual({ value: 2 })
  })

  test('long and empty keys: compact 404s; an encoded key that decodes cleanly is that key', async () => {
    const long = await api(srv, 'GET', `/api/v1/flags/${'k'.repeat(10_000)}/definition`, { token: admin })
    expect([long.status, long.text.length < 500]).toEqual([404, true])
    expect((await api(srv, 'GET', '/api/v1/flags//definition', { token: admin })).status).toBe(404)
    expect((await api(srv, 'GET', '/api/v1/flags/%66', { token: admin })).body.value).toBe(true)
    expect((await api(srv, 'DELETE', `/api/v1/tokens/${'a'.repeat(10_000)}`, { token: admin })).status).toBe(404)
  })
})

describe('query parameters', () => {
  test('control characters and broken encoding in values and names: a 400 naming the parameter', async () => {
    const cases: [string, string, string][] = [
      ['/api/v1/audit?actor=a%00', 'actor', 'contains a control character (U+0000-U+001F or U+007F)'],
      ['/api/v1/audit?resource_key=%FF', 'resource_key', 'is not valid percent-encoded UTF-8'],
      ['/api/v1/audit?actor=%0D%0A', 'actor', 'contains a control character (U+0000-U+001F or U+007F)'],
      ['/api/v1/flags?a%00=1', 'a%00', 'parameter name contains a control character (U+0000-U+001F or U+007F)'],
      ['/api/v1/flags/f?%C3%28=1', '%C3%28', 'parameter name is not valid percent-encoded UTF-8'],
      ['/api/v1/flags/f?context=%FF', 'context', 'is not valid percent-encoded UTF-8'],
    ]
    for (const [url, path, message] of cases) {
      const res = await api(srv, 'GET', url, { token: admin })
      expect({ url, status: res.status, issues: res.body.details?.issues }).toEqual({ url, status: 400, issues: [{ path, message }] })
      expect(res.body.error).toBe(`Invalid query: ${path}: ${message}`)
    }
    const del = await api(srv, 'DELETE', '/api/v1/segments/s?force=true%00', { token: admin })
    expect(del.body.details.issues).toEqual([{ path: 'force', message: 'contains a control character (U+0000-U+001F or U+007F)' }])
    expect((await api(srv, 'GET', '/api/v1/segments/s', { token: admin })).status).toBe(200)
    // The JSON context may be pretty-printed: its whitespace is JSON's, not a control character to refuse.
    expect(
      (await api(srv, 'GET', `/api/v1/flags/f?context=${encodeURIComponent('{\n\t"user_id": "u"\n}')}`, { token: admin })).status,
    ).toBe(200)
  })

  test("Object.prototype's names: the unknown-parameter 400 where a route declares its query, ignored elsewhere", async () => {
    const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__proto__[x]']
    const declared = routes.filter((r) => r.query.length > 0 && !r.path.startsWith('/ofrep/'))
    expect(declared.length).toBeGreaterThanOrEqual(8)
    for (const { method, path, query } of declared) {
      for (const name of NAMES) {
        // Empty values too: `?toString=` once read Object.prototype.toString as paging bounds.
        const url = `${fill(path)}?${name}=`
        const c = credentials(permissionOf(method, path))
        const res = await api(srv, method, url, { token: c.token, headers: c.headers })
        expect({ url, status: res.status, issues: res.body?.details?.issues }).toEqual({
          url,
          status: 400,
          issues: [{ path: name, message: `unknown parameter; known: ${query.join(', ')}` }],
        })
      }
    }
    for (const url of ['/api/v1/me', '/api/v1/project', '/api/v1/webhooks', '/health']) {
      for (const name of NAMES)
        expect({ url, name, status: (await api(srv, 'GET', `${url}?${name}=1`, { token: admin })).status }).toEqual({
          url,
          name,
          status: 200,
        })
    }
    expect((await api(srv, 'POST', '/api/v1/evaluate?__proto__=1', { token: admin, body: {} })).body.details.issues).toEqual([
      { path: '__proto__', message: 'unknown parameter; this endpoint takes no query parameters' },
    ])
  })
})

describe('other odd requests', () => {
  test("the documentation's asset route does not find Object.prototype's members", async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const res = await api(srv, 'GET', `/docs/assets/${name}`)
      expect({ name, status: res.status, code: res.body?.code }).toEqual({ name, status: 404, code: 'NOT_FOUND' })
    }
  })

  test('numbers JSON cannot hold, garbage If-Match, odd Authorization bytes: 4xx', async () => {
    const before = await state()
    for (const text of ['{"key":"n","value":1e400}', '{"key":"n","value":[-1e999]}']) {
      expect((await raw('POST', '/api/v1/configs', text)).body.details.issues).toEqual([{ path: 'value', message: 'must be a JSON value' }])
    }
    for (const ifMatch of ['garbage', '"1", "2"', '"99999999999999999999"', 'W/', '"\u00ff"']) {
      const res = await api(srv, 'PUT', '/api/v1/configs/c', { token: admin, body: { value: 3 }, headers: { 'if-match': ifMatch } })
      expect({ ifMatch, status: res.status, path: res.body.details?.issues?.[0]?.path }).toEqual({ ifMatch, status: 400, path: 'If-Match' })
    }
    for (const authorization of [
      `Bearer ${'a'.repeat(10_000)}`,
      'Bearer \u00ff\u00fe',
      `Bearer ${admin}\u00e9`,
      'Bearer',
      'Basic Zm9vOmJhcg==',
    ]) {
      for (const url of ['/api/v1/me', '/api/v1/flags/f']) {
        const res = await api(srv, 'GET', url, { headers: { authorization } })
        expect({ url, status: res.status, code: res.body.code }).toEqual({ url, status: 401, code: 'UNAUTHORIZED' })
      }
    }
    expect(await state()).toEqual(before)
  })
})
