// GET /metrics in the Prometheus text format, through prom-client's registry (names, escaping, layout),
// built at the first scrape (exposition.ts).
// Everything is read at scrape time from numbers the service keeps anyway (requests.ts, counts.ts) or
// asks for then (stream subscribers, the webhook queue's depth), so the request path never touches
// prom-client and nothing is computed between scrapes. Label values are fixed sets or route templates:
// never a flag key, a token or other text a client sent.
import { relaySeries, type RelaySources } from './relay-series'
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { LATENCY_BUCKETS, type RequestMetrics, type RouteSeries } from './requests'
import { DELIVERY_OUTCOMES, STORE_ERROR_SOURCES, type OperationCounts } from './counts'

/** How long a scrape waits for the queue-depth count before reporting without it. */
export const QUEUE_DEPTH_TIMEOUT_MS = 2000

export interface MetricsSources {
  requests: RequestMetrics
  counts: OperationCounts
  /** open change streams, native and OFREP */
  subscribers: () => number
  /** webhook deliveries pending or being delivered (one COUNT in the store); absent on a relay */
  queueDepth?: () => Promise<number>
  /** a relay's upstream, data age, change number and forwarded batches (relay-series.ts) */
  relay?: RelaySources
}

/** The evaluation surfaces and the route whose answered requests (200 or 304) are each one's evaluations. */
const SURFACES: readonly [surface: string, route: string, method: string][] = [
  ['flag', '/api/v1/flags/:key', 'GET'],
  ['config', '/api/v1/configs/:key', 'GET'],
  ['bulk', '/api/v1/evaluate', 'POST'],
  ['ofrep_single', '/ofrep/v1/evaluate/flags/:key', 'POST'],
  ['ofrep_bulk', '/ofrep/v1/evaluate/flags', 'POST'],
]

type HistogramData = Awaited<ReturnType<Histogram['get']>>

/** The request-latency histogram. prom-client's Histogram takes one observation per call (hashing its
 *  labels each time); ours are already counted per bucket in each RouteSeries, so this subclass hands the
 *  registry those counts, in the shape Histogram itself produces, instead of its own (empty) state. */
class RouteLatencyHistogram extends Histogram<'route' | 'method'> {
  constructor(
    registry: Registry,
    private readonly requests: RequestMetrics,
  ) {
    super({
      name: 'flagship_http_request_duration_seconds',
      help: 'Time from a request reaching its handler to its response, by route template and method',
      labelNames: ['route', 'method'],
      buckets: [...LATENCY_BUCKETS],
      registers: [registry],
    })
  }

  private snapshot(): HistogramData {
    const name = 'flagship_http_request_duration_seconds'
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = []
    for (const s of this.requests.all()) {
      if (s.count === 0) continue
      const labels = { route: s.route, method: s.method }
      let cumulative = 0
      LATENCY_BUCKETS.forEach((le, i) => {
        cumulative += s.buckets[i]!
        values.push({ labels: { ...labels, le }, value: cumulative, metricName: `${name}_bucket` })
      })
      values.push({ labels: { ...labels, le: '+Inf' }, value: s.count, metricName: `${name}_bucket` })
      values.push({ labels, value: s.sum, metricName: `${name}_sum` })
      values.push({ labels, value: s.count, metricName: `${name}_count` })
    }
    return {
      name,
      help: 'Time from a request reaching its handler to its response, by route template and method',
      type: 'histogram',
      values,
      aggregator: 'sum',
    } as unknown as HistogramData
  }

  override async get(): Promise<HistogramData> {
    return this.snapshot()
  }

  /** What the registry calls when it writes the text format (Histogram's own reads its empty state). */
  async getForPromString(): Promise<HistogramData> {
    return this.snapshot()
  }
}

const evaluations = (s: RouteSeries): number => s.statuses[200]! + s.statuses[304]!

export function buildRegistry(sources: MetricsSources): { contentType: string; text(): Promise<string> } {
  const { requests, counts } = sources
  const registry = new Registry()

  new Counter({
    name: 'flagship_http_requests_total',
    help: 'HTTP requests answered, by route template (unmatched: no route), method and status code',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
    collect() {
      this.reset()
      for (const s of requests.all()) {
        for (let status = 100; status < s.statuses.length; status++) {
          const n = s.statuses[status]!
          if (n > 0) this.inc({ route: s.route, method: s.method, status }, n)
        }
      }
    },
  })
  new RouteLatencyHistogram(registry, requests)

  new Counter({
    name: 'flagship_evaluations_total',
    help:
      'Evaluation requests answered (200 or 304), by surface: ' +
      'flag and config (GET one), bulk (POST /api/v1/evaluate), ofrep_single, ofrep_bulk; a bulk request counts once',
    labelNames: ['surface'],
    registers: [registry],
    collect() {
      this.reset()
      for (const [surface, route, method] of SURFACES) this.inc({ surface }, evaluations(requests.series(route, method)))
    },
  })

  new Counter({
    name: 'flagship_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: delivered; failed_attempt (another is scheduled); failed (none left: given up)',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      this.reset()
      for (const outcome of DELIVERY_OUTCOMES) this.inc({ outcome }, counts.deliveries[outcome])
    },
  })

  // The queue depth is the one figure read from the store: counted once per scrape, before the registry
  // collects (so a failure shows in this scrape's store errors); scrapes that overlap share the count. The
  // store down or slow: undefined, and the rest of the scrape is still true.
  let depth: number | undefined
  let counting: Promise<void> | undefined
  const countQueue = (): Promise<void> =>
    (counting ??= new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer within ${QUEUE_DEPTH_TIMEOUT_MS} ms`)), QUEUE_DEPTH_TIMEOUT_MS)
      ;(sources.queueDepth ?? (() => Promise.reject(new Error('no store'))))()
        .then(resolve, reject)
        .finally(() => clearTimeout(timer))
    })
      .then(
        (n) => void (depth = n),
        () => {
          depth = undefined
          counts.storeError('metrics')
        },
      )
      .finally(() => (counting = undefined)))

  new Gauge({
    name: 'flagship_webhook_queue_depth',
    help: 'Webhook deliveries waiting to be sent or being sent (absent when the store did not answer)',
    registers: [registry],
    collect() {
      if (depth === undefined) this.remove()
      else this.set(depth)
    },
  })

  new Gauge({
    name: 'flagship_stream_subscribers',
    help: 'Open change streams (GET /api/v1/stream and /ofrep/v1/stream) on this instance',
    registers: [registry],
    collect() {
      this.set(sources.subscribers())
    },
  })

  new Counter({
    name: 'flagship_store_errors_total',
    help: 'Store errors by where they surfaced: http (503 answers), webhooks, schedules, reconcile, metrics',
    labelNames: ['source'],
    registers: [registry],
    collect() {
      this.reset()
      for (const source of STORE_ERROR_SOURCES) this.inc({ source }, counts.storeErrors[source])
    },
  })

  if (sources.relay) relaySeries(registry, sources.relay)

  return {
    contentType: registry.contentType,
    async text() {
      if (sources.queueDepth) await countQueue()
      return registry.metrics()
    },
  }
}
