// /openapi.json is strict OpenAPI 3.0 and tells the truth: every nullable schema has a type, every query
// parameter a route takes is documented, every example satisfies its own schema, and the documented
// examples, replayed against a real server, get exactly the documented answers.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import Ajv from 'ajv'
import { api, startServer, type TestServer } from '../helpers/server'

let srv: TestServer
let doc: any
beforeAll(async () => {
  srv = await startServer()
  doc = (await api(srv, 'GET', '/openapi.json')).body
})
afterAll(() => srv.stop())

/** Every object in the document with its JSON path. */
function* nodes(value: unknown, path = '#'): Generator<[string, Record<string, any>]> {
  if (Array.isArray(value)) for (const [i, v] of value.entries()) yield* nodes(v, `${path}/${i}`)
  else if (value && typeof value === 'object') {
    yield [path, value as Record<string, any>]
    for (const [k, v] of Object.entries(value)) yield* nodes(v, `${path}/${k}`)
  }
}

test('strict OpenAPI 3.0: the validator accepts it and every schema with nullable has a type', async () => {
  await SwaggerParser.validate(structuredClone(doc))
  const untyped = [...nodes(doc)].filter(([, n]) => 'nullable' in n && !('type' in n)).map(([p]) => p)
  expect(untyped).toEqual([])
})

test('every query parameter the routes take is documented', () => {
  const query = (method: string, path: string) =>
    (doc.paths[path]?.[method]?.parameters ?? [])
      .filter((p: any) => p.in === 'query')
      .map((p: any) => p.name)
      .sort()
  expect(query('get', '/api/v1/flags/{key}')).toEqual(['context'])
  expect(query('get', '/api/v1/configs/{key}')).toEqual(['environment'])
  expect(query('get', '/api/v1/flags')).toEqual(['archived', 'limit', 'offset', 'q', 'stale', 'tag'])
  for (const list of ['/api/v1/configs', '/api/v1/segments', '/api/v1/tokens']) expect(query('get', list)).toEqual(['limit', 'offset'])
  expect(query('get', '/api/v1/flags/{key}/usage')).toEqual(['environment', 'since', 'until'])
  expect(query('get', '/api/v1/audit')).toEqual(['action', 'actor', 'limit', 'offset', 'resource_key', 'resource_type', 'since', 'until'])
  expect(query('get', '/api/v1/webhooks/{id}/deliveries')).toEqual(['limit'])
  for (const list of ['/api/v1/schedules', '/api/v1/flags/{key}/schedules'])
    expect(query('get', list)).toEqual(['limit', 'offset', 'status'])
  expect(query('delete', '/api/v1/segments/{key}')).toEqual(['force'])
  expect(query('delete', '/api/v1/project/environments/{name}')).toEqual(['force'])
})

test('every example satisfies the schema it documents', () => {
  const ajv = new Ajv({ strict: false, allErrors: true })
  const examples = [...nodes(doc)].filter(([, n]) => 'example' in n && (n.type || n.properties || n.anyOf))
  expect(examples.length).toBeGreaterThanOrEqual(4)
  for (const [path, node] of examples) {
    const { example, ...schema } = node
    const validate = ajv.compile(schema)
    expect({ path, ok: validate(example), errors: validate.errors ?? null }).toEqual({ path, ok: true, errors: null })
  }
})

test('the documented examples, sent to a real server, get the documented answers', async () => {
  const schemaOf = (title: string) => [...nodes(doc)].find(([, n]) => n.title === title && 'example' in n)?.[1].example
  const flag = schemaOf('FlagCreate')
  const context = schemaOf('EvaluationContext')
  const result = schemaOf('EvaluationResult')
  const error = schemaOf('Error')
  expect([flag, context, result, error].every(Boolean)).toBe(true)
  expect((await api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: flag })).status).toBe(201)
  const answer = await api(srv, 'GET', `/api/v1/flags/${flag.key}?context=${encodeURIComponent(JSON.stringify(context))}`, {
    token: srv.adminToken,
  })
  expect(answer.body).toEqual(result)
  const bulk = await api(srv, 'POST', '/api/v1/evaluate', { token: srv.adminToken, body: { context, flags: [flag.key] } })
  expect(bulk.body.flags[flag.key]).toEqual(result.value)
  const missing = await api(srv, 'GET', `/api/v1/flags/${/"(.+)"/.exec(error.error)![1]}`, { token: srv.adminToken })
  expect(missing.body).toEqual(error)
})

