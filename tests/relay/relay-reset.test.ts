// A relay that was away longer than its upstream keeps changes for (STREAM_REPLAY_LIMIT): it resumes with
// Last-Event-ID from its cache file, the upstream answers `reset`, and the relay reloads everything and tells
// its own subscribers to reload too.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { openSse } from '../helpers/sse'
import { tempDir } from '../helpers/temp'
import { until } from '../helpers/until'

let origin: TestServer
let relay: TestServer | undefined
let relayKey: string
let reader: string
const cacheFile = join(tempDir(), 'relay.json')
const startRelay = () =>
  startServer({ env: { UPSTREAM_URL: origin.url, UPSTREAM_TOKEN: relayKey, UPSTREAM_POLL_MS: '200', RELAY_CACHE_FILE: cacheFile } })

beforeAll(async () => {
  origin = await startServer({ env: { STREAM_REPLAY_LIMIT: '2' } })
  relayKey = await createToken(origin, ['relay'])
  reader = await createToken(origin, ['read:flags'])
  await api(origin, 'POST', '/api/v1/flags', { token: origin.adminToken, body: { key: 'f0', enabled: true, value: 0 } })
}, 60_000)
afterAll(async () => {
  await relay?.stop()
  await origin?.stop()
})

test("resumed past what the upstream kept: reset, full reload, and the relay's subscribers reload", async () => {
  relay = await startRelay()
  await until('relay connected', async () => (await api(relay!, 'GET', '/health')).body.upstream === 'connected', 20_000)
  expect((await api(relay, 'GET', '/api/v1/flags/f0', { token: reader })).status).toBe(200)
  await until('cache file written', async () => Bun.file(cacheFile).exists(), 5000)
  await relay.stop()
  // Five changes while the relay is away; the origin keeps two.
  for (let i = 1; i <= 5; i++)
    await api(origin, 'POST', '/api/v1/flags', { token: origin.adminToken, body: { key: `f${i}`, enabled: true, value: i } })
  relay = await startRelay()
  // Served from the cache file at once (the token was verified before and kept by hash).
  const early = await api(relay, 'GET', '/api/v1/flags/f0', { token: reader })
  expect(early.status).toBe(200)
  const subscriber = await openSse(`${relay.url}/api/v1/stream`, { authorization: `Bearer ${reader}` })
  await until('reloaded after reset', async () => (await api(relay!, 'GET', '/api/v1/flags/f5', { token: reader })).status === 200, 10_000)
  const head = (await api(origin, 'GET', '/api/v1/definitions', { token: reader })).body.version
  await until("relay at the origin's change number", async () => (await api(relay!, 'GET', '/health')).body.change_seq === head, 10_000)
  // Whether the subscriber opened before or after the reload, it ends at the origin's number: a `reset` to
  // it, or `ready` at it.
  const last = await subscriber.next((e) => (e.event === 'reset' || e.event === 'ready') && e.data.version === head, 10_000)
  expect(last.data.version).toBe(head)
  expect((await api(relay, 'GET', '/api/v1/definitions', { token: reader })).body).toEqual(
    (await api(origin, 'GET', '/api/v1/definitions', { token: reader })).body,
  )
  subscriber.close()
}, 60_000)
