// GET /metrics through HTTP, as Prometheus scrapes it: after evaluations on every surface, management
// calls, 404s for random paths, a webhook delivery and an open stream, the series show route templates
// and fixed label values only, never a key or a token; METRICS_TOKEN protects it; it is outside /api
// (no rate limit, no CORS).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Server } from 'bun'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { openSse, type SseStream } from '../helpers/sse'
import { parsePrometheus, type Exposition } from '../helpers/prometheus'
import { until } from '../helpers/until'

const cleanups: (() => unknown)[] = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
})

const scrape = async (srv: TestServer, headers: Record<string, string> = {}) => {
  const res = await fetch(`${srv.url}/metrics`, { headers })
  return { status: res.status, headers: res.headers, text: await res.text() }
}
const metrics = async (srv: TestServer): Promise<{ text: string; e: Exposition }> => {
  const { status, text } = await scrape(srv)
  expect(status).toBe(200)
  return { text, e: parsePrometheus(text) }
}

const suffix = () => crypto.randomUUID().slice(0, 8)

describe('GET /metrics, open (no METRICS_TOKEN)', () => {
  let srv: TestServer
  let reader: string
  let stream: SseStream
  const flagKey = `secret-flag-${suffix()}`
  const configKey = `secret-config-${suffix()}`
  const scanPaths = [`/scan-${suffix()}/admin.php`, `/api/v1/${suffix()}-probe`, `/api/v2/${suffix()}/users`]
  const hits: number[] = []
  let receiverUrl = ''

  beforeAll(async () => {
    // A receiver that fails the first attempt and takes the second (the retry comes 1 s later).
    const rx: Server<unknown> = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch(req) {
        await req.text()
        hits.push(Date.now())
        return new Response(hits.length === 1 ? 'not yet' : 'ok', { status: hits.length === 1 ? 500 : 200 })
      },
    })
    cleanups.push(() => rx.stop(true))
    receiverUrl = `http://127.0.0.1:${rx.port}/hook-${suffix()}`
    srv = await startServer()
    cleanups.push(() => srv.stop())
    reader = await createToken(srv, ['read:flags', 'read:configs'])
  })

  test('counts by route template, method and status; evaluations per surface; webhooks; streams; no keys or tokens', async () => {
    const admin = srv.adminToken
    expect(
      (await api(srv, 'POST', '/api/v1/webhooks', { token: admin, body: { url: receiverUrl, events: ['flag.created'] } })).status,
    ).toBe(201)
    expect((await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: flagKey, enabled: true, value: true } })).status).toBe(201)
    expect((await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: configKey, value: { max: 3 } } })).status).toBe(201)
    expect((await api(srv, 'PUT', `/api/v1/flags/${flagKey}`, { token: admin, body: { value: false } })).status).toBe(200)
    expect((await api(srv, 'GET', '/api/v1/flags', { token: admin })).status).toBe(200)

    // Evaluations: GET one flag (fast path; then a 304 on its ETag), GET one config, bulk, OFREP single and bulk.
    const context = encodeURIComponent(JSON.stringify({ user_id: 'u-1' }))
    let etag = ''
    for (let i = 0; i < 3; i++) {
      const res = await api(srv, 'GET', `/api/v1/flags/${flagKey}?context=${context}`, { token: reader })
      expect(res.status).toBe(200)
      etag = res.headers.get('etag')!
    }
    expect(
      (await api(srv, 'GET', `/api/v1/flags/${flagKey}?context=${context}`, { token: reader, headers: { 'if-none-match': etag } })).status,
    ).toBe(304)
    for (let i = 0; i < 2; i++) expect((await api(srv, 'GET', `/api/v1/configs/${configKey}`, { token: reader })).status).toBe(200)
    expect((await api(srv, 'POST', '/api/v1/evaluate', { token: reader, body: { context: { user_id: 'u-1' } } })).status).toBe(200)
    for (let i = 0; i < 2; i++)
      expect(
        (await api(srv, 'POST', `/ofrep/v1/evaluate/flags/${flagKey}`, { token: reader, body: { context: { targetingKey: 'u-1' } } }))
          .status,
      ).toBe(200)
    expect((await api(srv, 'POST', '/ofrep/v1/evaluate/flags', { token: reader, body: { context: { targetingKey: 'u-1' } } })).status).toBe(
      200,
    )

    // Refusals and unknown things: a wrong token, an unknown flag, random paths (a scanner).
    expect((await api(srv, 'GET', `/api/v1/flags/${flagKey}`, { token: `ff_defa_${'x'.repeat(20)}` })).status).toBe(401)
    expect((await api(srv, 'GET', `/api/v1/flags/missing-${flagKey}`, { token: reader })).status).toBe(404)
    for (const path of scanPaths) expect((await api(srv, 'GET', path, { token: admin })).status).toBe(404)
    expect((await api(srv, 'PATCH', `/api/v1/flags/${flagKey}`, { token: admin, body: {} })).status).toBe(405)

    // The webhook: its first attempt fails; while the retry waits, the delivery is queued.
    await until('the first attempt', async () => hits.length >= 1)
    expect((await metrics(srv)).e.value('flagship_webhook_queue_depth')).toBe(1)
    await until(
      'the delivery',
      async () => (await metrics(srv)).e.value('flagship_webhook_deliveries_total', { outcome: 'delivered' }) === 1,
    )

    stream = await openSse(`${srv.url}/api/v1/stream`, { authorization: `Bearer ${reader}` })
    cleanups.push(() => stream.close())
    await stream.next((ev) => ev.event === 'ready')

    const { text, e } = await metrics(srv)
    const requests = (route: string, method: string, status: number) =>
      e.value('flagship_http_requests_total', { route, method, status: String(status) })
    expect(requests('/api/v1/flags/:key', 'GET', 200)).toBe(3)
    expect(requests('/api/v1/flags/:key', 'GET', 304)).toBe(1)
    expect(requests('/api/v1/flags/:key', 'GET', 401)).toBe(1)
    expect(requests('/api/v1/flags/:key', 'GET', 404)).toBe(1)
    expect(requests('/api/v1/flags/:key', 'PUT', 200)).toBe(1)
    expect(requests('/api/v1/flags/:key', 'PATCH', 405)).toBe(1)
    expect(requests('/api/v1/configs/:key', 'GET', 200)).toBe(2)
    expect(requests('/api/v1/flags', 'POST', 201)).toBe(1)
    expect(requests('/api/v1/flags', 'GET', 200)).toBe(1)
    expect(requests('/api/v1/evaluate', 'POST', 200)).toBe(1)
    expect(requests('/ofrep/v1/evaluate/flags/:key', 'POST', 200)).toBe(2)
    expect(requests('/ofrep/v1/evaluate/flags', 'POST', 200)).toBe(1)
    expect(requests('unmatched', 'GET', 404)).toBe(scanPaths.length)
    expect(requests('/metrics', 'GET', 200)).toBeGreaterThanOrEqual(2)

    // The histogram holds every answer of a route, fast path and router alike.
    for (const [route, method] of [
      ['/api/v1/flags/:key', 'GET'],
      ['/ofrep/v1/evaluate/flags/:key', 'POST'],
      ['unmatched', 'GET'],
    ] as const) {
      const answered = e.find('flagship_http_requests_total', { route, method }).reduce((n, s) => n + s.value, 0)
      expect({ route, count: e.value('flagship_http_request_duration_seconds_count', { route, method }) }).toEqual({
        route,
        count: answered,
      })
    }
    expect(Object.fromEntries(e.find('flagship_evaluations_total').map((s) => [s.labels.surface, s.value]))).toEqual({
      flag: 4,
      config: 2,
      bulk: 1,
      ofrep_single: 2,
      ofrep_bulk: 1,
    })
    expect(e.value('flagship_webhook_deliveries_total', { outcome: 'failed_attempt' })).toBe(1)
    expect(e.value('flagship_webhook_deliveries_total', { outcome: 'failed' })).toBe(0)
    expect(e.value('flagship_webhook_queue_depth')).toBe(0)
    expect(e.value('flagship_stream_subscribers')).toBe(1)
    expect(e.find('flagship_store_errors_total').every((s) => s.value === 0)).toBe(true)

    // Labels are templates and fixed words: no key, token, random path or receiver URL anywhere.
    for (const secret of [flagKey, configKey, admin, reader, receiverUrl, ...scanPaths, ...scanPaths.map((p) => p.split('/').at(-1)!)])
      expect(text).not.toContain(secret)
    const routes = new Set(e.samples.map((s) => s.labels.route).filter(Boolean))
    for (const route of routes) expect(route).toMatch(/^(unmatched|\/(?:[a-z0-9._-]+|:[a-z]+|\*)(?:\/(?:[a-z0-9._-]+|:[a-z]+|\*))*)$/)

    stream.close()
    await until('the stream to close', async () => (await metrics(srv)).e.value('flagship_stream_subscribers') === 0)
  })

  test('text/plain in the Prometheus format, not cached, and not part of /api: no CORS headers', async () => {
    const res = await scrape(srv, { origin: 'https://app.example.com' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    expect(res.headers.get('x-ratelimit-limit')).toBeNull()
  })

  test('documented in the OpenAPI document as text/plain, optionally with the metrics bearer token', async () => {
    const doc = (await api(srv, 'GET', '/openapi.json')).body
    const op = doc.paths['/metrics'].get
    expect(Object.keys(op.responses['200'].content)).toEqual(['text/plain'])
    expect(op.security).toEqual([{}, { metrics: [] }])
    expect(doc.components.securitySchemes.metrics).toMatchObject({ type: 'http', scheme: 'bearer' })
  })
})

