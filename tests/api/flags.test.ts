import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, startServer, type TestServer } from '../helpers/server'

let srv: TestServer
let admin: string
beforeAll(async () => {
  srv = await startServer()
  admin = srv.adminToken
})
afterAll(() => srv.stop())

const create = (body: unknown) => api(srv, 'POST', '/api/v1/flags', { token: admin, body })

describe('flags', () => {
  test('create applies defaults, answers 201 with version 1 and the whole stored flag', async () => {
    const res = await create({ key: 'new-checkout' })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      success: true,
      key: 'new-checkout',
      flag: { key: 'new-checkout', enabled: false, value: true, version: 1 },
    })
    expect(res.body.flag.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(res.body.flag.updated_at).toBe(res.body.flag.created_at)
  })

  test('duplicate key: 409 ALREADY_EXISTS, nothing changed', async () => {
    await create({ key: 'dup', value: 'a' })
    const res = await create({ key: 'dup', value: 'b' })
    expect(res.status).toBe(409)
    expect(res.body.code).toBe('ALREADY_EXISTS')
    const def = await api(srv, 'GET', '/api/v1/flags/dup/definition', { token: admin })
    expect(def.body.flag.value).toBe('a')
  })

  test('bad keys and bad fields: 400 VALIDATION_ERROR with field paths', async () => {
    for (const key of ['', '-lead', 'sp ace', 'x'.repeat(129), 'ü']) {
      const res = await create({ key })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('VALIDATION_ERROR')
      expect(res.body.details.issues[0].path).toBe('key')
    }
    const wrongType = await create({ key: 'typed', enabled: 'yes' })
    expect(wrongType.status).toBe(400)
    expect(wrongType.body.details.issues.some((i: any) => i.path === 'enabled')).toBe(true)
    const badOp = await create({
      key: 'badop',
      targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'smells_like', value: 'x' }], value: 1 }] },
    })
    expect(badOp.status).toBe(400)
    expect(JSON.stringify(badOp.body.details.issues)).toContain('targeting.rules[0].conditions[0].operator')
    const badRollout = await create({ key: 'badroll', targeting: { rollout: { percentage: 120, attribute: 'user_id' } } })
    expect(badRollout.status).toBe(400)
    expect(JSON.stringify(badRollout.body.details.issues)).toContain('targeting.rollout')
    const badSeg = await create({
      key: 'badseg',
      targeting: { rules: [{ conditions: [{ property: 'user_id', operator: 'in_segment', value: 'nope' }], value: 1 }] },
    })
    expect(badSeg.status).toBe(400)
    const badEnv = await create({ key: 'badenv', environments: { moon: { enabled: true } } })
    expect(badEnv.status).toBe(400)
    expect(JSON.stringify(badEnv.body.details.issues)).toContain('environments.moon')
    for (const key of ['typed', 'badop', 'badroll', 'badseg', 'badenv']) {
      expect((await api(srv, 'GET', `/api/v1/flags/${key}`, { token: admin })).status).toBe(404)
    }
  })

  test('bodies are validated as sent, never rewritten: wrong shapes are 400 and nothing is stored', async () => {
    for (const [key, extra] of [
      ['shape-a', { targeting: 'abc' }],
      ['shape-b', { targeting: { overrides: ['a'] } }],
      ['shape-c', { environments: ['staging'] }],
      ['shape-d', { targeting: { rules: 'all' } }],
    ] as const) {
      const res = await create({ key, ...extra })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('VALIDATION_ERROR')
      expect((await api(srv, 'GET', `/api/v1/flags/${key}/definition`, { token: admin })).status).toBe(404)
    }
  })

  test('unknown fields are refused (a typo must not be silently dropped); echoed read-only fields are ignored', async () => {
    const typo = await create({ key: 'typo', enable: true })
    expect(typo.status).toBe(400)
    await create({ key: 'echo', value: 1 })
    const def = (await api(srv, 'GET', '/api/v1/flags/echo/definition', { token: admin })).body.flag
    const put = await api(srv, 'PUT', '/api/v1/flags/echo', { token: admin, body: { ...def, value: 2 } })
    expect(put.status).toBe(200)
    expect(put.body.flag).toMatchObject({ key: 'echo', value: 2, version: 2 })
  })

  test('a top-level context attribute is matched like custom.<name>', async () => {
    await create({
      key: 'geo',
      enabled: true,
      value: 'off',
      targeting: { rules: [{ conditions: [{ property: 'country', operator: 'equals', value: 'de' }], value: 'on' }] },
    })
    const ev = (c: object) => api(srv, 'GET', `/api/v1/flags/geo?context=${encodeURIComponent(JSON.stringify(c))}`, { token: admin })
    expect((await ev({ country: 'de' })).body.value).toBe('on')
    expect((await ev({ custom: { country: 'de' } })).body.value).toBe('on')
    expect((await ev({ country: 'fr' })).body.value).toBe('off')
  })

  test('inherited object names are not environments: deleting a "toString" override is 404 and changes nothing', async () => {
    await create({ key: 'proto-env', environments: { staging: { enabled: true } } })
    for (const env of ['toString', '__proto__', 'constructor']) {
      expect((await api(srv, 'DELETE', `/api/v1/flags/proto-env/environments/${env}`, { token: admin })).status).toBe(404)
    }
    const def = await api(srv, 'GET', '/api/v1/flags/proto-env/definition', { token: admin })
    expect(def.body.flag.version).toBe(1)
  })

  test('a flag whose segment was force-deleted can still be changed (switched off)', async () => {
    await api(srv, 'POST', '/api/v1/segments', { token: admin, body: { key: 'doomed-seg', conditions: [] } })
    await create({
      key: 'orphaned',
      enabled: true,
      targeting: { rules: [{ conditions: [{ property: 'user_id', operator: 'in_segment', value: 'doomed-seg' }], value: false }] },
    })
    expect((await api(srv, 'DELETE', '/api/v1/segments/doomed-seg?force=true', { token: admin })).status).toBe(200)
    const off = await api(srv, 'PUT', '/api/v1/flags/orphaned', { token: admin, body: { enabled: false } })
    expect(off.status).toBe(200)
    // ...but a new reference to a segment that does not exist is still refused.
    const bad = await api(srv, 'PUT', '/api/v1/flags/orphaned', {
      token: admin,
      body: { targeting: { rules: [{ conditions: [{ property: 'user_id', operator: 'in_segment', value: 'never-was' }], value: 1 }] } },
    })
    expect(bad.status).toBe(400)
  })

  test('an explicit null value is stored as null (off value null, type null)', async () => {
    const res = await create({ key: 'nullv', enabled: true, value: null })
    expect(res.status).toBe(201)
    expect(res.body.flag.value).toBeNull()
    expect((await api(srv, 'GET', '/api/v1/flags/nullv', { token: admin })).body).toEqual({ value: null, type: 'null', reason: 'default' })
  })

  test('list: ordered by key, limit/offset, total, has_more; bad paging is 400', async () => {
    for (const k of ['list-c', 'list-a', 'list-b']) await create({ key: k })
    const all = await api(srv, 'GET', '/api/v1/flags?limit=1000', { token: admin })
    expect(all.status).toBe(200)
    const keys = all.body.flags.map((f: any) => f.key)
    expect(keys).toEqual([...keys].sort())
    expect(all.body.total).toBe(keys.length)
    expect(all.body.has_more).toBe(false)
    expect(all.body.flags[0]).toHaveProperty('flag.version')
    const page = await api(srv, 'GET', '/api/v1/flags?limit=2&offset=1', { token: admin })
    expect(page.body.flags.length).toBe(2)
    expect(page.body.flags[0].key).toBe(keys[1])
    expect(page.body.has_more).toBe(keys.length > 3)
    for (const q of ['limit=0', 'limit=1001', 'limit=abc', 'limit=1.5', 'limit=', 'offset=-1', 'offset=1e20', 'limit=5&offset=x']) {
      const res = await api(srv, 'GET', `/api/v1/flags?${q}`, { token: admin })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('VALIDATION_ERROR')
      // The issue names the parameter, whichever way Elysia's coercion failed.
      const name = q.includes('offset') ? 'offset' : 'limit'
      expect(res.body.details.issues).toEqual([
        { path: name, message: name === 'limit' ? 'must be an integer from 1 to 1000' : 'must be an integer from 0 to 1000000000' },
      ])
      expect(res.body.error).toBe(`Invalid query: ${res.body.details.issues[0].path}: ${res.body.details.issues[0].message}`)
    }
    for (const path of ['/api/v1/audit?limit=5000', '/api/v1/webhooks/none/deliveries?limit=0']) {
      expect((await api(srv, 'GET', path, { token: admin })).body.details?.issues?.[0]?.path).toBe('limit')
    }
  })

  test('update merges fields, bumps the version, null clears an optional field', async () => {
    await create({ key: 'upd', value: 'blue', active_from: '2020-01-01T00:00:00.000Z' })
    const res = await api(srv, 'PUT', '/api/v1/flags/upd', { token: admin, body: { enabled: true, key: 'ignored', version: 99 } })
    expect(res.status).toBe(200)
    expect(res.body.flag).toMatchObject({ key: 'upd', enabled: true, value: 'blue', version: 2, active_from: '2020-01-01T00:00:00.000Z' })
    const cleared = await api(srv, 'PUT', '/api/v1/flags/upd', { token: admin, body: { active_from: null } })
    expect(cleared.body.flag.version).toBe(3)
    expect(cleared.body.flag).not.toHaveProperty('active_from')
  })

  test('update of a missing flag: 404 FLAG_NOT_FOUND', async () => {
    const res = await api(srv, 'PUT', '/api/v1/flags/ghost', { token: admin, body: { enabled: true } })
    expect(res.status).toBe(404)
    expect(res.body.code).toBe('FLAG_NOT_FOUND')
  })

  test('If-Match: match applies, mismatch is 409 with the exact body', async () => {
    await create({ key: 'im' })
    const ok = await api(srv, 'PUT', '/api/v1/flags/im', { token: admin, body: { value: 1 }, headers: { 'if-match': '"1"' } })
    expect(ok.status).toBe(200)
    expect(ok.body.flag.version).toBe(2)
    const stale = await api(srv, 'PUT', '/api/v1/flags/im', { token: admin, body: { value: 2 }, headers: { 'if-match': '"1"' } })
    expect(stale.status).toBe(409)
    expect(stale.body).toEqual({ error: 'Version conflict', code: 'CONFLICT', details: { current_version: 2 } })
    for (const ifMatch of ['banana', '"2', '2"', '""']) {
      const bad = await api(srv, 'PUT', '/api/v1/flags/im', { token: admin, body: { value: 2 }, headers: { 'if-match': ifMatch } })
      expect(bad.status).toBe(400)
    }
  })

  test('20 concurrent PUTs with the same If-Match: exactly one wins', async () => {
    await create({ key: 'race' })
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api(srv, 'PUT', '/api/v1/flags/race', { token: admin, body: { value: i }, headers: { 'if-match': '"1"' } }),
      ),
    )
    const statuses = results.map((r) => r.status)
    expect(statuses.filter((s) => s === 200).length).toBe(1)
    expect(statuses.filter((s) => s === 409).length).toBe(19)
    const def = await api(srv, 'GET', '/api/v1/flags/race/definition', { token: admin })
    expect(def.body.flag.version).toBe(2)
    const audit = await api(srv, 'GET', '/api/v1/audit?resource_type=flag&resource_key=race', { token: admin })
    expect(audit.body.entries.filter((e: any) => e.action === 'update').length).toBe(1)
  })

  test('20 concurrent PUTs without If-Match: every one applies, versions 2..21, one audit entry each', async () => {
    await create({ key: 'free-for-all' })
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api(srv, 'PUT', '/api/v1/flags/free-for-all', { token: admin, body: { value: i } })),
    )
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200))
    expect(results.map((r) => r.body.flag.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2))
    const audit = await api(srv, 'GET', '/api/v1/audit?resource_key=free-for-all&action=update', { token: admin })
    expect(audit.body.total).toBe(20)
  })

  test('delete: success, then 404', async () => {
    await create({ key: 'gone' })
    const res = await api(srv, 'DELETE', '/api/v1/flags/gone', { token: admin })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ success: true, key: 'gone' })
    expect((await api(srv, 'DELETE', '/api/v1/flags/gone', { token: admin })).status).toBe(404)
    expect((await api(srv, 'GET', '/api/v1/flags/gone', { token: admin })).status).toBe(404)
  })

  test('environment overrides: put, evaluate, delete; unknown environment 400; missing override 404', async () => {
    await create({ key: 'envy', enabled: false, value: 'base' })
    const put = await api(srv, 'PUT', '/api/v1/flags/envy/environments/staging', { token: admin, body: { enabled: true, value: 'stg' } })
    expect(put.status).toBe(200)
    expect(put.body).toEqual({ success: true, key: 'envy', environment: 'staging', override: { enabled: true, value: 'stg' } })
    const ctx = encodeURIComponent(JSON.stringify({ environment: 'staging' }))
    const ev = await api(srv, 'GET', `/api/v1/flags/envy?context=${ctx}`, { token: admin })
    expect(ev.body).toEqual({ value: 'stg', type: 'string', reason: 'environment_override' })
    const def = await api(srv, 'GET', '/api/v1/flags/envy/definition', { token: admin })
    expect(def.body.flag.version).toBe(2)
    const stale = await api(srv, 'PUT', '/api/v1/flags/envy/environments/staging', {
      token: admin,
      body: { enabled: false },
      headers: { 'if-match': '"1"' },
    })
    expect(stale.status).toBe(409)
    expect(stale.body).toEqual({ error: 'Version conflict', code: 'CONFLICT', details: { current_version: 2 } })
    const unknown = await api(srv, 'PUT', '/api/v1/flags/envy/environments/moon', { token: admin, body: { enabled: true } })
    expect(unknown.status).toBe(400)
    const badBody = await api(srv, 'PUT', '/api/v1/flags/envy/environments/staging', { token: admin, body: { value: 1 } })
    expect(badBody.status).toBe(400)
    const del = await api(srv, 'DELETE', '/api/v1/flags/envy/environments/staging', { token: admin })
    expect(del.status).toBe(200)
    expect(del.body).toEqual({ success: true, key: 'envy', environment: 'staging' })
    expect((await api(srv, 'DELETE', '/api/v1/flags/envy/environments/staging', { token: admin })).status).toBe(404)
    const after = await api(srv, 'GET', `/api/v1/flags/envy?context=${ctx}`, { token: admin })
    expect(after.body).toEqual({ value: null, type: 'null', reason: 'disabled' })
  })
})

