import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, startServer, type TestServer } from '../helpers/server'

let srv: TestServer
let admin: string
beforeAll(async () => {
  srv = await startServer()
  admin = srv.adminToken
})
afterAll(() => srv.stop())

describe('configs', () => {
  test('create, read per environment, update with If-Match, overrides, delete', async () => {
    const created = await api(srv, 'POST', '/api/v1/configs', {
      token: admin,
      body: { key: 'limits', value: { max: 10 }, environments: { production: { value: { max: 100 } } } },
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ success: true, key: 'limits', config: { value: { max: 10 }, version: 1 } })
    expect((await api(srv, 'GET', '/api/v1/configs/limits', { token: admin })).body).toEqual({ value: { max: 10 } })
    expect((await api(srv, 'GET', '/api/v1/configs/limits?environment=production', { token: admin })).body).toEqual({ value: { max: 100 } })
    expect((await api(srv, 'GET', '/api/v1/configs/limits?environment=staging', { token: admin })).body).toEqual({ value: { max: 10 } })

    const upd = await api(srv, 'PUT', '/api/v1/configs/limits', {
      token: admin,
      body: { value: { max: 20 } },
      headers: { 'if-match': '"1"' },
    })
    expect(upd.status).toBe(200)
    expect(upd.body.config).toMatchObject({ value: { max: 20 }, version: 2, environments: { production: { value: { max: 100 } } } })
    const stale = await api(srv, 'PUT', '/api/v1/configs/limits', { token: admin, body: { value: 1 }, headers: { 'if-match': '"1"' } })
    expect(stale.status).toBe(409)
    expect(stale.body).toEqual({ error: 'Version conflict', code: 'CONFLICT', details: { current_version: 2 } })

    const ov = await api(srv, 'PUT', '/api/v1/configs/limits/environments/staging', { token: admin, body: { value: { max: 5 } } })
    expect(ov.status).toBe(200)
    expect(ov.body).toEqual({ success: true, key: 'limits', environment: 'staging', override: { value: { max: 5 } } })
    expect((await api(srv, 'GET', '/api/v1/configs/limits?environment=staging', { token: admin })).body).toEqual({ value: { max: 5 } })
    expect((await api(srv, 'PUT', '/api/v1/configs/limits/environments/moon', { token: admin, body: { value: 1 } })).status).toBe(400)
    const delOv = await api(srv, 'DELETE', '/api/v1/configs/limits/environments/staging', { token: admin })
    expect(delOv.body).toEqual({ success: true, key: 'limits', environment: 'staging' })
    expect((await api(srv, 'DELETE', '/api/v1/configs/limits/environments/staging', { token: admin })).status).toBe(404)

    // Inherited object names are not environments: unknown ones, refused (never the base value in silence).
    expect((await api(srv, 'GET', '/api/v1/configs/limits?environment=constructor', { token: admin })).body.code).toBe(
      'UNKNOWN_ENVIRONMENT',
    )
    expect((await api(srv, 'DELETE', '/api/v1/configs/limits/environments/valueOf', { token: admin })).status).toBe(404)
    const bulk = await api(srv, 'POST', '/api/v1/evaluate', {
      token: admin,
      body: { context: { environment: 'hasOwnProperty' }, configs: ['limits'] },
    })
    expect([bulk.status, bulk.body.code]).toEqual([400, 'UNKNOWN_ENVIRONMENT'])

    const def = await api(srv, 'GET', '/api/v1/configs/limits/definition', { token: admin })
    expect(def.body.config.version).toBe(4)

    const list = await api(srv, 'GET', '/api/v1/configs', { token: admin })
    expect(list.body).toMatchObject({ total: 1, has_more: false, configs: [{ key: 'limits', config: { version: 4 } }] })

    expect((await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: 'limits', value: 1 } })).status).toBe(409)
    expect((await api(srv, 'DELETE', '/api/v1/configs/limits', { token: admin })).body).toEqual({ success: true, key: 'limits' })
    const gone = await api(srv, 'GET', '/api/v1/configs/limits', { token: admin })
    expect(gone.status).toBe(404)
    expect(gone.body.code).toBe('CONFIG_NOT_FOUND')
  })

  test("an environment's value has the config's type: 400 naming the environment, nothing changed", async () => {
    const created = await api(srv, 'POST', '/api/v1/configs', {
      token: admin,
      body: { key: 'timeout', value: 30, environments: { production: { value: '60' } } },
    })
    expect(created.status).toBe(400)
    expect(created.body.details.issues).toEqual([
      { path: 'environments.production.value', message: "Environment production: value must be a number, like the config's value" },
    ])
    expect(
      (
        await api(srv, 'POST', '/api/v1/configs', {
          token: admin,
          body: { key: 'timeout', value: 30, environments: { production: { value: 60 }, staging: { value: null } } },
        })
      ).status,
    ).toBe(201)
    const override = await api(srv, 'PUT', '/api/v1/configs/timeout/environments/staging', { token: admin, body: { value: { s: 5 } } })
    expect(override.status).toBe(400)
    expect(override.body.error).toContain('staging')
    // Changing the config's type while an environment keeps the old one is refused the same way.
    const retyped = await api(srv, 'PUT', '/api/v1/configs/timeout', { token: admin, body: { value: 'thirty' } })
    expect(retyped.status).toBe(400)
    expect(retyped.body.details.issues.map((i: { path: string }) => i.path)).toEqual(['environments.production.value'])
    const stored = await api(srv, 'GET', '/api/v1/configs/timeout/definition', { token: admin })
    expect(stored.body.config).toMatchObject({
      value: 30,
      version: 1,
      environments: { production: { value: 60 }, staging: { value: null } },
    })
    expect((await api(srv, 'DELETE', '/api/v1/configs/timeout', { token: admin })).status).toBe(200)
  })

  test('config validation: missing value, bad key, too deep', async () => {
    expect((await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: 'novalue' } })).status).toBe(400)
    expect((await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: 'bad key', value: 1 } })).status).toBe(400)
    let deep: any = 1
    for (let i = 0; i < 40; i++) deep = { d: deep }
    const res = await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: 'deep', value: deep } })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('VALIDATION_ERROR')
  })
})

