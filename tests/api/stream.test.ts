// The change stream through HTTP as clients use it: GET /api/v1/stream (headers or a ticket), OFREP's
// /ofrep/v1/stream, resume with Last-Event-ID (replay, reset), heartbeats, permissions, closing on
// revocation and expiry, and a restart of the server.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { openSse, streamStatus, type SseStream } from '../helpers/sse'

let srv: TestServer
let admin: string
const streams: SseStream[] = []

/** Opens a stream only to see whether it is allowed. */
const opens = (path: string, token: string | null, headers: Record<string, string> = {}) =>
  streamStatus(srv.url + path, { ...(token && { authorization: `Bearer ${token}` }), ...headers })

async function stream(path = '/api/v1/stream', headers: Record<string, string> = {}, token: string | null = admin): Promise<SseStream> {
  const s = await openSse(srv.url + path, { ...(token && { authorization: `Bearer ${token}` }), ...headers })
  streams.push(s)
  return s
}

beforeAll(async () => {
  srv = await startServer({ env: { STREAM_HEARTBEAT_MS: '300', STREAM_REPLAY_LIMIT: '5' } })
  admin = srv.adminToken
})
afterAll(async () => {
  streams.forEach((s) => s.close())
  await srv?.stop()
})

describe('GET /api/v1/stream', () => {
  test('ready first, then one change event per committed change, in commit order, with ids', async () => {
    const s = await stream()
    expect(s.status).toBe(200)
    expect(s.headers.get('content-type')).toStartWith('text/event-stream')
    const ready = await s.next()
    expect(ready.event).toBe('ready')
    const start = ready.data.version as number
    expect(ready.id).toBe(String(start))

    expect((await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'checkout', enabled: true, value: false } })).status).toBe(
      201,
    )
    expect((await api(srv, 'PUT', '/api/v1/flags/checkout', { token: admin, body: { value: true } })).status).toBe(200)
    expect(
      (await api(srv, 'PUT', '/api/v1/flags/checkout/environments/production', { token: admin, body: { enabled: false } })).status,
    ).toBe(200)
    expect((await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: 'limits', value: { max: 1 } } })).status).toBe(201)
    expect((await api(srv, 'POST', '/api/v1/segments', { token: admin, body: { key: 'pros', conditions: [] } })).status).toBe(201)
    expect((await api(srv, 'POST', '/api/v1/project/environments', { token: admin, body: { name: 'qa' } })).status).toBe(201)
    // Tokens are not part of the stream (and their secrets never are).
    await createToken(srv, ['read:flags'])
    expect((await api(srv, 'DELETE', '/api/v1/flags/checkout', { token: admin })).status).toBe(200)

    const got = []
    for (let i = 0; i < 7; i++) got.push(await s.next((e) => e.event === 'change'))
    expect(got.map((e) => Number(e.id))).toEqual([1, 2, 3, 4, 5, 6, 7].map((n) => start + n))
    expect(got.map((e) => e.data)).toEqual([
      { resource_type: 'flag', key: 'checkout', action: 'create', version: 1, environment: '' },
      { resource_type: 'flag', key: 'checkout', action: 'update', version: 2, environment: '' },
      { resource_type: 'flag', key: 'checkout', action: 'update', version: 3, environment: 'production' },
      { resource_type: 'config', key: 'limits', action: 'create', version: 1, environment: '' },
      { resource_type: 'segment', key: 'pros', action: 'create', version: 1, environment: '' },
      { resource_type: 'project', key: 'default', action: 'update', version: null, environment: '' },
      { resource_type: 'flag', key: 'checkout', action: 'delete', version: 3, environment: '' },
    ])
    expect(s.events.some((e) => JSON.stringify(e.data).includes('ff_'))).toBe(false)
  })

  test('a comment heartbeat keeps the stream alive (every STREAM_HEARTBEAT_MS, 15 s by default)', async () => {
    const s = await stream()
    await s.next()
    await Bun.sleep(800)
    expect(s.comments).toBeGreaterThanOrEqual(2)
    expect(s.isEnded()).toBe(false)
  })

  test('Last-Event-ID resumes: every change after it is replayed in order; ?last_event_id= does the same', async () => {
    const first = await stream()
    const head = (await first.next()).data.version as number
    for (const v of ['a', 'b', 'c']) await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: `resume-${v}`, value: v } })
    const resumed = await stream('/api/v1/stream', { 'last-event-id': String(head + 1) })
    const ready = await resumed.next()
    expect(ready).toMatchObject({ event: 'ready', data: { version: head + 3 } })
    expect(ready.id).toBeUndefined() // the replay that follows sets the resume point
    const replayed = [await resumed.next(), await resumed.next()]
    expect(replayed.map((e) => [e.id, e.data.key])).toEqual([
      [String(head + 2), 'resume-b'],
      [String(head + 3), 'resume-c'],
    ])
    const byQuery = await stream(`/api/v1/stream?last_event_id=${head + 2}`)
    await byQuery.next()
    expect((await byQuery.next()).data.key).toBe('resume-c')
  })

  test('a resume point older than what is kept (STREAM_REPLAY_LIMIT) or unknown gets one reset event', async () => {
    const s = await stream()
    const before = (await s.next()).data.version as number
    for (let i = 0; i < 7; i++) await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: `old-${i}`, value: i } })
    const head = before + 7
    for (const from of [String(before), '999999']) {
      const resumed = await stream('/api/v1/stream', { 'last-event-id': from })
      expect((await resumed.next()).event).toBe('ready')
      const reset = await resumed.next()
      expect(reset).toMatchObject({ event: 'reset', id: String(head), data: { version: head } })
    }
  })

  test('a token sees only the kinds it may read; a token that may read neither is refused', async () => {
    const configsOnly = await createToken(srv, ['read:configs'])
    const flagsOnly = await createToken(srv, ['read:flags'])
    const c = await stream('/api/v1/stream', {}, configsOnly)
    const f = await stream('/api/v1/stream', {}, flagsOnly)
    await c.next()
    await f.next()
    await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'only-flags', enabled: true, value: 1 } })
    await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: 'only-configs', value: 1 } })
    expect((await c.next()).data.key).toBe('only-configs')
    expect((await f.next()).data.key).toBe('only-flags')
    await Bun.sleep(100)
    expect(c.events.filter((e) => e.event === 'change').map((e) => e.data.key)).toEqual(['only-configs'])
    expect(f.events.filter((e) => e.event === 'change').map((e) => e.data.key)).toEqual(['only-flags'])

    const writer = await createToken(srv, ['write:flags'])
    const refused = await opens('/api/v1/stream', writer)
    expect(refused.status).toBe(403)
    expect((await opens('/api/v1/stream', null)).status).toBe(401)
    expect((await api(srv, 'POST', '/api/v1/stream/tickets', { token: writer })).status).toBe(403)
  })

  test('bad input gets a 400 JSON error', async () => {
    for (const [path, headers] of [
      ['/api/v1/stream?last_event_id=abc', {}],
      ['/api/v1/stream?last_event_id=-1', {}],
      ['/api/v1/stream', { 'last-event-id': '1e3' }],
      ['/api/v1/stream?since=4', {}],
      ['/ofrep/v1/stream?last_event_id=x', {}],
    ] as const) {
      const res = await opens(path, admin, headers)
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('VALIDATION_ERROR')
    }
  })

  test('the stream closes within 5 s when its token is revoked', async () => {
    const res = await api(srv, 'POST', '/api/v1/tokens', {
      token: admin,
      body: { name: 'soon-revoked', project_id: 'default', permissions: ['read:flags'] },
    })
    const s = await stream('/api/v1/stream', {}, res.body.token)
    await s.next()
    const started = Date.now()
    expect((await api(srv, 'DELETE', `/api/v1/tokens/${res.body.meta.hash}`, { token: admin })).status).toBe(200)
    await Promise.race([s.ended, Bun.sleep(5000)])
    expect(s.isEnded()).toBe(true)
    expect(Date.now() - started).toBeLessThan(5000)
    // EventSource reconnects: the token is refused now.
    expect((await opens('/api/v1/stream', res.body.token)).status).toBe(401)
  })

  test('the stream closes within 5 s of its token expiring', async () => {
    const token = await createToken(srv, ['read:flags'], { expires_at: new Date(Date.now() + 2000).toISOString() })
    const s = await stream('/api/v1/stream', {}, token)
    await s.next()
    await Promise.race([s.ended, Bun.sleep(7000)])
    expect(s.isEnded()).toBe(true)
  })
})

