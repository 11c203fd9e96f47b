// A relay whose upstream's change stream is lost while the upstream still answers (a proxy in between cuts
// the stream and refuses new ones): it polls the definitions (UPSTREAM_POLL_MS), says "polling", passes what
// changed to its subscribers as a `reset`, and when the stream is back follows it again and asks about its
// cached keys once more, so a revocation made meanwhile is not missed.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Server } from 'bun'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { openSse } from '../helpers/sse'
import { until } from '../helpers/until'

let origin: TestServer
let relay: TestServer
let proxy: Server<unknown>
let relayKey: string
let reader: string
let streamsBlocked = false
const openStreams = new Set<AbortController>()

beforeAll(async () => {
  origin = await startServer()
  relayKey = await createToken(origin, ['relay'])
  reader = await createToken(origin, ['read:flags'])
  await api(origin, 'POST', '/api/v1/flags', { token: origin.adminToken, body: { key: 'f', enabled: true, value: 1 } })
  // Everything passes through, except the change stream while it is blocked.
  proxy = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    // A cut stream's pass-through ends with an abort: nothing to report.
    error: () => new Response(null, { status: 502 }),
    async fetch(request) {
      const url = new URL(request.url)
      const isStream = url.pathname === '/api/v1/stream'
      if (isStream && streamsBlocked) return new Response('{"error":"blocked","code":"BLOCKED"}', { status: 502 })
      const abort = new AbortController()
      if (isStream) openStreams.add(abort)
      const headers = new Headers(request.headers)
      headers.delete('host')
      const upstream = await fetch(`${origin.url}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body: request.method === 'GET' ? undefined : await request.arrayBuffer(),
        signal: abort.signal,
        decompress: false,
      } as RequestInit)
      return new Response(upstream.body, { status: upstream.status, headers: upstream.headers })
    },
  })
  relay = await startServer({ env: { UPSTREAM_URL: `http://127.0.0.1:${proxy.port}`, UPSTREAM_TOKEN: relayKey, UPSTREAM_POLL_MS: '200' } })
  await until('relay connected', async () => (await api(relay, 'GET', '/health')).body.upstream === 'connected', 20_000)
}, 60_000)
afterAll(async () => {
  await relay?.stop()
  proxy?.stop(true)
  await origin?.stop()
})

test('stream lost: polling keeps the relay current; stream back: following again, with revocations caught up', async () => {
  // A token the relay has verified and cached.
  const doomed = await createToken(origin, ['read:flags'])
  expect((await api(relay, 'GET', '/api/v1/flags/f', { token: doomed })).status).toBe(200)
  const subscriber = await openSse(`${relay.url}/api/v1/stream`, { authorization: `Bearer ${reader}` })
  await subscriber.next((e) => e.event === 'ready')

  streamsBlocked = true
  for (const a of openStreams) a.abort()
  openStreams.clear()
  await until('relay polling', async () => (await api(relay, 'GET', '/health')).body.upstream === 'polling', 10_000)

  // A change while polling reaches the relay's answers, and its subscribers reload.
  expect(
    (await api(origin, 'POST', '/api/v1/flags', { token: origin.adminToken, body: { key: 'while-polling', enabled: true, value: 7 } }))
      .status,
  ).toBe(201)
  await until(
    'change seen by polling',
    async () => (await api(relay, 'GET', '/api/v1/flags/while-polling', { token: reader })).body?.value === 7,
    10_000,
  )
  const reset = await subscriber.next((e) => e.event === 'reset', 5000)
  expect(reset.data.version).toBe((await api(origin, 'GET', '/api/v1/definitions', { token: reader })).body.version)
  expect((await api(relay, 'GET', '/health')).body.upstream).toBe('polling')

  // Revoked while the relay cannot hear it: once the stream is back, the relay asks about its keys again.
  const hash = new Bun.CryptoHasher('sha256').update(doomed).digest('hex')
  expect((await api(origin, 'DELETE', `/api/v1/tokens/${hash}`, { token: origin.adminToken })).status).toBe(200)
  streamsBlocked = false
  await until('relay connected again', async () => (await api(relay, 'GET', '/health')).body.upstream === 'connected', 10_000)
  await until('revocation caught up', async () => (await api(relay, 'GET', '/api/v1/flags/f', { token: doomed })).status === 401, 5000)
  // And changes flow over the stream again.
  await api(origin, 'POST', '/api/v1/flags', { token: origin.adminToken, body: { key: 'after', enabled: true, value: 8 } })
  expect((await subscriber.next((e) => e.event === 'change' && e.data.key === 'after', 10_000)).data.action).toBe('create')
  subscriber.close()
}, 60_000)
