// The pieces of GET /metrics in process: route templates for labels, the per-route counters, and the
// prom-client exposition (its format, and a store that fails or hangs while being scraped).
import { describe, expect, test } from 'bun:test'
import { LATENCY_BUCKETS, RequestMetrics, UNMATCHED } from '../../server/metrics/requests'
import { countRequests } from '../../server/http/count-requests'
import { routeTemplates } from '../../server/http/route-templates'
import { OperationCounts } from '../../server/metrics/counts'
import { createExposition, PROMETHEUS_CONTENT_TYPE, type MetricsSources } from '../../server/metrics/exposition'
import { buildRegistry, QUEUE_DEPTH_TIMEOUT_MS } from '../../server/metrics/registry'
import { loadSettings } from '../../server/settings'
import { parsePrometheus } from '../helpers/prometheus'

describe('route templates', () => {
  const templateOf = routeTemplates([
    '/api/v1/flags',
    '/api/v1/flags/:key',
    '/api/v1/flags/:key/definition',
    '/api/v1/flags/:key/environments/:env',
    '/api/v1/stream',
    '/api/v1/stream/tickets',
    '/docs/assets/init.js',
    '/docs/assets/:file',
    '/files/*',
    '/health',
  ])

  test('a path gets the template it matches, literal segments before parameters before wildcards', () => {
    expect(templateOf('/api/v1/flags')).toBe('/api/v1/flags')
    expect(templateOf('/api/v1/flags/new-checkout')).toBe('/api/v1/flags/:key')
    expect(templateOf('/api/v1/flags/definition')).toBe('/api/v1/flags/:key')
    expect(templateOf('/api/v1/flags/x/definition')).toBe('/api/v1/flags/:key/definition')
    expect(templateOf('/api/v1/flags/x/environments/production')).toBe('/api/v1/flags/:key/environments/:env')
    expect(templateOf('/api/v1/stream/tickets')).toBe('/api/v1/stream/tickets')
    expect(templateOf('/docs/assets/init.js')).toBe('/docs/assets/init.js')
    expect(templateOf('/docs/assets/swagger-ui.css')).toBe('/docs/assets/:file')
    expect(templateOf('/files/a/b/c')).toBe('/files/*')
  })

  test('anything else matches nothing: unknown paths, empty parameters, extra segments', () => {
    for (const path of [
      '/',
      '/api',
      '/api/v1/flags/',
      '/api/v1/flags/x/y',
      '/api/v1/flags/x/environments/',
      '/nope',
      'relative',
      '/health/x',
    ]) {
      expect({ path, template: templateOf(path) }).toEqual({ path, template: undefined })
    }
  })
})

describe('request metrics', () => {
  test('a series counts answers by status and latency per bucket; methods outside the known set share OTHER', () => {
    const m = new RequestMetrics()
    const s = m.series('/api/v1/flags/:key', 'GET')
    expect(m.series('/api/v1/flags/:key', 'GET')).toBe(s)
    s.record(200, 0.0001)
    s.record(200, 0.003)
    s.record(304, 20)
    expect([s.statuses[200], s.statuses[304], s.count]).toEqual([2, 1, 3])
    expect(s.sum).toBeCloseTo(20.0031, 6)
    expect(s.buckets[0]).toBe(1) // <= 0.5 ms
    expect(s.buckets[LATENCY_BUCKETS.indexOf(0.005)]).toBe(1)
    expect(s.buckets[LATENCY_BUCKETS.length]).toBe(1) // above 10 s
    expect(m.series('/x', 'PROPFIND')).toBe(m.series('/x', 'BREW'))
    expect(m.series('/x', 'BREW').method).toBe('OTHER')
  })

  test('the Elysia wrapper records each answer under its template, or unmatched; a thrown error counts as 500', async () => {
    const m = new RequestMetrics()
    const wrap = countRequests(m, routeTemplates(['/api/v1/flags/:key']))
    const req = (path: string, method = 'GET') => new Request(`http://localhost${path}?context=%7B%7D`, { method })
    // twice: the second finds the path's template remembered
    for (let i = 0; i < 2; i++) expect(wrap(() => new Response('ok'))(req('/api/v1/flags/secret-key'))).toBeInstanceOf(Response)
    await wrap(async () => new Response(null, { status: 404 }))(req('/scan/secret-path'))
    await expect(
      wrap(async () => {
        throw new Error('boom')
      })(req('/api/v1/flags/k', 'DELETE')) as Promise<unknown>,
    ).rejects.toThrow('boom')
    const got = [...m.all()].map((s) => ({
      route: s.route,
      method: s.method,
      statuses: Object.fromEntries([...s.statuses.entries()].filter(([, n]) => n > 0)),
      count: s.count,
    }))
    expect(got).toEqual([
      { route: '/api/v1/flags/:key', method: 'GET', statuses: { 200: 2 }, count: 2 },
      { route: '/api/v1/flags/:key', method: 'DELETE', statuses: { 500: 1 }, count: 1 },
      { route: UNMATCHED, method: 'GET', statuses: { 404: 1 }, count: 1 },
    ])
  })
})

function sources(over: Partial<MetricsSources> = {}): MetricsSources {
  return { requests: new RequestMetrics(), counts: new OperationCounts(), subscribers: () => 3, queueDepth: async () => 7, ...over }
}

