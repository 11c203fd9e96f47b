// What an origin offers the relays that follow it: relay keys, POST /api/v1/relay/verify (by SHA-256, relay
// key required), `revoke` events on a relay key's stream, and forwarded usage batches taken once by id.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { openSse } from '../helpers/sse'

const sha256 = (s: string) => new Bun.CryptoHasher('sha256').update(s).digest('hex')

let srv: TestServer
let relayKey: string
let reader: string

beforeAll(async () => {
  srv = await startServer()
  relayKey = await createToken(srv, ['relay'])
  reader = await createToken(srv, ['read:flags'])
  await api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: { key: 'f1', enabled: true, value: true } })
})
afterAll(() => srv?.stop())

describe('relay keys and POST /api/v1/relay/verify', () => {
  test('a relay key verifies tokens of its project by hash: permissions, environment, expiry; unknown ones are not valid', async () => {
    const unknown = sha256('ff_defa_notarealtoken0000')
    const res = await api(srv, 'POST', '/api/v1/relay/verify', { token: relayKey, body: { hashes: [sha256(reader), unknown] } })
    expect(res.status).toBe(200)
    expect(res.body.project).toMatchObject({ id: 'default', slug: 'default' })
    expect(res.body.environment).toBeNull()
    expect(res.body.keys).toEqual([
      {
        hash: sha256(reader),
        valid: true,
        token_prefix: reader.slice(0, 12),
        permissions: ['read:flags'],
        environment: null,
        environments: null,
        expires_at: null,
      },
      { hash: unknown, valid: false },
    ])
  })

  test('only a relay key (or a project admin) may ask; bad input is a 400', async () => {
    const refused = await api(srv, 'POST', '/api/v1/relay/verify', { token: reader, body: { hashes: [sha256(reader)] } })
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('FORBIDDEN')
    expect((await api(srv, 'POST', '/api/v1/relay/verify', { body: { hashes: [sha256(reader)] } })).status).toBe(401)
    const bad = await api(srv, 'POST', '/api/v1/relay/verify', { token: relayKey, body: { hashes: ['NOT-A-HASH'] } })
    expect(bad.status).toBe(400)
    expect((await api(srv, 'POST', '/api/v1/relay/verify', { token: relayKey, body: { hashes: [] } })).status).toBe(400)
    const many = Array.from({ length: 1001 }, (_, i) => sha256(`t${i}`))
    expect((await api(srv, 'POST', '/api/v1/relay/verify', { token: relayKey, body: { hashes: many } })).status).toBe(400)
  })

  test('a relay key reads what a relay serves (definitions, the stream) but changes nothing', async () => {
    const defs = await api(srv, 'GET', '/api/v1/definitions', { token: relayKey })
    expect(defs.status).toBe(200)
    expect(defs.body.flags.map((f: { key: string }) => f.key)).toEqual(['f1'])
    const write = await api(srv, 'POST', '/api/v1/flags', { token: relayKey, body: { key: 'nope', enabled: true, value: true } })
    expect(write.status).toBe(403)
    expect((await api(srv, 'GET', '/api/v1/tokens', { token: relayKey })).status).toBe(403)
  })

  test('revoking a token sends `revoke` with its hash to relay-key streams only', async () => {
    const doomed = await createToken(srv, ['read:flags'])
    const relayStream = await openSse(`${srv.url}/api/v1/stream`, { authorization: `Bearer ${relayKey}` })
    const plainStream = await openSse(`${srv.url}/api/v1/stream`, { authorization: `Bearer ${reader}` })
    await relayStream.next((e) => e.event === 'ready')
    await plainStream.next((e) => e.event === 'ready')
    const list = await api(srv, 'GET', '/api/v1/tokens', { token: srv.adminToken })
    const hash = list.body.tokens.find((t: { token_prefix: string }) => t.token_prefix === doomed.slice(0, 12)).hash
    expect(hash).toBe(sha256(doomed))
    expect((await api(srv, 'DELETE', `/api/v1/tokens/${hash}`, { token: srv.adminToken })).status).toBe(200)
    const revoke = await relayStream.next((e) => e.event === 'revoke', 5000)
    expect(revoke.data.hashes).toEqual([hash])
    // A change after it reaches both; the plain stream never saw the revoke.
    expect((await api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: { key: 'f2', enabled: true, value: 1 } })).status).toBe(
      201,
    )
    await plainStream.next((e) => e.event === 'change', 5000)
    expect(plainStream.events.some((e) => e.event === 'revoke')).toBe(false)
    const after = await api(srv, 'POST', '/api/v1/relay/verify', { token: relayKey, body: { hashes: [hash] } })
    expect(after.body.keys).toEqual([{ hash, valid: false }])
    relayStream.close()
    plainStream.close()
  })
})

describe('forwarded usage batches', () => {
  const now = () => new Date().toISOString()

  test('a batch id is applied once: the same batch sent again changes nothing', async () => {
    const counts = [{ key: 'f1', environment: '', variant: 'default', count: 7, from: now(), to: now() }]
    const headers = { 'flagship-batch-id': `b-${crypto.randomUUID()}` }
    const first = await api(srv, 'POST', '/api/v1/usage', { token: relayKey, body: { counts }, headers })
    expect(first.status).toBe(200)
    expect(first.body).toEqual({ success: true, accepted: 1, ignored: 0 })
    const again = await api(srv, 'POST', '/api/v1/usage', { token: relayKey, body: { counts }, headers })
    expect(again.body).toEqual({ success: true, accepted: 0, ignored: 0, duplicate: true })
    const usage = await api(srv, 'GET', '/api/v1/flags/f1/usage', { token: srv.adminToken })
    const total = usage.body.buckets.reduce((s: number, b: { count: number }) => s + b.count, 0)
    expect(total).toBe(7)
  })

  test('the header means nothing from other tokens, and a malformed id from a relay key is a 400', async () => {
    const counts = [{ key: 'f1', environment: '', variant: 'default', count: 1, from: now(), to: now() }]
    const headers = { 'flagship-batch-id': 'same-id-twice' }
    expect((await api(srv, 'POST', '/api/v1/usage', { token: reader, body: { counts }, headers })).body).toEqual({
      success: true,
      accepted: 1,
      ignored: 0,
    })
    expect((await api(srv, 'POST', '/api/v1/usage', { token: reader, body: { counts }, headers })).body).toEqual({
      success: true,
      accepted: 1,
      ignored: 0,
    })
    const bad = await api(srv, 'POST', '/api/v1/usage', { token: relayKey, body: { counts }, headers: { 'flagship-batch-id': 'x' } })
    expect(bad.status).toBe(400)
  })
})
