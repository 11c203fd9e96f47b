// The SDK's remote mode against a real server, with a client key: the values of one context as the service
// evaluates them (only client_side flags, in the key's environment), re-fetched by ETag on each stream
// event (a change arrives within a second; an unchanged answer is a 304), polling without the stream,
// setContext, and local mode refusing a client key with a message that says what to do.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createClient } from '../../sdk/src'
import { ofrepContextOf } from '../../sdk/src/remote'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { recordingFetch, waitFor } from './helpers'

let srv: TestServer
let clientKey: string
const clients: { close(): Promise<void> }[] = []
const track = <T extends { close(): Promise<void> }>(c: T) => (clients.push(c), c)
const put = async (key: string, body: unknown) =>
  expect((await api(srv, 'PUT', `/api/v1/flags/${key}`, { token: srv.adminToken, body })).status).toBe(200)
const bulkCalls = <T extends { url: string }>(calls: T[]) => calls.filter((c) => c.url.endsWith('/ofrep/v1/evaluate/flags'))

beforeAll(async () => {
  srv = await startServer()
  const post = async (path: string, body: unknown) =>
    expect((await api(srv, 'POST', path, { token: srv.adminToken, body })).status).toBe(201)
  await post('/api/v1/flags', {
    key: 'banner',
    enabled: true,
    value: 'base',
    client_side: true,
    targeting: {
      rules: [
        { conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: 'pro' },
        { conditions: [{ property: 'country', operator: 'equals', value: 'FR' }], value: 'fr' },
      ],
    },
    environments: { production: { enabled: true, value: 'prod' } },
  })
  await post('/api/v1/flags', { key: 'internal', enabled: true, value: true })
  clientKey = await createToken(srv, ['client'], { environment: 'production' })
})
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()))
  await srv?.stop()
})

describe('remote mode', () => {
  test("the service's values for the one context: client_side flags only, in the key's environment; read synchronously", async () => {
    const client = track(createClient({ url: srv.url, token: clientKey, context: { user_id: 'u1', plan: 'pro' }, mode: 'remote' }))
    expect(client.evaluate('banner', 'fallback')).toEqual({ value: 'fallback', type: 'string', reason: 'missing' })
    await client.ready()
    expect(client.evaluate('banner', 'fallback')).toEqual({ value: 'pro', type: 'string', reason: 'TARGETING_MATCH', variant: 'rule-1' })
    expect(client.evaluate('internal', false)).toEqual({ value: false, type: 'boolean', reason: 'missing' })
    expect(client.all()).toEqual({ banner: 'pro' })
    // Custom attributes reach the rules as the local mode's do.
    await client.setContext({ user_id: 'u2', custom: { country: 'FR' } })
    expect(client.evaluate('banner').value).toBe('fr')
    await client.setContext({ user_id: 'u3' })
    expect(client.evaluate('banner').value).toBe('prod')
  })

  const CHANGE_OVER_OFREP =
    "a change arrives within a second over OFREP's stream; " + 're-fetches carry the ETag (304 when nothing changed for this context)'
  test(CHANGE_OVER_OFREP, async () => {
    const { fetch, calls } = recordingFetch()
    const client = track(createClient({ url: srv.url, token: clientKey, context: { user_id: 'u1' }, mode: 'remote', fetch }))
    await client.ready()
    await waitFor(() => calls.some((c) => c.url.endsWith('/ofrep/v1/stream') && c.status === 200), 3000, 'the stream')
    const changed: string[][] = []
    client.on('change', (keys) => changed.push(keys))
    const started = performance.now()
    await put('banner', { environments: { production: { enabled: true, value: 'prod-2' } } })
    await waitFor(() => client.evaluate('banner').value === 'prod-2', 1000, 'the change')
    expect(performance.now() - started).toBeLessThan(1000)
    expect(changed).toContainEqual(['banner'])
    // A change that does not alter this context's values: refetched, answered 304.
    const before = bulkCalls(calls).length
    await put('internal', { value: false })
    await waitFor(() => bulkCalls(calls).length > before, 2000, 'the refetch')
    const last = bulkCalls(calls).at(-1)!
    expect([last.status, last.ifNoneMatch !== null]).toEqual([304, true])
  })

  test('without the stream, polling keeps the values fresh', async () => {
    const client = track(
      createClient({ url: srv.url, token: clientKey, context: { user_id: 'u1' }, mode: 'remote', stream: false, pollIntervalMs: 100 }),
    )
    await client.ready()
    await put('banner', { environments: { production: { enabled: true, value: 'polled' } } })
    await waitFor(() => client.evaluate('banner').value === 'polled', 3000, 'the polled change')
  })

  test("a context naming another environment is refused: ready() rejects with the service's reason", async () => {
    const client = track(
      createClient({ url: srv.url, token: clientKey, context: { environment: 'staging' }, mode: 'remote', stream: false }),
    )
    const error = await client.ready().then(
      () => null,
      (e: Error) => e,
    )
    expect(error?.message).toContain('ENVIRONMENT_MISMATCH')
  })

  test("maps our context to OFREP's", () => {
    expect(ofrepContextOf({ user_id: 'u', plan: 'pro', environment: 'production', custom: { country: 'FR' }, age: 3 })).toEqual({
      targetingKey: 'u',
      plan: 'pro',
      environment: 'production',
      country: 'FR',
      age: 3,
    })
    expect(ofrepContextOf(undefined)).toEqual({})
  })
})

describe('local mode with a client key', () => {
  test('ready() rejects with a message that names the remote mode', async () => {
    const client = track(createClient({ url: srv.url, token: clientKey, usage: false }))
    const error = await client.ready().then(
      () => null,
      (e: Error) => e,
    )
    expect(error?.message).toContain('client key')
    expect(error?.message).toContain('mode: "remote"')
  })
})

describe('local mode with an environment key', () => {
  test("evaluates in the key's environment (the definitions name it); a context naming another gets the fallback", async () => {
    const key = await createToken(srv, ['read:flags'], { environment: 'production' })
    const client = track(createClient({ url: srv.url, token: key, usage: false }))
    await client.ready()
    const server = await api(srv, 'GET', `/api/v1/flags/banner?context=${encodeURIComponent(JSON.stringify({ user_id: 'u9' }))}`, {
      token: key,
    })
    expect(client.evaluate('banner', { user_id: 'u9' })).toEqual(server.body)
    expect(client.evaluate('banner', { user_id: 'u9' }).reason).toBe('environment_override')
    expect(client.evaluate('banner', { environment: 'staging' }, 'fb')).toEqual({ value: 'fb', type: 'string', reason: 'error' })
    const other = track(createClient({ url: srv.url, token: key, environment: 'staging', usage: false, stream: false }))
    const error = await other.ready().then(
      () => null,
      (e: Error) => e,
    )
    expect(error?.message).toContain('ENVIRONMENT_MISMATCH')
  })
})
