import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, startServer, type TestServer } from '../helpers/server'

let srv: TestServer
let admin: string
beforeAll(async () => {
  srv = await startServer()
  admin = srv.adminToken
})
afterAll(() => srv.stop())

describe('tokens', () => {
  test('create returns the plaintext once in the documented format; list shows hash and prefix only', async () => {
    const res = await api(srv, 'POST', '/api/v1/tokens', {
      token: admin,
      body: { name: 'ci reader', project_id: 'default', permissions: ['read:flags'] },
    })
    expect(res.status).toBe(201)
    expect(res.body.success).toBe(true)
    expect(res.body.token).toMatch(/^ff_defa_[A-Za-z0-9]{20}$/)
    const hash = new Bun.CryptoHasher('sha256').update(res.body.token).digest('hex')
    expect(res.body.meta).toEqual({
      hash,
      name: 'ci reader',
      token_prefix: res.body.token.slice(0, 12),
      project_id: 'default',
      permissions: ['read:flags'],
      created_at: expect.stringMatching(/\.\d{3}Z$/),
    })
    const list = await api(srv, 'GET', '/api/v1/tokens', { token: admin })
    expect(list.status).toBe(200)
    expect(list.text).not.toContain(res.body.token)
    const entry = list.body.tokens.find((t: any) => t.hash === hash)
    expect(entry).toMatchObject({ name: 'ci reader', token_prefix: res.body.token.slice(0, 12), expires_at: null, last_used_at: null })
    expect(list.body).toMatchObject({ total: 2, has_more: false })
    // The new token works, and the plaintext never shows up in the audit log.
    expect((await api(srv, 'GET', '/api/v1/flags', { token: res.body.token })).status).toBe(200)
    const audit = await api(srv, 'GET', '/api/v1/audit?resource_type=token', { token: admin })
    expect(audit.text).not.toContain(res.body.token)
    expect(audit.text).not.toContain(hash)
    expect(audit.body.entries[0]).toMatchObject({
      action: 'create',
      resource_type: 'token',
      after: { name: 'ci reader', permissions: ['read:flags'] },
    })
  })

  test('expires_at is echoed when given; invalid input is refused', async () => {
    const expires = new Date(Date.now() + 86400_000).toISOString()
    const res = await api(srv, 'POST', '/api/v1/tokens', {
      token: admin,
      body: { name: 'temp', project_id: 'default', permissions: ['read:configs'], expires_at: expires },
    })
    expect(res.body.meta.expires_at).toBe(expires)
    for (const body of [
      { name: '', project_id: 'default', permissions: ['read:flags'] },
      { name: 'x', project_id: 'default', permissions: [] },
      { name: 'x', project_id: 'default', permissions: ['admin'] },
      { name: 'x', project_id: 'default', permissions: ['*'], expires_at: 'tomorrow' },
      { name: 'x', project_id: 'default', permissions: ['*'], expires_at: '2030' },
      { name: 'x', project_id: 'default', permissions: ['*'], expires_at: '2001-01-01T00:00:00Z' },
    ]) {
      const bad = await api(srv, 'POST', '/api/v1/tokens', { token: admin, body })
      expect(bad.status).toBe(400)
      expect(bad.body.code).toBe('VALIDATION_ERROR')
    }
  })

  test('delete by hash; unknown hash 404; the last admin token cannot be deleted', async () => {
    const made = await api(srv, 'POST', '/api/v1/tokens', {
      token: admin,
      body: { name: 'doomed', project_id: 'default', permissions: ['read:flags'] },
    })
    const del = await api(srv, 'DELETE', `/api/v1/tokens/${made.body.meta.hash}`, { token: admin })
    expect(del.body).toEqual({ success: true, hash: made.body.meta.hash })
    expect((await api(srv, 'GET', '/api/v1/flags', { token: made.body.token })).status).toBe(401)
    expect((await api(srv, 'DELETE', `/api/v1/tokens/${made.body.meta.hash}`, { token: admin })).status).toBe(404)

    const adminHash = new Bun.CryptoHasher('sha256').update(admin).digest('hex')
    const last = await api(srv, 'DELETE', `/api/v1/tokens/${adminHash}`, { token: admin })
    expect(last.status).toBe(409)
    expect(last.body.code).toBe('IN_USE')
    // With a second admin, the first can go.
    const second = await api(srv, 'POST', '/api/v1/tokens', {
      token: admin,
      body: { name: 'admin 2', project_id: 'default', permissions: ['*'] },
    })
    expect((await api(srv, 'DELETE', `/api/v1/tokens/${adminHash}`, { token: second.body.token })).status).toBe(200)
    expect((await api(srv, 'GET', '/api/v1/project', { token: admin })).status).toBe(401)
    admin = second.body.token
  })
})

