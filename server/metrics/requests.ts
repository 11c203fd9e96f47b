// HTTP request metrics, kept as plain numbers per route template and method: answers by status code and a
// latency histogram. Nothing here formats or labels anything per request; the Prometheus registry
// (metrics/exposition.ts) reads these numbers when /metrics is scraped.
//
// Two writers:
//  - the fast paths ahead of Elysia (http/fast-evaluation.ts, http/fast-ofrep.ts; picked by
//    http/fast-dispatch.ts) resolve their RouteSeries once at start and call `record` per answer: array increments and
//    two additions, no lookups, no allocation;
//  - every request Elysia answers (the fast paths' fallbacks, errors and early refusals included) passes
//    through `countRequests` (http/count-requests.ts), Elysia's `wrap`, which finds the series by the route
//    template of its path (http/route-templates.ts) or files it under UNMATCHED.
// Imports nothing: http/, relay/ and metrics/exposition.ts all stand on it.

/** Upper bounds of the latency histogram, in seconds: most answers come from memory in well under 1 ms. */
export const LATENCY_BUCKETS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const BOUNDS = Float64Array.from(LATENCY_BUCKETS)

/** The route label of a request whose path is none of the app's routes (404s, the console's own pages). */
export const UNMATCHED = 'unmatched'

/** Methods that get their own label; anything else is OTHER, so the method label stays bounded too. */
const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
export const methodLabel = (method: string): string => (METHODS.has(method) ? method : 'OTHER')

export class RouteSeries {
  /** answers by status code (the index is the code) */
  readonly statuses = new Float64Array(600)
  /** latency observations per bucket of LATENCY_BUCKETS, not cumulative; the last slot is above them all */
  readonly buckets = new Float64Array(BOUNDS.length + 1)
  /** seconds, summed over every observation */
  sum = 0
  count = 0

  constructor(
    readonly route: string,
    readonly method: string,
  ) {}

  /** One answer: its status code and how long it took from the handler's start to its Response. */
  record(status: number, seconds: number): void {
    this.statuses[status]++
    let i = 0
    while (i < BOUNDS.length && seconds > BOUNDS[i]!) i++
    this.buckets[i]++
    this.sum += seconds
    this.count++
  }
}

export class RequestMetrics {
  private byRoute = new Map<string, Map<string, RouteSeries>>()

  /** The series of a route template and method, created on first use. Routes are the app's templates and
   *  methods are kept by their label (`methodLabel`), so the number of series is bounded. */
  series(route: string, method: string): RouteSeries {
    let byMethod = this.byRoute.get(route)
    if (byMethod === undefined) this.byRoute.set(route, (byMethod = new Map()))
    let series = byMethod.get(method)
    if (series === undefined) {
      const label = methodLabel(method)
      series = byMethod.get(label) ?? new RouteSeries(route, label)
      byMethod.set(label, series)
    }
    return series
  }

  *all(): IterableIterator<RouteSeries> {
    for (const byMethod of this.byRoute.values()) yield* byMethod.values()
  }
}
