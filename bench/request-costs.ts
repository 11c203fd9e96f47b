// In-process cost of each piece of GET /api/v1/flags/:key (no sockets, no wrk, so little noise from other
// processes): `bun bench/request-costs.ts`. Prints nanoseconds per operation, then the whole real
// application driven through app.handle() (the real service, started in this process on a temp SQLite
// file) next to a one-route Elysia app, so the pieces can be set against the total.
import { Elysia, t } from 'elysia'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { compileFlag, type SegmentDefinition } from '../server/engine'
import { cachedJson, etagOf } from '../server/http/caching'
import { parseContextParam } from '../server/http/evaluation-context'
import { MemoryRateLimiter, rateHeaders } from '../server/http/rate-limit'
import { hashToken } from '../server/services/tokens'
import { loadSettings } from '../server/settings'
import { startService } from '../server/index'
import { BETA_SEGMENT, CONTEXT, benchFlag, randomAdminToken } from './lib'

// Elysia's query decoder (an untyped dependency of elysia).
const { default: decodeFast } = (await import('fast-decode-uri-component' as string)) as { default: (s: string) => string | null }

let sink = 0
function cost(name: string, fn: (i: number) => unknown, ms = 400): number {
  for (let i = 0; i < 20_000; i++) fn(i)
  let n = 0
  const start = performance.now()
  let now = start
  while (now - start < ms) {
    for (let i = 0; i < 1000; i++) {
      const r = fn(n + i)
      if (r === sink) sink++
    }
    n += 1000
    now = performance.now()
  }
  const ns = ((now - start) * 1e6) / n
  console.log(`  ${name.padEnd(58)} ${ns.toFixed(0).padStart(7)} ns`)
  return ns
}
async function costAsync(name: string, fn: (i: number) => Promise<unknown>, ms = 1500): Promise<number> {
  for (let i = 0; i < 5_000; i++) await fn(i)
  let n = 0
  const start = performance.now()
  let now = start
  while (now - start < ms) {
    for (let i = 0; i < 200; i++) await fn(n + i)
    n += 200
    now = performance.now()
  }
  const ns = ((now - start) * 1e6) / n
  console.log(`  ${name.padEnd(58)} ${ns.toFixed(0).padStart(7)} ns`)
  return ns
}

const token = randomAdminToken()
const raw = JSON.stringify(CONTEXT)
const encoded = encodeURIComponent(raw)
const segments = new Map<string, SegmentDefinition>([['beta', BETA_SEGMENT]])
const flag = compileFlag(benchFlag('bench-flag') as never, segments)
const result = flag.evaluate(parseContextParam(raw))
const body = JSON.stringify(result)
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' }
const limiter = new MemoryRateLimiter()
const callers = new WeakMap<Request, unknown>()
const request = new Request(`http://127.0.0.1/api/v1/flags/bench-flag?context=${encoded}`, { headers: { authorization: `Bearer ${token}` } })

console.log('pieces (ns per operation):')
cost('new Response(body, { headers })', () => new Response(body, { headers: JSON_HEADERS }))
cost("Elysia's merge: 2nd Response + new Headers + 3 set()", () => {
  const first = new Response(body, { headers: { ...JSON_HEADERS, ETag: '"x"', 'Cache-Control': 'private, max-age=10' } })
  const h = new Headers(first.headers)
  h.set('x-ratelimit-limit', '1000000000')
  h.set('x-ratelimit-remaining', '999999999')
  h.set('x-ratelimit-reset', '1795291920000')
  return new Response(first.body, { headers: h })
})
cost('hashToken (SHA-256 hex of the bearer token)', () => hashToken(token))
cost('etagOf (SHA-256 of the body, base64url)', () => etagOf(body))
cost('cachedJson (stringify + etag + Response)', () => cachedJson(request, result, { maxAge: 10 }))
cost('new Date().toISOString() (auth: lastUsedAt)', () => new Date().toISOString())
cost('limiter.hit + rateHeaders', (i) => rateHeaders(limiter.hit(`k${i & 7}:evaluation`, 1e9)))
cost("decode ?context (fast-decode-uri-component, Elysia's)", () => decodeFast(encoded))
cost('decode ?context (native decodeURIComponent)', () => decodeURIComponent(encoded))
cost('decode ?context (URLSearchParams)', () => new URLSearchParams(`context=${encoded}`).get('context'))
cost('parseContextParam (JSON.parse + shape check)', () => parseContextParam(raw))
cost('flag.evaluate (3 rules + rollout)', (i) => flag.evaluate(CONTEXT as never, i))
cost('WeakMap.set(request, caller)', () => callers.set(new Request('http://x/'), { a: 1 }))
cost('new Request(...) (for scale)', () => new Request('http://127.0.0.1/api/v1/flags/x'))

// The whole pipeline without sockets.
const dir = mkdtempSync(join(tmpdir(), 'flagship-costs-'))
const settings = loadSettings({
  PORT: '0', HOST: '127.0.0.1', BOOTSTRAP_TOKEN: token, DATABASE_URL: `sqlite:${join(dir, 'flags.db')}`, APP_ENV: 'bench',
  RATE_LIMIT_EVALUATION_PER_MINUTE: '1000000000', RATE_LIMIT_MANAGEMENT_PER_MINUTE: '1000000000',
})
const originalLog = console.log
console.log = () => {} // the service logs its start as JSON lines
const service = await startService(settings)
console.log = originalLog
try {
  const base = `http://127.0.0.1:${service.port}`
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const post = (path: string, b: unknown) => service.app.handle(new Request(base + path, { method: 'POST', headers: auth, body: JSON.stringify(b) }))
  await post('/api/v1/segments', { key: 'beta', conditions: [{ property: 'plan', operator: 'equals', value: 'enterprise' }] })
  const created = await post('/api/v1/flags', benchFlag('bench-flag'))
  if (created.status !== 201) throw new Error(`create failed: ${created.status} ${await created.text()}`)
  const hello = new Elysia().get('/api/v1/flags/:key', ({ query }) => {
    JSON.parse(query.context ?? '{}')
    return new Response(body, { headers: JSON_HEADERS })
  }, { query: t.Object({ context: t.Optional(t.String()) }) })
  const evalUrl = `${base}/api/v1/flags/bench-flag?context=${encoded}`
  const check = await service.app.handle(new Request(evalUrl, { headers: auth }))
  if (check.status !== 200) throw new Error(`evaluation failed: ${check.status}`)
  const etag = check.headers.get('etag')!
  console.log('\nwhole request through app.handle() (ns per request, includes new Request + reading the body):')
  await costAsync('one-route Elysia app (query parsed + JSON.parse)', async () => (await hello.handle(new Request(evalUrl))).text())
  await costAsync('real app: GET /health', async () => (await service.app.handle(new Request(`${base}/health`))).text())
  await costAsync('real app: GET /api/v1/flags/bench-flag (no context)', async () => (await service.app.handle(new Request(`${base}/api/v1/flags/bench-flag`, { headers: auth }))).text())
  await costAsync('real app: GET /api/v1/flags/bench-flag?context= (b)', async () => (await service.app.handle(new Request(evalUrl, { headers: auth }))).text())
  await costAsync('real app: (b) with If-None-Match (304)', async () => (await service.app.handle(new Request(evalUrl, { headers: { ...auth, 'if-none-match': etag } }))).text())
  await costAsync('real app: no token (401)', async () => (await service.app.handle(new Request(`${base}/api/v1/flags/bench-flag`))).text())
} finally {
  await service.stop()
  rmSync(dir, { recursive: true, force: true })
}
process.exit(0)