describe('exposition', () => {
  test('every series in the Prometheus text format, evaluations derived from the evaluation routes', async () => {
    const src = sources()
    const flag = src.requests.series('/api/v1/flags/:key', 'GET')
    flag.record(200, 0.0002)
    flag.record(304, 0.0002)
    flag.record(404, 0.002)
    src.requests.series('/ofrep/v1/evaluate/flags', 'POST').record(200, 0.01)
    src.counts.delivery('delivered')
    src.counts.delivery('failed_attempt')
    src.counts.storeError('http')
    const text = await createExposition(src).text()
    const e = parsePrometheus(text)
    expect(Object.fromEntries(e.types)).toEqual({
      flagship_http_requests_total: 'counter',
      flagship_http_request_duration_seconds: 'histogram',
      flagship_evaluations_total: 'counter',
      flagship_webhook_deliveries_total: 'counter',
      flagship_webhook_queue_depth: 'gauge',
      flagship_stream_subscribers: 'gauge',
      flagship_store_errors_total: 'counter',
    })
    for (const name of e.types.keys()) expect(e.help.get(name)).toBeTruthy()
    expect(e.value('flagship_http_requests_total', { route: '/api/v1/flags/:key', method: 'GET', status: '404' })).toBe(1)
    expect(e.value('flagship_http_request_duration_seconds_count', { route: '/api/v1/flags/:key', method: 'GET' })).toBe(3)
    expect(e.value('flagship_http_request_duration_seconds_bucket', { route: '/api/v1/flags/:key', method: 'GET', le: '0.0005' })).toBe(2)
    expect(e.value('flagship_http_request_duration_seconds_bucket', { route: '/api/v1/flags/:key', method: 'GET', le: '0.0025' })).toBe(3)
    expect(Object.fromEntries(e.find('flagship_evaluations_total').map((s) => [s.labels.surface, s.value]))).toEqual({
      flag: 2,
      config: 0,
      bulk: 0,
      ofrep_single: 0,
      ofrep_bulk: 1,
    })
    expect(Object.fromEntries(e.find('flagship_webhook_deliveries_total').map((s) => [s.labels.outcome, s.value]))).toEqual({
      delivered: 1,
      failed_attempt: 1,
      failed: 0,
    })
    expect(e.value('flagship_webhook_queue_depth')).toBe(7)
    expect(e.value('flagship_stream_subscribers')).toBe(3)
    expect(Object.fromEntries(e.find('flagship_store_errors_total').map((s) => [s.labels.source, s.value]))).toEqual({
      http: 1,
      webhooks: 0,
      schedules: 0,
      reconcile: 0,
      metrics: 0,
    })
  })

  test("the content type served is prom-client's registry's own (the registry loads only at the first scrape)", () => {
    expect(buildRegistry(sources()).contentType).toBe(PROMETHEUS_CONTENT_TYPE)
    expect(createExposition(sources()).contentType).toBe(PROMETHEUS_CONTENT_TYPE)
  })

  test('a store that fails or hangs: the scrape still answers, without the queue depth, and counts the error', async () => {
    let depth: () => Promise<number> = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })
    }
    const src = sources({ queueDepth: () => depth() })
    const exposition = createExposition(src)
    let e = parsePrometheus(await exposition.text())
    expect(e.types.get('flagship_webhook_queue_depth')).toBe('gauge')
    expect(e.find('flagship_webhook_queue_depth')).toEqual([])
    expect(e.value('flagship_store_errors_total', { source: 'metrics' })).toBe(1)
    expect(e.value('flagship_stream_subscribers')).toBe(3)

    depth = () => new Promise(() => {})
    const started = Date.now()
    e = parsePrometheus(await exposition.text())
    expect(Date.now() - started).toBeGreaterThanOrEqual(QUEUE_DEPTH_TIMEOUT_MS - 50)
    expect(Date.now() - started).toBeLessThan(QUEUE_DEPTH_TIMEOUT_MS + 1000)
    expect(e.find('flagship_webhook_queue_depth')).toEqual([])
    expect(e.value('flagship_store_errors_total', { source: 'metrics' })).toBe(2)

    depth = async () => 4
    e = parsePrometheus(await exposition.text())
    expect(e.value('flagship_webhook_queue_depth')).toBe(4)
  })

  test('overlapping scrapes share one count of the queue', async () => {
    let calls = 0
    const exposition = createExposition(sources({ queueDepth: async () => (calls++, await Bun.sleep(50), 2) }))
    const texts = await Promise.all([exposition.text(), exposition.text(), exposition.text()])
    expect(calls).toBe(1)
    for (const t of texts) expect(parsePrometheus(t).value('flagship_webhook_queue_depth')).toBe(2)
    await exposition.text()
    expect(calls).toBe(2)
  })
})

describe('METRICS_TOKEN', () => {
  test('unset or empty: none; otherwise 16 to 256 visible ASCII characters, and the error never quotes it', () => {
    expect(loadSettings({}).metricsToken).toBeUndefined()
    expect(loadSettings({ METRICS_TOKEN: '' }).metricsToken).toBeUndefined()
    expect(loadSettings({ METRICS_TOKEN: 'scrape-me-0123456789' }).metricsToken).toBe('scrape-me-0123456789')
    for (const bad of ['too-short-15chr', 'has a space in it!!', 'x'.repeat(257), 'tab\there-0123456789', 'non-ascii-é-0123456789']) {
      expect(() => loadSettings({ METRICS_TOKEN: bad })).toThrow(/METRICS_TOKEN must be/)
      try {
        loadSettings({ METRICS_TOKEN: bad })
      } catch (e) {
        expect((e as Error).message).not.toContain(bad)
      }
    }
  })
})
