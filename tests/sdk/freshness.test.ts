// The SDK against a real server: a change reaches evaluate within a second through the stream (bursts
// coalesced), polling by ETag converges without it, a killed server leaves the last good definitions in
// service (evaluate never throws), a restarted one is caught up with, and bootstrap needs no server at all.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createClient, type Definitions, type FlagshipClient } from '../../sdk/src'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { definitionCalls, recordingFetch, settled, waitFor } from './helpers'

let srv: TestServer
let token: string
const clients: FlagshipClient[] = []
const track = (c: FlagshipClient) => (clients.push(c), c)

const put = async (key: string, body: unknown) =>
  expect((await api(srv, 'PUT', `/api/v1/flags/${key}`, { token: srv.adminToken, body })).status).toBe(200)

beforeAll(async () => {
  srv = await startServer()
  token = await createToken(srv, ['read:flags', 'read:configs'])
  const post = async (path: string, body: unknown) =>
    expect((await api(srv, 'POST', path, { token: srv.adminToken, body })).status).toBe(201)
  await post('/api/v1/flags', { key: 'live', enabled: true, value: 1 })
  await post('/api/v1/flags', {
    key: 'banner',
    enabled: true,
    value: 'base',
    environments: { production: { enabled: true, value: 'prod' }, staging: { enabled: false } },
  })
  await post('/api/v1/configs', { key: 'limits', value: { max: 1 }, environments: { production: { value: { max: 100 } } } })
})
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()))
  await srv?.stop()
})

describe('streaming', () => {
  test('a change reaches evaluate within a second; a burst of changes is coalesced into few refetches', async () => {
    const { fetch, calls } = recordingFetch()
    const client = track(createClient({ url: srv.url, token, fetch }))
    await client.ready()
    expect(client.evaluate('live')).toEqual({ value: 1, type: 'number', reason: 'default' })
    const changes: string[][] = []
    client.on('change', (e) => changes.push(e.flags))

    const start = performance.now()
    await put('live', { value: 2 })
    await waitFor(() => client.evaluate('live').value === 2, 1000, 'the change')
    expect(performance.now() - start).toBeLessThan(1000)
    expect(changes).toContainEqual(['live'])

    await waitFor(() => definitionCalls(calls).length >= 2, 1000)
    // The stream's `ready` makes a catch-up fetch, and a change arriving during it one more after it: count the
    // burst's fetches from a client that has finished those (a call is recorded when its answer arrives).
    const before = await settled(() => definitionCalls(calls).length, 200, 2000)
    for (let i = 3; i <= 22; i++) await put('live', { value: i })
    await waitFor(() => client.evaluate('live').value === 22, 2000, 'the last of the burst')
    await Bun.sleep(200)
    // 20 change events; fetches never overlap, so those arriving during one fetch make one more.
    const during = definitionCalls(calls).length - before
    expect(during).toBeGreaterThan(0)
    expect(during).toBeLessThanOrEqual(20)
    // Every refetch after the first asked with the ETag of what the client held.
    expect(
      definitionCalls(calls)
        .slice(1)
        .every((c) => c.ifNoneMatch !== null),
    ).toBe(true)
  })

  test('config changes arrive too; the default environment applies to flags and configs and narrows the fetch', async () => {
    const { fetch, calls } = recordingFetch()
    const client = track(createClient({ url: srv.url, token, environment: 'production', fetch }))
    await client.ready()
    expect(definitionCalls(calls)[0]!.url).toEndWith('/api/v1/definitions?environment=production')
    expect(client.evaluate('banner')).toEqual({ value: 'prod', type: 'string', reason: 'environment_override' })
    expect(client.config('limits')).toEqual({ max: 100 })
    expect(client.evaluateAll({ user_id: 'u' })).toEqual({
      flags: { banner: 'prod', live: expect.any(Number) },
      configs: { limits: { max: 100 } },
    })
    const res = await api(srv, 'PUT', '/api/v1/configs/limits/environments/production', {
      token: srv.adminToken,
      body: { value: { max: 7 } },
    })
    expect(res.status).toBe(200)
    await waitFor(() => (client.config('limits') as { max: number }).max === 7, 1000, 'the config change')
  })
})

describe('polling', () => {
  test('with the stream off, a change converges by ETag polling (unchanged polls are 304s)', async () => {
    const { fetch, calls } = recordingFetch()
    const client = track(createClient({ url: srv.url, token, stream: false, pollIntervalMs: 100, fetch }))
    await client.ready()
    await Bun.sleep(350)
    expect(calls.some((c) => c.url.includes('/stream'))).toBe(false)
    expect(definitionCalls(calls).filter((c) => c.status === 304).length).toBeGreaterThanOrEqual(2)
    const value = (client.evaluate('live').value as number) + 100
    await put('live', { value })
    await waitFor(() => client.evaluate('live').value === value, 1500, 'the polled change')
  })
})