describe('segments', () => {
  test('create, get, replace conditions, used by a flag rule, delete guarded by IN_USE', async () => {
    const conditions = [{ property: 'plan', operator: 'equals', value: 'pro' }]
    const created = await api(srv, 'POST', '/api/v1/segments', { token: admin, body: { key: 'pros', conditions } })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ success: true, key: 'pros', segment: { conditions, version: 1 } })
    const got = await api(srv, 'GET', '/api/v1/segments/pros', { token: admin })
    expect(got.body).toMatchObject({ key: 'pros', segment: { conditions, version: 1 } })

    await api(srv, 'POST', '/api/v1/flags', {
      token: admin,
      body: {
        key: 'seg-flag',
        enabled: true,
        value: false,
        targeting: { rules: [{ conditions: [{ property: 'user_id', operator: 'in_segment', value: 'pros' }], value: true }] },
      },
    })
    const ctx = (c: object) => encodeURIComponent(JSON.stringify(c))
    expect((await api(srv, 'GET', `/api/v1/flags/seg-flag?context=${ctx({ plan: 'pro' })}`, { token: admin })).body).toEqual({
      value: true,
      type: 'boolean',
      reason: 'targeting',
    })

    // Replacing a segment's conditions changes evaluations at once (flags are recompiled).
    const upd = await api(srv, 'PUT', '/api/v1/segments/pros', {
      token: admin,
      body: { conditions: [{ property: 'plan', operator: 'equals', value: 'enterprise' }] },
      headers: { 'if-match': '"1"' },
    })
    expect(upd.status).toBe(200)
    expect(upd.body.segment.version).toBe(2)
    expect((await api(srv, 'GET', `/api/v1/flags/seg-flag?context=${ctx({ plan: 'pro' })}`, { token: admin })).body.reason).toBe('default')
    expect((await api(srv, 'GET', `/api/v1/flags/seg-flag?context=${ctx({ plan: 'enterprise' })}`, { token: admin })).body.value).toBe(true)
    expect(
      (await api(srv, 'PUT', '/api/v1/segments/pros', { token: admin, body: { conditions: [] }, headers: { 'if-match': '"1"' } })).status,
    ).toBe(409)

    const inUse = await api(srv, 'DELETE', '/api/v1/segments/pros', { token: admin })
    expect(inUse.status).toBe(409)
    expect(inUse.body.code).toBe('IN_USE')
    expect(inUse.body.details.flags).toEqual(['seg-flag'])

    await api(srv, 'DELETE', '/api/v1/flags/seg-flag', { token: admin })
    expect((await api(srv, 'DELETE', '/api/v1/segments/pros', { token: admin })).body).toEqual({ success: true, key: 'pros' })
    const gone = await api(srv, 'GET', '/api/v1/segments/pros', { token: admin })
    expect(gone.status).toBe(404)
    expect(gone.body.code).toBe('SEGMENT_NOT_FOUND')
  })

  test('segment list and validation', async () => {
    await api(srv, 'POST', '/api/v1/segments', { token: admin, body: { key: 'b-seg', conditions: [] } })
    await api(srv, 'POST', '/api/v1/segments', { token: admin, body: { key: 'a-seg', conditions: [] } })
    const list = await api(srv, 'GET', '/api/v1/segments?limit=1', { token: admin })
    expect(list.body.segments.map((s: any) => s.key)).toEqual(['a-seg'])
    expect(list.body.has_more).toBe(true)
    const bad = await api(srv, 'POST', '/api/v1/segments', {
      token: admin,
      body: { key: 'bad', conditions: [{ property: 'x', operator: 'matches', value: '(' }] },
    })
    expect(bad.status).toBe(400)
    expect(JSON.stringify(bad.body.details.issues)).toContain('conditions[0]')
    expect((await api(srv, 'POST', '/api/v1/segments', { token: admin, body: { key: 'a-seg', conditions: [] } })).status).toBe(409)
  })
})