test('the streams are documented as text/event-stream, the ticket endpoint as JSON', () => {
  for (const path of ['/api/v1/stream', '/ofrep/v1/stream']) {
    expect(Object.keys(doc.paths[path].get.responses['200'].content)).toEqual(['text/event-stream'])
    expect(doc.paths[path].get.parameters.map((p: any) => p.name).sort()).toEqual(['last_event_id', 'ticket'])
  }
  expect(doc.paths['/api/v1/stream/tickets'].post.responses['200'].content['application/json'].schema.required).toEqual([
    'ticket',
    'expires_at',
    'url',
  ])
  expect(
    doc.paths['/ofrep/v1/evaluate/flags'].post.responses['200'].content['application/json'].schema.properties.eventStreams,
  ).toBeDefined()
})

test('the flag lifecycle is documented: archive, restore, history, rollback, explain, their events and actions', () => {
  const ops = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
  )
  for (const op of [
    'POST /api/v1/flags/{key}/archive',
    'POST /api/v1/flags/{key}/restore',
    'GET /api/v1/flags/{key}/history',
    'POST /api/v1/flags/{key}/rollback',
    'POST /api/v1/flags/{key}/explain',
  ]) {
    expect(ops).toContain(op)
  }
  const text = JSON.stringify(doc)
  for (const word of [
    'flag.archived',
    'flag.restored',
    'flag.rolled_back',
    'prerequisite_failed',
    'distribution',
    'default_variant',
    'prerequisites',
  ])
    expect(text).toContain(word)
  // The audit entry's action enum lists the new actions.
  expect(text).toContain('"create","update","delete","archive","restore","rollback"')
})

test('no <placeholder> anywhere in the document: descriptions, summaries, examples write them {like_this}', () => {
  // Swagger UI renders descriptions as Markdown with HTML, so `<token>` outside a code span is an unknown tag
  // and vanishes; summaries and examples are shown as they are. Braces read the same everywhere.
  const bracketed: string[] = []
  const visit = (value: unknown, path: string): void => {
    if (typeof value === 'string') {
      if (/<[A-Za-z][^<>]*>/.test(value)) bracketed.push(`${path}: ${value}`)
    } else if (Array.isArray(value)) value.forEach((v, i) => visit(v, `${path}/${i}`))
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(v, `${path}/${k}`)
  }
  visit(doc, '#')
  expect(bracketed).toEqual([])
  expect(doc.components.securitySchemes.bearer.description).toContain('`ff_{project}_{random}`')
  expect(doc.paths['/ofrep/v1/evaluate/flags/{key}'].post.description).toContain('`Authorization: Bearer {token}`')
})

test('X-API-Key is a declared scheme, on exactly the evaluation operations; servers names this service', () => {
  expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' })
  const withKey: string[] = []
  for (const [path, ops] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops))
      if (op.security?.some((s: any) => 'apiKey' in s)) withKey.push(`${method.toUpperCase()} ${path}`)
  }
  expect(withKey.sort()).toEqual(
    [
      'GET /api/v1/configs/{key}',
      'GET /api/v1/flags/{key}',
      'GET /api/v1/stream',
      'GET /ofrep/v1/stream',
      'POST /api/v1/evaluate',
      'POST /ofrep/v1/evaluate/flags',
      'POST /ofrep/v1/evaluate/flags/{key}',
    ].sort(),
  )
  // Every operation that takes the key takes the bearer token too.
  for (const entry of withKey) {
    const [method, path] = entry.split(' ') as [string, string]
    expect(doc.paths[path][method.toLowerCase()].security).toContainEqual({ bearer: [] })
  }
  expect(doc.servers).toEqual([{ url: srv.url, description: expect.any(String) }])
})

test('servers comes from PUBLIC_URL when it is set', async () => {
  const other = await startServer({ env: { PUBLIC_URL: 'https://flags.example.com/base' } })
  try {
    const served = (await api(other, 'GET', '/openapi.json')).body
    expect(served.servers.map((s: any) => s.url)).toEqual(['https://flags.example.com/base'])
    await SwaggerParser.validate(structuredClone(served))
  } finally {
    await other.stop()
  }
})