describe('GET /metrics with METRICS_TOKEN', () => {
  const token = `scrape-${crypto.randomUUID()}`
  let srv: TestServer

  beforeAll(async () => {
    // The smallest rate limits: /metrics must not be counted against any.
    srv = await startServer({ env: { METRICS_TOKEN: token, RATE_LIMIT_MANAGEMENT_PER_MINUTE: '1', RATE_LIMIT_EVALUATION_PER_MINUTE: '1' } })
    cleanups.push(() => srv.stop())
  })

  test('401 JSON without the token, with a wrong one, or with another scheme; 200 with it, as often as scraped', async () => {
    const refused: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${token}x` },
      { authorization: `Bearer ${token.slice(0, -1)}` },
      { authorization: `Bearer ${srv.adminToken}` },
      { authorization: `Basic ${btoa(`prometheus:${token}`)}` },
      { authorization: token },
    ]
    for (const headers of refused) {
      const res = await scrape(srv, headers)
      expect(res.status).toBe(401)
      expect(res.headers.get('content-type')).toStartWith('application/json')
      expect(res.headers.get('www-authenticate')).toBe('Bearer')
      expect(JSON.parse(res.text)).toMatchObject({ code: 'UNAUTHORIZED' })
      expect(res.text).not.toContain(token)
    }
    for (let i = 0; i < 5; i++) {
      const res = await scrape(srv, { authorization: `Bearer ${token}` })
      expect(res.status).toBe(200)
      expect(parsePrometheus(res.text).value('flagship_http_requests_total', { route: '/metrics', method: 'GET', status: '401' })).toBe(
        refused.length,
      )
    }
  })
})