describe('stream tickets (EventSource cannot send headers)', () => {
  test('POST /api/v1/stream/tickets gives a URL that opens the stream without the token', async () => {
    const res = await api(srv, 'POST', '/api/v1/stream/tickets', { token: admin })
    expect(res.status).toBe(200)
    const { ticket, url, expires_at } = res.body
    expect(url).toBe(`${srv.url}/api/v1/stream?ticket=${ticket}`)
    expect(url).not.toContain(admin)
    const ttl = Date.parse(expires_at) - Date.now()
    expect(ttl).toBeGreaterThan(4 * 60_000)
    expect(ttl).toBeLessThanOrEqual(10 * 60_000)
    const s = await openSse(url)
    streams.push(s)
    expect((await s.next()).event).toBe('ready')
  })

  test('a ticket opens only the streams; a forged or altered one is refused', async () => {
    const { ticket } = (await api(srv, 'POST', '/api/v1/stream/tickets', { token: admin })).body
    expect((await api(srv, 'GET', `/api/v1/flags?ticket=${ticket}`, { token: null })).status).toBe(401)
    expect((await api(srv, 'POST', `/api/v1/stream/tickets?ticket=${ticket}`, { token: null })).status).toBe(401)
    // Sealed (encrypted and authenticated): a readable claim, or one changed byte, is refused.
    const forged = Buffer.from(JSON.stringify(['default', 'x'.repeat(64), Date.now() + 60_000])).toString('base64url')
    const middle = Math.floor(ticket.length / 2)
    const altered = `${ticket.slice(0, middle)}${ticket[middle] === 'A' ? 'B' : 'A'}${ticket.slice(middle + 1)}`
    for (const bad of [forged, `${forged}.${ticket}`, altered, 'nonsense', '']) {
      const res = await opens(`/api/v1/stream?ticket=${encodeURIComponent(bad)}`, null)
      expect(res.status).toBe(401)
    }
  })

  test('bad input on the ticket endpoint: a 4xx JSON error', async () => {
    for (const [rawBody, status] of [
      ['{"ttl":60}', 400],
      ['{', 400],
      ['[]', 400],
      ['"x"', 400],
    ] as const) {
      const res = await api(srv, 'POST', '/api/v1/stream/tickets', {
        token: admin,
        rawBody,
        headers: { 'content-type': 'application/json' },
      })
      expect({ rawBody, status: res.status, code: res.body.code }).toEqual({ rawBody, status, code: 'VALIDATION_ERROR' })
    }
    const text = await api(srv, 'POST', '/api/v1/stream/tickets', { token: admin, rawBody: 'x', headers: { 'content-type': 'text/plain' } })
    expect(text.status).toBe(415)
    expect((await api(srv, 'POST', '/api/v1/stream/tickets', { token: admin, body: {} })).status).toBe(200)
  })

  test('a ticket dies with its token', async () => {
    const res = await api(srv, 'POST', '/api/v1/tokens', {
      token: admin,
      body: { name: 'ticket-owner', project_id: 'default', permissions: ['read:flags'] },
    })
    const { ticket } = (await api(srv, 'POST', '/api/v1/stream/tickets', { token: res.body.token })).body
    expect((await opens(`/api/v1/stream?ticket=${ticket}`, null)).status).toBe(200)
    expect((await api(srv, 'DELETE', `/api/v1/tokens/${res.body.meta.hash}`, { token: admin })).status).toBe(200)
    expect((await opens(`/api/v1/stream?ticket=${ticket}`, null)).status).toBe(401)
  })
})

