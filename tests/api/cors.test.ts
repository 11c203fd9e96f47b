// CORS on the evaluation surface only: preflights, headers on answers and errors, none on management
// endpoints; CORS_ORIGINS with a list echoes only the listed origins.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'

const ORIGIN = 'https://app.example.com'
const servers: TestServer[] = []
afterAll(() => Promise.all(servers.map((s) => s.stop())))

async function server(env: Record<string, string> = {}) {
  const srv = await startServer({ env })
  servers.push(srv)
  await fetch(`${srv.url}/api/v1/flags`, {
    method: 'POST',
    headers: { authorization: `Bearer ${srv.adminToken}`, 'content-type': 'application/json' },
    body: '{"key":"f","enabled":true,"value":true}',
  })
  return srv
}

describe('CORS_ORIGINS=* (the default)', () => {
  let srv: TestServer
  beforeAll(async () => {
    srv = await server()
  })

  test('preflight on every evaluation endpoint: 204 with the allowed method and headers', async () => {
    for (const [path, method] of [
      ['/ofrep/v1/evaluate/flags/f', 'POST'],
      ['/ofrep/v1/evaluate/flags', 'POST'],
      ['/api/v1/evaluate', 'POST'],
      ['/api/v1/flags/f', 'GET'],
      ['/api/v1/configs/c', 'GET'],
      ['/api/v1/stream', 'GET'],
      ['/ofrep/v1/stream', 'GET'],
      ['/api/v1/stream/tickets', 'POST'],
    ]) {
      const res = await fetch(`${srv.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin: ORIGIN,
          'access-control-request-method': method!,
          'access-control-request-headers': 'authorization,content-type',
        },
      })
      expect({ path, status: res.status }).toEqual({ path, status: 204 })
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      expect(res.headers.get('access-control-allow-methods')).toBe(method)
      expect(res.headers.get('access-control-allow-headers')).toBe('Authorization, X-API-Key, Content-Type, If-None-Match, Last-Event-ID')
    }
  })

  test('answers and errors of the evaluation surface carry the headers; the body is the same as without Origin', async () => {
    const auth = { authorization: `Bearer ${srv.adminToken}` }
    const plain = await fetch(`${srv.url}/api/v1/flags/f`, { headers: auth })
    const browser = await fetch(`${srv.url}/api/v1/flags/f`, { headers: { ...auth, origin: ORIGIN } })
    expect(await browser.text()).toBe(await plain.text())
    expect(browser.headers.get('access-control-allow-origin')).toBe('*')
    expect(browser.headers.get('access-control-expose-headers')).toBe(
      'ETag, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
    )
    expect(browser.headers.get('etag')).toBe(plain.headers.get('etag'))
    expect(plain.headers.get('access-control-allow-origin')).toBeNull()
    const unauthorized = await fetch(`${srv.url}/ofrep/v1/evaluate/flags/f`, { method: 'POST', headers: { origin: ORIGIN } })
    expect(unauthorized.status).toBe(401)
    expect(unauthorized.headers.get('access-control-allow-origin')).toBe('*')
    const ofrep = await fetch(`${srv.url}/ofrep/v1/evaluate/flags`, { method: 'POST', headers: { ...auth, origin: ORIGIN } })
    expect(ofrep.status).toBe(200)
    expect(ofrep.headers.get('access-control-allow-origin')).toBe('*')
    const ticket = await fetch(`${srv.url}/api/v1/stream/tickets`, { method: 'POST', headers: { ...auth, origin: ORIGIN } })
    expect(ticket.headers.get('access-control-allow-origin')).toBe('*')
    // The streams too (a page's EventSource opens them with a ticket).
    const abort = new AbortController()
    const stream = await fetch((await ticket.json()).url, { headers: { origin: ORIGIN }, signal: abort.signal })
    expect(stream.status).toBe(200)
    expect(stream.headers.get('access-control-allow-origin')).toBe('*')
    expect(stream.headers.get('content-type')).toStartWith('text/event-stream')
    abort.abort()
  })

  test('management endpoints send no CORS headers, preflight included', async () => {
    const auth = { authorization: `Bearer ${srv.adminToken}`, origin: ORIGIN }
    for (const [method, path] of [
      ['GET', '/api/v1/flags'],
      ['GET', '/api/v1/tokens'],
      ['GET', '/api/v1/flags/f/definition'],
    ]) {
      const res = await fetch(`${srv.url}${path}`, { method, headers: auth })
      expect({ path, acao: res.headers.get('access-control-allow-origin') }).toEqual({ path, acao: null })
    }
    const preflight = await fetch(`${srv.url}/api/v1/tokens`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST' },
    })
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull()
    expect(preflight.status).toBeGreaterThanOrEqual(400)
  })
})

describe('CORS_ORIGINS with a list', () => {
  test('a listed origin is echoed (Vary: Origin); another gets no CORS headers', async () => {
    const srv = await server({ CORS_ORIGINS: `${ORIGIN}, https://other.example.org` })
    const auth = { authorization: `Bearer ${srv.adminToken}` }
    const ok = await fetch(`${srv.url}/api/v1/flags/f`, { headers: { ...auth, origin: ORIGIN } })
    expect(ok.headers.get('access-control-allow-origin')).toBe(ORIGIN)
    expect(ok.headers.get('vary')).toContain('Origin')
    const stranger = await fetch(`${srv.url}/api/v1/flags/f`, { headers: { ...auth, origin: 'https://evil.example.net' } })
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull()
    const preflight = await fetch(`${srv.url}/api/v1/evaluate`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example.net', 'access-control-request-method': 'POST' },
    })
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull()
  })

  test('an invalid CORS_ORIGINS stops the service at start, naming the variable', async () => {
    await expect(startServer({ env: { CORS_ORIGINS: 'not an origin' } })).rejects.toThrow(/CORS_ORIGINS/)
  })
})