describe('webhook registrations', () => {
  test('create, list (secret never returned), delete', async () => {
    const res = await api(srv, 'POST', '/api/v1/webhooks', {
      token: admin,
      body: { url: 'https://hooks.example.com/flags', events: ['flag.updated'], secret: 's3cr3t-value' },
    })
    expect(res.status).toBe(201)
    const health = { status: 'active', consecutive_failures: 0, failing_since: null, next_attempt_at: null, paused_at: null }
    expect(res.body).toEqual({
      success: true,
      id: expect.any(String),
      config: { url: 'https://hooks.example.com/flags', has_secret: true, events: ['flag.updated'] },
      health,
    })
    const list = await api(srv, 'GET', '/api/v1/webhooks', { token: admin })
    expect(list.body.webhooks).toEqual([
      { id: res.body.id, config: { url: 'https://hooks.example.com/flags', has_secret: true, events: ['flag.updated'] }, health },
    ])
    expect(list.text).not.toContain('s3cr3t-value')
    const audit = await api(srv, 'GET', '/api/v1/audit?resource_type=webhook', { token: admin })
    expect(audit.text).not.toContain('s3cr3t-value')
    expect((await api(srv, 'DELETE', `/api/v1/webhooks/${res.body.id}`, { token: admin })).body).toEqual({ success: true, id: res.body.id })
    expect((await api(srv, 'DELETE', `/api/v1/webhooks/${res.body.id}`, { token: admin })).status).toBe(404)
  })

  // This server runs with WEBHOOK_ALLOW_PRIVATE_TARGETS (tests deliver to 127.0.0.1), so only the rules that
  // hold even then are checked here; tests/api/webhook-urls.test.ts covers the production rules.
  test('URL syntax and events are enforced', async () => {
    const bad = [
      { url: 'not a url', events: ['*'] },
      { url: 'ftp://example.com/x', events: ['*'] },
    ]
    for (const body of bad) {
      const res = await api(srv, 'POST', '/api/v1/webhooks', { token: admin, body })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('INVALID_WEBHOOK_URL')
      expect(typeof res.body.details.reason).toBe('string')
    }
    for (const events of [[], ['flag.exploded']]) {
      const res = await api(srv, 'POST', '/api/v1/webhooks', { token: admin, body: { url: 'https://example.com/h', events } })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('VALIDATION_ERROR')
    }
    expect((await api(srv, 'GET', '/api/v1/webhooks', { token: admin })).body.webhooks).toEqual([])
  })
})

