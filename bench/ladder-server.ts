// Stand-in servers for bench/request-path.ts, one per BENCH_VARIANT, each adding one layer of what the real
// GET /api/v1/flags/:key does, so the cost of each layer shows up as a drop in requests/s:
//   elysia-hello     Elysia, one route, a fixed Response
//   (elysia-sync-hook, elysia-async-hook, elysia-auth, elysia-set-headers, elysia-set-headers-value, bun-async: single-factor
//   variants of the hook step; pick them with BENCH_VARIANTS in bench/request-path.ts)
//   elysia-query     + `/api/v1/flags/:key` with a query schema; reads query.context (Elysia's JS URL decoding) and JSON.parses it
//   elysia-hooks     + an async onRequest hook doing what app.ts does: path check, SHA-256 of the token, map lookup,
//                      WeakMap caller, sliding-window limiter, X-RateLimit-* into set.headers; and the route's `transform`
//   elysia-full      + the real engine (compiled flag, 3 rules + rollout) and cachedJson (SHA-256 ETag, Cache-Control)
//   bun-pipeline     everything elysia-full does, on a bare Bun.serve with native URL decoding and one Response
// Prints `{"msg":"listening","port":N}` once listening.
import { Elysia, t } from 'elysia'
import { compileFlag, type FlagDefinition, type SegmentDefinition } from '../server/engine'
import { BETA_SEGMENT, benchFlag } from './fixtures'
import { cachedJson } from '../server/http/caching'
import { parseContextParam } from '../server/http/evaluation-context'
import { MemoryRateLimiter, rateHeaders } from '../server/http/rate-limit'
import { hashToken } from '../server/services/tokens'

const variant = process.env.BENCH_VARIANT ?? 'elysia-hello'
const body = process.env.BENCH_BODY ?? '{"value":false,"type":"boolean","reason":"rollout"}'
const token = process.env.BENCH_TOKEN ?? ''
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' }

const segments = new Map<string, SegmentDefinition>([['beta', BETA_SEGMENT]])
const flagDef = benchFlag('bench-flag')
const flags = new Map([['bench-flag', compileFlag(flagDef, segments)]])
const tokens = new Map([[hashToken(token), { hash: hashToken(token), projectId: 'default', permissions: ['*'] }]])
const limiter = new MemoryRateLimiter()
const callers = new WeakMap<Request, unknown>()

const pathOf = (url: string): string => {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  const q = url.indexOf('?', start)
  return q === -1 ? url.slice(start) : url.slice(start, q)
}
const ROUTE = /^(?:\/api\/v1\/flags\/[^/]+)$/

function authenticate(request: Request): Response | { headers: Record<string, string> } {
  const header = request.headers.get('authorization')
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
  const row = m ? tokens.get(hashToken(m[1]!)) : undefined
  if (!row) return new Response('{"error":"Unknown token","code":"UNAUTHORIZED"}', { status: 401, headers: JSON_HEADERS })
  callers.set(request, { token: row, actor: { projectId: row.projectId, name: 'x' }, at: new Date().toISOString() })
  const verdict = limiter.hit(`${row.hash}:evaluation`, 1e9)
  return { headers: rateHeaders(verdict) }
}

function evaluateResponse(request: Request, rawContext: string | undefined, key: string): Response {
  const flag = flags.get(key)
  if (!flag) return new Response('{"error":"not found","code":"FLAG_NOT_FOUND"}', { status: 404, headers: JSON_HEADERS })
  return cachedJson(request, flag.evaluate(parseContextParam(rawContext)), { maxAge: 10 })
}

function elysiaWithHooks(full: boolean) {
  return new Elysia()
    .onRequest(async ({ request, set }) => {
      const path = pathOf(request.url)
      if (!path.startsWith('/api/') || !ROUTE.test(path)) return
      const r = authenticate(request)
      if (r instanceof Response) return r
      Object.assign(set.headers, r.headers)
    })
    .get('/api/v1/flags/:key', ({ request, params, query }) => {
      if (full) return evaluateResponse(request, query.context, params.key)
      JSON.parse(query.context ?? '{}')
      return new Response(body, { headers: JSON_HEADERS })
    }, {
      transform({ request }) {
        if (!callers.has(request)) throw new Error('unauthenticated')
      },
      params: t.Object({ key: t.String() }),
      query: t.Object({ context: t.Optional(t.String()) }),
    })
}