describe('GET /ofrep/v1/stream', () => {
  test('the OFREP bulk answer names the stream; it sends refetchEvaluation for flag, segment and project changes only', async () => {
    const bulk = await api(srv, 'POST', '/ofrep/v1/evaluate/flags', { token: admin, body: { context: { targetingKey: 'u1' } } })
    expect(bulk.status).toBe(200)
    const [es] = bulk.body.eventStreams
    expect(es).toMatchObject({ type: 'sse', inactivityDelaySec: 120 })
    expect(es.url).toStartWith(`${srv.url}/ofrep/v1/stream?ticket=`)
    expect(es.url).not.toContain(admin)
    // The ticket is stable for minutes, so the ETag holds: 304 on the same request.
    const again = await api(srv, 'POST', '/ofrep/v1/evaluate/flags', {
      token: admin,
      body: { context: { targetingKey: 'u1' } },
      headers: { 'if-none-match': bulk.headers.get('etag')! },
    })
    expect(again.status).toBe(304)

    const s = await openSse(es.url)
    streams.push(s)
    await Bun.sleep(100)
    await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: 'not-for-ofrep', value: 1 } })
    const put = await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'ofrep-live', enabled: true, value: 1 } })
    expect(put.status).toBe(201)
    const e = await s.next()
    expect(e.event).toBe('message')
    expect(e.data).toMatchObject({ type: 'refetchEvaluation', etag: `"${e.id}"` })
    expect(Number.isNaN(Date.parse(e.data.lastModified))).toBe(false)
    expect(s.events).toHaveLength(1)
  })

  test('resuming with a missed change gets one refetchEvaluation at once', async () => {
    const s = await stream('/ofrep/v1/stream')
    await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'ofrep-missed-1', enabled: true, value: 1 } })
    const seen = await s.next()
    s.close()
    await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'ofrep-missed-2', enabled: true, value: 1 } })
    await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'ofrep-missed-3', enabled: true, value: 1 } })
    const resumed = await stream('/ofrep/v1/stream', { 'last-event-id': seen.id! })
    const e = await resumed.next()
    expect(e.data.type).toBe('refetchEvaluation')
    expect(Number(e.id)).toBe(Number(seen.id) + 2)
    await Bun.sleep(100)
    expect(resumed.events).toHaveLength(1)
  })

  test('needs read:flags', async () => {
    const configsOnly = await createToken(srv, ['read:configs'])
    expect((await opens('/ofrep/v1/stream', configsOnly)).status).toBe(403)
  })
})