describe('webhook registration', () => {
  test('the same URL twice: 409 naming the registered webhook, nothing added', async () => {
    const first = await api(srv, 'POST', '/api/v1/webhooks', {
      token: admin,
      body: { url: 'https://twice.example.com/hook', events: ['flag.created'] },
    })
    expect(first.status).toBe(201)
    const again = await api(srv, 'POST', '/api/v1/webhooks', {
      token: admin,
      body: { url: 'https://twice.example.com/hook', events: ['*'] },
    })
    expect({ status: again.status, code: again.body.code, id: again.body.details?.id }).toEqual({
      status: 409,
      code: 'CONFLICT',
      id: first.body.id,
    })
    expect(again.body.error).toContain('https://twice.example.com/hook')
    const listed = (await api(srv, 'GET', '/api/v1/webhooks', { token: admin })).body.webhooks.filter(
      (w: any) => w.config.url === 'https://twice.example.com/hook',
    )
    expect(listed.length).toBe(1)
    expect((await api(srv, 'DELETE', `/api/v1/webhooks/${first.body.id}`, { token: admin })).status).toBe(200)
  })

  test('a URL refused by the production rules says so once, and names WEBHOOK_ALLOW_PRIVATE_TARGETS when that would allow it', async () => {
    const strict = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' } })
    try {
      const local = await api(strict, 'POST', '/api/v1/webhooks', {
        token: strict.adminToken,
        body: { url: 'http://127.0.0.1:9/hook', events: ['*'] },
      })
      expect({ status: local.status, code: local.body.code, allowed_with: local.body.details.allowed_with }).toEqual({
        status: 400,
        code: 'INVALID_WEBHOOK_URL',
        allowed_with: 'WEBHOOK_ALLOW_PRIVATE_TARGETS',
      })
      expect(local.body.error).toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS=true')
      expect(local.body.error.split(local.body.details.reason).length).toBe(2)
      // Credentials in the URL are refused whatever the switch: no hint.
      const creds = await api(strict, 'POST', '/api/v1/webhooks', {
        token: strict.adminToken,
        body: { url: 'https://user:pw@hooks.example.com/x', events: ['*'] },
      })
      expect(creds.status).toBe(400)
      expect(creds.body.error).not.toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS')
      expect(creds.body.details.allowed_with).toBeUndefined()
    } finally {
      await strict.stop()
    }
  })
})

describe('project and environments', () => {
  test('get, update name and slug, invalid slug refused', async () => {
    expect((await api(srv, 'GET', '/api/v1/project', { token: admin })).body).toEqual({
      id: 'default',
      name: 'Default',
      slug: 'default',
      environments: ['development', 'staging', 'production'],
    })
    const upd = await api(srv, 'PUT', '/api/v1/project', { token: admin, body: { name: 'Web shop', slug: 'web-shop' } })
    expect(upd.status).toBe(200)
    expect(upd.body).toEqual({ id: 'default', name: 'Web shop', slug: 'web-shop', environments: ['development', 'staging', 'production'] })
    expect((await api(srv, 'PUT', '/api/v1/project', { token: admin, body: { slug: 'Bad Slug' } })).status).toBe(400)
    expect((await api(srv, 'PUT', '/api/v1/project', { token: admin, body: { name: '' } })).status).toBe(400)
    const audit = await api(srv, 'GET', '/api/v1/audit?resource_type=project&action=update', { token: admin })
    expect(audit.body.entries[0]).toMatchObject({ before: { name: 'Default' }, after: { name: 'Web shop', slug: 'web-shop' } })
  })

  test('environments: list, add (409 on duplicate), remove guarded by IN_USE unless forced', async () => {
    expect((await api(srv, 'GET', '/api/v1/project/environments', { token: admin })).body).toEqual({
      environments: ['development', 'staging', 'production'],
    })
    const add = await api(srv, 'POST', '/api/v1/project/environments', { token: admin, body: { name: 'qa' } })
    expect(add.status).toBe(201)
    expect(add.body).toEqual({ success: true, environments: ['development', 'staging', 'production', 'qa'] })
    expect((await api(srv, 'POST', '/api/v1/project/environments', { token: admin, body: { name: 'qa' } })).status).toBe(409)
    expect((await api(srv, 'POST', '/api/v1/project/environments', { token: admin, body: { name: 'QA!' } })).status).toBe(400)

    await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'qa-flag', environments: { qa: { enabled: true } } } })
    await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key: 'qa-config', value: 1, environments: { qa: { value: 2 } } } })
    const inUse = await api(srv, 'DELETE', '/api/v1/project/environments/qa', { token: admin })
    expect(inUse.status).toBe(409)
    expect(inUse.body).toMatchObject({ code: 'IN_USE', details: { flags: ['qa-flag'], configs: ['qa-config'] } })
    const forced = await api(srv, 'DELETE', '/api/v1/project/environments/qa?force=true', { token: admin })
    expect(forced.status).toBe(200)
    expect(forced.body).toEqual({ success: true, environments: ['development', 'staging', 'production'] })
    const flag = await api(srv, 'GET', '/api/v1/flags/qa-flag/definition', { token: admin })
    expect(flag.body.flag.environments).toEqual({})
    expect(flag.body.flag.version).toBe(2)
    expect((await api(srv, 'DELETE', '/api/v1/project/environments/qa', { token: admin })).status).toBe(404)
  })
})

