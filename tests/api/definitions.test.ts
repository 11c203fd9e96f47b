// GET /api/v1/definitions through HTTP: what each permission reads, the segments flags use, the change
// number, ETag/304 that follows changes, the environment filter, and bad input.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, createToken, startServer, type TestServer } from '../helpers/server'

let srv: TestServer
let admin: string

beforeAll(async () => {
  srv = await startServer()
  admin = srv.adminToken
  const post = (path: string, body: unknown) => api(srv, 'POST', path, { token: admin, body }).then((r) => expect(r.status).toBe(201))
  await post('/api/v1/segments', { key: 'pros', conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }] })
  await post('/api/v1/segments', { key: 'unused', conditions: [] })
  await post('/api/v1/flags', {
    key: 'banner',
    enabled: true,
    value: false,
    targeting: { rules: [{ conditions: [{ operator: 'in_segment', value: 'pros' }], value: true }] },
    environments: { production: { enabled: false }, staging: { enabled: true, value: true } },
  })
  await post('/api/v1/configs', { key: 'limits', value: { max: 1 }, environments: { production: { value: { max: 100 } } } })
})
afterAll(() => srv?.stop())

describe('GET /api/v1/definitions', () => {
  test('a token with both read permissions gets flags, the segments they use, configs, environments and the change number', async () => {
    const res = await api(srv, 'GET', '/api/v1/definitions', { token: admin })
    expect(res.status).toBe(200)
    const { version, environments, flags, configs, segments } = res.body
    expect(version).toBe(4)
    expect(environments).toEqual(['development', 'staging', 'production'])
    expect(flags).toHaveLength(1)
    expect(flags[0]).toMatchObject({
      key: 'banner',
      enabled: true,
      value: false,
      version: 1,
      environments: { production: { enabled: false } },
    })
    expect(segments.map((s: any) => s.key)).toEqual(['pros'])
    expect(segments[0]).toMatchObject({ key: 'pros', conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], version: 1 })
    expect(configs).toEqual([
      expect.objectContaining({ key: 'limits', value: { max: 1 }, environments: { production: { value: { max: 100 } } }, version: 1 }),
    ])
    // The stored documents, exactly as the definition endpoints show them.
    const stored = await api(srv, 'GET', '/api/v1/flags/banner/definition', { token: admin })
    expect(flags[0]).toEqual(stored.body.flag)
  })

  test('each permission reads only its kinds; a token with neither is refused', async () => {
    const flagsOnly = (await api(srv, 'GET', '/api/v1/definitions', { token: await createToken(srv, ['read:flags']) })).body
    expect([flagsOnly.flags.length, flagsOnly.segments.length, flagsOnly.configs.length]).toEqual([1, 1, 0])
    const configsOnly = (await api(srv, 'GET', '/api/v1/definitions', { token: await createToken(srv, ['read:configs']) })).body
    expect([configsOnly.flags.length, configsOnly.segments.length, configsOnly.configs.length]).toEqual([0, 0, 1])
    const writer = await api(srv, 'GET', '/api/v1/definitions', { token: await createToken(srv, ['write:configs']) })
    expect(writer.status).toBe(403)
    expect((await api(srv, 'GET', '/api/v1/definitions', { token: null })).status).toBe(401)
  })

  test('strong ETag, 304 on If-None-Match, a new one after any change', async () => {
    const first = await api(srv, 'GET', '/api/v1/definitions', { token: admin })
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^"[^"]+"$/)
    const same = await api(srv, 'GET', '/api/v1/definitions', { token: admin, headers: { 'if-none-match': etag } })
    expect(same.status).toBe(304)
    expect(same.text).toBe('')
    await api(srv, 'PUT', '/api/v1/segments/pros', {
      token: admin,
      body: { conditions: [{ property: 'plan', operator: 'equals', value: 'enterprise' }] },
    })
    const after = await api(srv, 'GET', '/api/v1/definitions', { token: admin, headers: { 'if-none-match': etag } })
    expect(after.status).toBe(200)
    expect(after.body.version).toBe(first.body.version + 1)
    expect(after.body.segments[0].conditions[0].value).toBe('enterprise')
    expect(after.headers.get('etag')).not.toBe(etag)
  })

  test("?environment= keeps only that environment's overrides; an unknown one is a 400", async () => {
    const prod = (await api(srv, 'GET', '/api/v1/definitions?environment=production', { token: admin })).body
    expect(prod.flags[0].environments).toEqual({ production: { enabled: false } })
    expect(prod.configs[0].environments).toEqual({ production: { value: { max: 100 } } })
    const dev = (await api(srv, 'GET', '/api/v1/definitions?environment=development', { token: admin })).body
    expect(dev.flags[0].environments).toEqual({})
    for (const path of [
      '/api/v1/definitions?environment=moon',
      '/api/v1/definitions?env=production',
      '/api/v1/definitions?environment=constructor',
    ]) {
      const res = await api(srv, 'GET', path, { token: admin })
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 400, code: 'VALIDATION_ERROR' })
    }
  })
})