describe('outages', () => {
  test('a killed server: last good answers, no throws; restarted on the same database: reconnects and catches up', async () => {
    const own = await startServer()
    const ownToken = await createToken(own, ['read:flags'])
    const create = await api(own, 'POST', '/api/v1/flags', {
      token: own.adminToken,
      body: {
        key: 'f',
        enabled: true,
        value: 'before',
        targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: 'pro' }] },
      },
    })
    expect(create.status).toBe(201)
    const client = track(createClient({ url: own.url, token: ownToken, retry: { initialMs: 100, maxMs: 400 }, pollIntervalMs: 250 }))
    const errors: unknown[] = []
    client.on('error', (e) => errors.push(e))
    await client.ready()
    let restarted: TestServer | undefined
    try {
      await own.kill()
      await waitFor(() => errors.length > 0, 3000, 'an error event after the kill')
      for (let i = 0; i < 1000; i++) {
        expect(client.evaluate('f', { plan: i % 2 ? 'pro' : 'free' }).value).toBe(i % 2 ? 'pro' : 'before')
        expect(client.evaluate('gone', { plan: 'pro' }, 'fallback')).toEqual({ value: 'fallback', type: 'string', reason: 'missing' })
      }
      await Bun.sleep(1200) // several failed reconnects and polls
      expect(client.evaluate('f')).toEqual({ value: 'before', type: 'string', reason: 'default' })

      restarted = await startServer({
        databaseUrl: own.databaseUrl,
        dbPath: own.dbPath,
        adminToken: own.adminToken,
        env: { PORT: String(own.port) },
      })
      expect(restarted.port).toBe(own.port)
      const update = await api(restarted, 'PUT', '/api/v1/flags/f', { token: restarted.adminToken, body: { value: 'after' } })
      expect(update.status).toBe(200)
      await waitFor(() => client.evaluate('f').value === 'after', 10_000, 'catching up after the restart')
      // ...and the stream is back: the next change arrives within a second.
      await Bun.sleep(1500)
      await api(restarted, 'PUT', '/api/v1/flags/f', { token: restarted.adminToken, body: { value: 'streamed' } })
      await waitFor(() => client.evaluate('f').value === 'streamed', 1000, 'a change on the reconnected stream')
    } finally {
      await client.close()
      await restarted?.stop()
      await own.stop()
    }
  }, 60_000)

  test('ready() rejects at once for a token the server refuses, and after timeoutMs when nothing answers', async () => {
    const bad = track(createClient({ url: srv.url, token: 'ff_defa_xxxxxxxxxxxxxxxxxxxx' }))
    await expect(bad.ready()).rejects.toThrow('401')
    const closed = Bun.serve({ port: 0, fetch: () => new Response('') })
    const deadUrl = closed.url.origin
    await closed.stop(true)
    const nobody = track(createClient({ url: deadUrl, token, timeoutMs: 300 }))
    const start = performance.now()
    await expect(nobody.ready()).rejects.toThrow('no definitions within 300 ms')
    expect(performance.now() - start).toBeLessThan(1000)
    expect(nobody.evaluate('live', {}, false)).toEqual({ value: false, type: 'boolean', reason: 'missing' })
  })
})

describe('bootstrap', () => {
  const doc: Definitions = {
    version: 3,
    environments: ['production'],
    flags: [
      {
        key: 'boot',
        enabled: true,
        value: false,
        targeting: { rules: [{ conditions: [{ operator: 'in_segment', value: 'staff' }], value: true }] },
      },
      {
        key: 'mail',
        enabled: true,
        value: 'other',
        targeting: { rules: [{ conditions: [{ property: 'email', operator: 'matches', value: '@example\\.(com|org)$' }], value: 'ours' }] },
      },
    ],
    configs: [{ key: 'c', value: 1, environments: { production: { value: 2 } } }],
    segments: [{ key: 'staff', conditions: [{ property: 'plan', operator: 'equals', value: 'staff' }] }],
  }

  test('with no server at all: answers right after createClient (matches waits for the regex engine)', async () => {
    const plain = track(createClient({ bootstrap: { ...doc, flags: [doc.flags[0]!] } }))
    // No regex needed: installed synchronously.
    expect(plain.evaluate('boot', { plan: 'staff' })).toEqual({ value: true, type: 'boolean', reason: 'targeting' })
    expect(plain.config('c')).toBe(1)
    expect(plain.config('c', 'production')).toBe(2)
    await plain.ready()
    const client = track(createClient({ bootstrap: doc }))
    await client.ready()
    expect(client.evaluate('mail', { custom: { email: 'a@example.org' } })).toEqual({ value: 'ours', type: 'string', reason: 'targeting' })
    expect(client.evaluate('mail', { email: 'a@example.net' }).value).toBe('other')
    expect(client.version).toBe(3)
  })

  test('with an unreachable server: ready at once, bootstrap answers, errors reported, never thrown', async () => {
    const client = track(
      createClient({ url: 'http://127.0.0.1:9', token, bootstrap: doc, retry: { initialMs: 50, maxMs: 100 }, pollIntervalMs: 50 }),
    )
    const errors: unknown[] = []
    client.on('error', (e) => errors.push(e))
    await client.ready()
    await waitFor(() => errors.length >= 2, 2000, 'error events')
    expect(client.evaluate('boot', { plan: 'staff' }).value).toBe(true)
  })

  test('a bootstrap document of the wrong shape is refused at createClient', () => {
    expect(() => createClient({ bootstrap: { flags: [] } as unknown as Definitions })).toThrow('definitions.version must be a number')
    expect(() =>
      createClient({
        bootstrap: { version: 1, environments: [], flags: [{ enabled: true }], configs: [], segments: [] } as unknown as Definitions,
      }),
    ).toThrow('definitions.flags must hold objects with a string key')
    expect(() => createClient({} as never)).toThrow('createClient needs { url, token }')
  })
})