describe('audit log', () => {
  test('every change is recorded with before/after and actor; filters work; newest first', async () => {
    await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'audited', value: 'a' } })
    await api(srv, 'PUT', '/api/v1/flags/audited', { token: admin, body: { value: 'b' } })
    await api(srv, 'DELETE', '/api/v1/flags/audited', { token: admin })
    const res = await api(srv, 'GET', '/api/v1/audit?resource_key=audited', { token: admin })
    expect(res.body.entries.map((e: any) => e.action)).toEqual(['delete', 'update', 'create'])
    const [del, upd, crt] = res.body.entries
    expect(crt).toMatchObject({
      resource_type: 'flag',
      project_id: 'default',
      actor: admin.slice(0, 12),
      before: null,
      after: { value: 'a', version: 1 },
    })
    expect(upd).toMatchObject({ before: { value: 'a', version: 1 }, after: { value: 'b', version: 2 } })
    expect(del).toMatchObject({ before: { value: 'b' }, after: null })
    expect(Date.parse(del.timestamp)).toBeGreaterThanOrEqual(Date.parse(crt.timestamp))

    const byAction = await api(srv, 'GET', '/api/v1/audit?resource_key=audited&action=update', { token: admin })
    expect(byAction.body.total).toBe(1)
    const byActor = await api(srv, 'GET', `/api/v1/audit?actor=${admin.slice(0, 12)}&resource_key=audited`, { token: admin })
    expect(byActor.body.total).toBe(3)
    const future = await api(srv, 'GET', `/api/v1/audit?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, {
      token: admin,
    })
    expect(future.body.total).toBe(0)
    const until = await api(srv, 'GET', `/api/v1/audit?until=${encodeURIComponent(crt.timestamp)}&resource_key=audited`, { token: admin })
    expect(until.body.total).toBe(0)
    const paged = await api(srv, 'GET', '/api/v1/audit?limit=1', { token: admin })
    expect(paged.body.entries.length).toBe(1)
    expect(paged.body.has_more).toBe(true)
    expect((await api(srv, 'GET', '/api/v1/audit?resource_type=planet', { token: admin })).status).toBe(400)
    expect((await api(srv, 'GET', '/api/v1/audit?since=yesterday', { token: admin })).status).toBe(400)
    for (const bad of ['2025-02-30T00:00:00Z', '2025-13-01T00:00:00Z']) {
      const res = await api(srv, 'GET', `/api/v1/audit?until=${bad}`, { token: admin })
      expect([bad, res.status, res.body.code]).toEqual([bad, 400, 'VALIDATION_ERROR'])
    }
  })

  test('entries and flag history name the token (name and prefix), also after the token is deleted', async () => {
    const created = await api(srv, 'POST', '/api/v1/tokens', {
      token: admin,
      body: { name: 'deploy-bot', project_id: 'default', permissions: ['write:flags', 'read:flags'] },
    })
    expect(created.status).toBe(201)
    const bot = created.body.token as string
    const prefix = bot.slice(0, 12)
    expect((await api(srv, 'POST', '/api/v1/flags', { token: bot, body: { key: 'named-actor', value: 1 } })).status).toBe(201)
    const entry = async () => (await api(srv, 'GET', '/api/v1/audit?resource_key=named-actor', { token: admin })).body.entries[0]
    expect(await entry()).toMatchObject({ actor: prefix, actor_name: 'deploy-bot' })
    const history = await api(srv, 'GET', '/api/v1/flags/named-actor/history', { token: admin })
    expect(history.body.versions[0]).toMatchObject({ actor: prefix, actor_name: 'deploy-bot' })
    expect((await api(srv, 'DELETE', `/api/v1/tokens/${created.body.meta.hash}`, { token: admin })).status).toBe(200)
    expect(await entry()).toMatchObject({ actor: prefix, actor_name: 'deploy-bot' })
  })
})