describe('value types', () => {
  test('a boolean flag refuses a rule value "yes", an override 1 and an environment value "on"; nothing is stored', async () => {
    const refused = await create({ key: 'typed', enabled: true, value: true, targeting: { rules: [{ conditions: [], value: 'yes' }] } })
    expect(refused.status).toBe(400)
    expect(refused.body.code).toBe('VALIDATION_ERROR')
    expect(refused.body.details.issues).toEqual([
      { path: 'targeting.rules[0].value', message: "Rule 1: value must be a boolean, like the flag's value" },
    ])
    expect((await api(srv, 'GET', '/api/v1/flags/typed/definition', { token: admin })).status).toBe(404)

    expect(
      (await create({ key: 'typed', enabled: true, value: true, targeting: { rules: [{ conditions: [], value: false }] } })).status,
    ).toBe(201)
    const override = await api(srv, 'PUT', '/api/v1/flags/typed', { token: admin, body: { targeting: { overrides: { 'u-1': 1 } } } })
    expect(override.body.details.issues).toEqual([
      { path: 'targeting.overrides.u-1', message: "Override for user u-1: must be a boolean, like the flag's value" },
    ])
    const env = await api(srv, 'PUT', '/api/v1/flags/typed/environments/production', { token: admin, body: { enabled: true, value: 'on' } })
    expect(env.status).toBe(400)
    expect(env.body.details.issues).toEqual([
      { path: 'environments.production.value', message: "Environment production: value must be a boolean, like the flag's value" },
    ])
    // Changing the value's type needs the rules to follow; both together apply.
    const retype = await api(srv, 'PUT', '/api/v1/flags/typed', { token: admin, body: { value: 'v1' } })
    expect(retype.body.details.issues.map((i: { path: string }) => i.path)).toEqual(['targeting.rules[0].value'])
    const stored = await api(srv, 'GET', '/api/v1/flags/typed/definition', { token: admin })
    expect(stored.body.flag).toMatchObject({ value: true, version: 1, targeting: { rules: [{ conditions: [], value: false }] } })
    const both = await api(srv, 'PUT', '/api/v1/flags/typed', {
      token: admin,
      body: { value: 'v1', targeting: { rules: [{ conditions: [], value: 'v2' }] } },
    })
    expect(both.status).toBe(200)
    expect((await api(srv, 'GET', '/api/v1/flags/typed', { token: admin })).body).toEqual({
      value: 'v2',
      type: 'string',
      reason: 'targeting',
    })
    // null stays an explicit off value for any type.
    expect(
      (await api(srv, 'PUT', '/api/v1/flags/typed/environments/production', { token: admin, body: { enabled: true, value: null } })).status,
    ).toBe(200)
  })
})