describe('restart', () => {
  test('a client resuming after the server restarted gets the changes it missed, from the stored log', async () => {
    const local = await startServer({ env: { STREAM_HEARTBEAT_MS: '300' } })
    try {
      const s = await openSse(`${local.url}/api/v1/stream`, { authorization: `Bearer ${local.adminToken}` })
      const head = (await s.next()).data.version as number
      await api(local, 'POST', '/api/v1/flags', { token: local.adminToken, body: { key: 'before-restart', enabled: true, value: 1 } })
      const seen = await s.next()
      await api(local, 'POST', '/api/v1/flags', { token: local.adminToken, body: { key: 'missed', enabled: true, value: 2 } })
      await local.kill() // a crash: nothing is flushed on the way down; the database is kept
      await Promise.race([s.ended, Bun.sleep(3000)])
      expect(s.isEnded()).toBe(true)

      const again = await startServer({
        databaseUrl: local.databaseUrl,
        dbPath: local.dbPath,
        adminToken: local.adminToken,
        env: { STREAM_HEARTBEAT_MS: '300' },
      })
      try {
        const resumed = await openSse(`${again.url}/api/v1/stream`, {
          authorization: `Bearer ${again.adminToken}`,
          'last-event-id': seen.id!,
        })
        expect((await resumed.next()).data.version).toBe(head + 2)
        expect(await resumed.next()).toMatchObject({ event: 'change', id: String(head + 2), data: { key: 'missed' } })
        await api(again, 'POST', '/api/v1/flags', { token: again.adminToken, body: { key: 'after-restart', enabled: true, value: 3 } })
        expect(await resumed.next()).toMatchObject({ id: String(head + 3), data: { key: 'after-restart' } })
        resumed.close()
      } finally {
        await again.stop()
      }
    } finally {
      await local.stop()
    }
  }, 60_000)
})