let fetchHandler: ((request: Request) => Response | Promise<Response>) | undefined
let elysia: { listen(o: { port: number; hostname: string }): unknown; server: { port?: number; stop(force?: boolean): unknown } | null } | undefined
switch (variant) {
  case 'elysia-hello':
    elysia = new Elysia().get('/api/v1/flags/:key', () => new Response(body, { headers: JSON_HEADERS }))
    break
  case 'elysia-query': {
    const app: NonNullable<typeof elysia> = new Elysia().get('/api/v1/flags/:key', ({ query }) => {
      JSON.parse(query.context ?? '{}')
      return new Response(body, { headers: JSON_HEADERS })
    }, { params: t.Object({ key: t.String() }), query: t.Object({ context: t.Optional(t.String()) }) })
    elysia = app
    break
  }
  case 'elysia-sync-hook':
    elysia = new Elysia().onRequest(() => {}).get('/api/v1/flags/:key', () => new Response(body, { headers: JSON_HEADERS }))
    break
  case 'elysia-async-hook':
    elysia = new Elysia().onRequest(async () => {}).get('/api/v1/flags/:key', () => new Response(body, { headers: JSON_HEADERS }))
    break
  case 'elysia-set-headers':
    elysia = new Elysia()
      .onRequest(({ set }) => {
        Object.assign(set.headers, { 'X-RateLimit-Limit': '1000000000', 'X-RateLimit-Remaining': '999999999', 'X-RateLimit-Reset': '1795291920000' })
      })
      .get('/api/v1/flags/:key', () => new Response(body, { headers: JSON_HEADERS }))
    break
  case 'elysia-set-headers-value':
    // the same headers, but the handler returns a string: Elysia builds one Response from set.headers
    elysia = new Elysia()
      .onRequest(({ set }) => {
        Object.assign(set.headers, { 'X-RateLimit-Limit': '1000000000', 'X-RateLimit-Remaining': '999999999', 'X-RateLimit-Reset': '1795291920000' })
      })
      .get('/api/v1/flags/:key', ({ set }) => {
        set.headers['content-type'] = 'application/json; charset=utf-8'
        return body
      })
    break
  case 'elysia-auth':
    // the authentication work of app.ts (header read, SHA-256, map lookup, WeakMap, lastUsedAt) without the limiter headers
    elysia = new Elysia()
      .onRequest(({ request }) => {
        const header = request.headers.get('authorization')
        const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
        const row = m ? tokens.get(hashToken(m[1]!)) : undefined
        if (!row) return new Response('{"error":"Unknown token","code":"UNAUTHORIZED"}', { status: 401, headers: JSON_HEADERS })
        callers.set(request, { token: row, actor: { projectId: row.projectId, name: 'x' }, at: new Date().toISOString() })
      })
      .get('/api/v1/flags/:key', () => new Response(body, { headers: JSON_HEADERS }))
    break
  case 'bun-async':
    fetchHandler = async () => new Response(body, { headers: JSON_HEADERS })
    break
  case 'elysia-hooks':
    elysia = elysiaWithHooks(false)
    break
  case 'elysia-full':
    elysia = elysiaWithHooks(true)
    break
  case 'bun-pipeline':
    fetchHandler = (request) => {
      const url = request.url
      const path = pathOf(url)
      const m = /^\/api\/v1\/flags\/([^/]+)$/.exec(path)
      if (!m) return new Response('{"error":"not found","code":"NOT_FOUND"}', { status: 404, headers: JSON_HEADERS })
      const auth = authenticate(request)
      if (auth instanceof Response) return auth
      const q = url.indexOf('?')
      const raw = q === -1 ? undefined : new URLSearchParams(url.slice(q + 1)).get('context') ?? undefined
      const res = evaluateResponse(request, raw, decodeURIComponent(m[1]!))
      for (const [k, v] of Object.entries(auth.headers)) res.headers.set(k, v)
      return res
    }
    break
  default:
    throw new Error(`unknown BENCH_VARIANT ${variant}`)
}

// Elysia variants listen as the real server does (app.listen: Bun.serve with Elysia's route table).
let port: number | undefined
let stop: () => unknown
if (elysia) {
  elysia.listen({ port: 0, hostname: '127.0.0.1' })
  port = elysia.server!.port
  stop = () => elysia!.server!.stop(true)
} else {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: fetchHandler! })
  port = server.port
  stop = () => server.stop(true)
}
console.log(JSON.stringify({ msg: 'listening', port, variant }))
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    stop()
    process.exit(0)
  })
}
