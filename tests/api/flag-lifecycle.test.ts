// Metadata and list filters, archive and restore, history and rollback, explain (docs/lifecycle.md §3-4),
// and the events every new action sends (audit, webhooks, stream).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, startServer, type TestServer } from '../helpers/server'
import { openSse } from '../helpers/sse'

let srv: TestServer
let admin: string
beforeAll(async () => {
  srv = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' } })
  admin = srv.adminToken
})
afterAll(() => srv.stop())

const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  api(srv, method, path, { token: admin, body, headers })
const create = (body: unknown) => call('POST', '/api/v1/flags', body)
const keysOf = (res: { body: any }) => res.body.flags.map((f: any) => f.key).sort()

describe('metadata and list filters', () => {
  test('description, tags and owner are stored, validated and cleared with null', async () => {
    const res = await create({ key: 'meta', description: 'New checkout flow', tags: ['checkout', 'team-a'], owner: 'ana@example.com' })
    expect(res.status).toBe(201)
    expect(res.body.flag).toMatchObject({ description: 'New checkout flow', tags: ['checkout', 'team-a'], owner: 'ana@example.com' })
    for (const bad of [
      { description: 'x'.repeat(2001) },
      { tags: ['Has Space'] },
      { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) },
      { tags: ['a', 'a'] },
      { owner: 'o'.repeat(201) },
    ]) {
      const r = await call('PUT', '/api/v1/flags/meta', bad)
      expect(r.status).toBe(400)
      expect(r.body.code).toBe('VALIDATION_ERROR')
    }
    const cleared = await call('PUT', '/api/v1/flags/meta', { owner: null })
    expect(cleared.body.flag.owner).toBeUndefined()
    expect(cleared.body.flag.version).toBe(2)
  })

  test('tag (repeatable, all must match), q (key or description) and archived filter the list', async () => {
    await create({ key: 'meta-2', tags: ['checkout'], description: 'Old banner' })
    await create({ key: 'other', tags: ['team-a'] })
    expect(keysOf(await call('GET', '/api/v1/flags?tag=checkout'))).toEqual(['meta', 'meta-2'])
    expect(keysOf(await call('GET', '/api/v1/flags?tag=checkout&tag=team-a'))).toEqual(['meta'])
    expect(keysOf(await call('GET', '/api/v1/flags?q=BANNER'))).toEqual(['meta-2'])
    expect(keysOf(await call('GET', '/api/v1/flags?q=other'))).toEqual(['other'])
    expect((await call('GET', '/api/v1/flags?archived=maybe')).status).toBe(400)
    const page = await call('GET', '/api/v1/flags?tag=checkout&limit=1')
    expect(page.body).toMatchObject({ total: 2, has_more: true })
    // Tags with the archived state (paged in the store) and with text (matched over every flag).
    await create({ key: 'shelf', tags: ['checkout'], description: 'banner on the shelf' })
    expect((await call('POST', '/api/v1/flags/shelf/archive')).status).toBe(200)
    expect(keysOf(await call('GET', '/api/v1/flags?tag=checkout'))).toEqual(['meta', 'meta-2'])
    expect(keysOf(await call('GET', '/api/v1/flags?tag=checkout&archived=true'))).toEqual(['shelf'])
    expect(keysOf(await call('GET', '/api/v1/flags?tag=checkout&archived=all'))).toEqual(['meta', 'meta-2', 'shelf'])
    const last = await call('GET', '/api/v1/flags?tag=checkout&archived=all&limit=2&offset=2')
    expect([keysOf(last), last.body.total, last.body.has_more]).toEqual([['shelf'], 3, false])
    expect(keysOf(await call('GET', '/api/v1/flags?tag=checkout&q=banner&archived=all'))).toEqual(['meta-2', 'shelf'])
    expect(keysOf(await call('GET', '/api/v1/flags?tag=CHECKOUT'))).toEqual([])
    expect((await call('POST', '/api/v1/flags/shelf/restore')).status).toBe(200)
    expect((await call('DELETE', '/api/v1/flags/shelf')).status).toBe(200)
  })
})

describe('archive and restore', () => {
  test('an archived flag is not evaluated anywhere, cannot be edited, keeps its key; restore brings it back', async () => {
    await create({ key: 'old', enabled: true, value: 'v' })
    const stream = await openSse(`${srv.url}/api/v1/stream`, { authorization: `Bearer ${admin}` })
    await stream.next((e) => e.event === 'ready')
    const archived = await call('POST', '/api/v1/flags/old/archive')
    expect(archived.status).toBe(200)
    expect(archived.body.flag).toMatchObject({ archived: true, version: 2 })
    const change = await stream.next((e) => e.event === 'change' && e.data.key === 'old')
    expect(change.data).toMatchObject({ action: 'archive', resource_type: 'flag', version: 2 })
    stream.close()

    expect((await call('GET', '/api/v1/flags/old')).body.code).toBe('FLAG_NOT_FOUND')
    expect((await call('POST', '/ofrep/v1/evaluate/flags/old', { context: {} })).status).toBe(404)
    expect((await call('POST', '/api/v1/evaluate', { context: {} })).body.flags.old).toBeUndefined()
    expect((await call('POST', '/ofrep/v1/evaluate/flags', { context: {} })).body.flags.some((f: any) => f.key === 'old')).toBe(false)
    expect((await call('GET', '/api/v1/definitions')).body.flags.some((f: any) => f.key === 'old')).toBe(false)
    expect(keysOf(await call('GET', '/api/v1/flags'))).not.toContain('old')
    expect(keysOf(await call('GET', '/api/v1/flags?archived=true'))).toEqual(['old'])
    expect(keysOf(await call('GET', '/api/v1/flags?archived=all'))).toContain('old')

    const edit = await call('PUT', '/api/v1/flags/old', { value: 'w' })
    expect(edit.status).toBe(409)
    expect(edit.body.code).toBe('FLAG_ARCHIVED')
    expect((await call('PUT', '/api/v1/flags/old/environments/production', { enabled: true })).status).toBe(409)
    expect((await call('POST', '/api/v1/flags/old/archive')).status).toBe(409)
    expect((await create({ key: 'old' })).status).toBe(409)

    const restored = await call('POST', '/api/v1/flags/old/restore', undefined, { 'if-match': '"2"' })
    expect(restored.status).toBe(200)
    expect(restored.body.flag.archived).toBeUndefined()
    expect((await call('GET', '/api/v1/flags/old')).body).toEqual({ value: 'v', type: 'string', reason: 'default' })
    expect((await call('POST', '/api/v1/flags/old/restore')).body.code).toBe('NOT_ARCHIVED')
  })

  test('audit entries and webhook events for archive, restore and rollback', async () => {
    const hook = await call('POST', '/api/v1/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['flag.archived', 'flag.restored', 'flag.rolled_back'],
    })
    expect(hook.status).toBe(201)
    await create({ key: 'evented', value: 1 })
    await call('PUT', '/api/v1/flags/evented', { value: 2 })
    await call('POST', '/api/v1/flags/evented/archive')
    await call('POST', '/api/v1/flags/evented/restore')
    await call('POST', '/api/v1/flags/evented/rollback', { version: 1 })
    const audit = await call('GET', '/api/v1/audit?resource_type=flag&resource_key=evented')
    expect(audit.body.entries.map((e: any) => e.action)).toEqual(['rollback', 'restore', 'archive', 'update', 'create'])
    const deliveries = await call('GET', `/api/v1/webhooks/${hook.body.id}/deliveries`)
    expect(deliveries.body.deliveries.map((d: any) => d.event).sort()).toEqual(['flag.archived', 'flag.restored', 'flag.rolled_back'])
    await call('DELETE', `/api/v1/webhooks/${hook.body.id}`)
  })
})

describe('history and rollback', () => {
  test('versions newest first with actor and action; rollback writes a new version equal to the old one', async () => {
    await create({ key: 'hist', enabled: true, value: 'one', description: 'first' })
    await call('PUT', '/api/v1/flags/hist', { value: 'two' })
    await call('PUT', '/api/v1/flags/hist', { value: 'three', description: null })
    const history = await call('GET', '/api/v1/flags/hist/history')
    expect(history.status).toBe(200)
    expect(history.body.versions.map((v: any) => [v.version, v.action, v.flag.value])).toEqual([
      [3, 'update', 'three'],
      [2, 'update', 'two'],
      [1, 'create', 'one'],
    ])
    expect(history.body.versions[0].actor).toMatch(/\S/)
    expect((await call('GET', '/api/v1/flags/hist/history?limit=1&offset=1')).body).toMatchObject({
      total: 3,
      has_more: true,
      versions: [{ version: 2 }],
    })

    const stale = await call('POST', '/api/v1/flags/hist/rollback', { version: 1 }, { 'if-match': '"2"' })
    expect(stale.status).toBe(409)
    expect((await call('POST', '/api/v1/flags/hist/rollback', { version: 9 })).status).toBe(404)
    expect((await call('POST', '/api/v1/flags/hist/rollback', { version: 'one' })).status).toBe(400)
    const back = await call('POST', '/api/v1/flags/hist/rollback', { version: 1 }, { 'if-match': '"3"' })
    expect(back.status).toBe(200)
    expect(back.body.flag).toMatchObject({ version: 4, value: 'one', description: 'first' })
    expect((await call('GET', '/api/v1/flags/hist/history')).body.versions[0]).toMatchObject({ version: 4, action: 'rollback' })
    expect((await call('GET', '/api/v1/flags/hist')).body.value).toBe('one')
  })

  test('a flag deleted and created again starts a new history; unknown flags are 404', async () => {
    await call('DELETE', '/api/v1/flags/hist')
    await create({ key: 'hist', value: 'again' })
    expect((await call('GET', '/api/v1/flags/hist/history')).body.versions.map((v: any) => v.version)).toEqual([1])
    expect((await call('GET', '/api/v1/flags/none/history')).status).toBe(404)
  })
})

describe('turn off everywhere', () => {
  test('one change: the main switch and every environment override off, every environment serves off; undo is a rollback', async () => {
    const created = await create({
      key: 'kill',
      enabled: false,
      value: true,
      environments: { production: { enabled: true }, staging: { enabled: true, value: true } },
    })
    expect(created.status).toBe(201)
    const served = async (environment: string) =>
      (await call('GET', `/api/v1/flags/kill?context=${encodeURIComponent(JSON.stringify({ environment }))}`)).body
    // The trap the main switch alone leaves: production has its own "on".
    expect(await served('production')).toMatchObject({ value: true, reason: 'environment_override' })
    expect((await call('POST', '/api/v1/flags/kill/turn-off', undefined, { 'if-match': '"9"' })).status).toBe(409)
    const off = await call('POST', '/api/v1/flags/kill/turn-off', undefined, { 'if-match': '"1"' })
    expect(off.status).toBe(200)
    expect(off.body.flag).toMatchObject({
      version: 2,
      enabled: false,
      environments: { production: { enabled: false }, staging: { enabled: false, value: true } },
    })
    for (const environment of ['production', 'staging', 'development', ''])
      expect(await served(environment)).toMatchObject({ value: false, reason: 'disabled' })
    const audit = (await call('GET', '/api/v1/audit?resource_type=flag&resource_key=kill')).body
    expect(audit.total).toBe(2)
    expect(audit.entries[0]).toMatchObject({ action: 'update', before: { version: 1 }, after: { version: 2, enabled: false } })
    // Undo: back to version 1, as one more change.
    const undo = await call('POST', '/api/v1/flags/kill/rollback', { version: 1 }, { 'if-match': '"2"' })
    expect(undo.body.flag).toMatchObject({
      version: 3,
      enabled: false,
      environments: { production: { enabled: true }, staging: { enabled: true } },
    })
    expect(await served('production')).toMatchObject({ value: true, reason: 'environment_override' })
    expect((await call('POST', '/api/v1/flags/nope/turn-off')).status).toBe(404)
  })
})

describe('explain', () => {
  test('a step-by-step trace that stops where the decision was made', async () => {
    await create({
      key: 'why',
      enabled: true,
      value: 'base',
      targeting: {
        overrides: { 'u-1': 'special' },
        rules: [
          {
            conditions: [
              { property: 'plan', operator: 'equals', value: 'enterprise' },
              { property: 'country', operator: 'in', value: ['nl', 'de'] },
            ],
            value: 'eu-enterprise',
          },
          { conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: 'pro' },
        ],
        rollout: { percentage: 50, attribute: 'user_id' },
      },
    })
    const rule = await call('POST', '/api/v1/flags/why/explain', { context: { user_id: 'u-2', plan: 'pro', custom: { country: 'fr' } } })
    expect(rule.status).toBe(200)
    expect(rule.body.result).toEqual({ value: 'pro', type: 'string', reason: 'targeting' })
    expect(rule.body.trace.map((s: any) => s.step)).toEqual(['environment_override', 'enabled', 'individual_override', 'rule', 'rule'])
    expect(rule.body.trace[3]).toMatchObject({
      rule: 1,
      matched: false,
      decided: false,
      conditions: [
        { property: 'plan', seen: 'pro', operator: 'equals', expected: 'enterprise', result: false },
        { property: 'country', seen: 'fr', operator: 'in', expected: ['nl', 'de'], result: false },
      ],
    })
    expect(rule.body.trace[4]).toMatchObject({ rule: 2, matched: true, decided: true, value: 'pro' })

    const rollout = await call('POST', '/api/v1/flags/why/explain', { context: { user_id: 'u-2', plan: 'free' } })
    const last = rollout.body.trace.at(-1)
    expect(last).toMatchObject({ step: 'rollout', attribute: 'user_id', seen: 'u-2', percentage: 50, decided: true })
    expect(last.bucket).toBeGreaterThanOrEqual(0)
    expect(rollout.body.result.reason).toBe('rollout')
    expect(last.inside).toBe(rollout.body.result.value === 'base')
  })

  test('a draft is evaluated as sent, validated, and never stored', async () => {
    const draft = await call('POST', '/api/v1/flags/why/explain', { context: { user_id: 'u-1' }, flag: { enabled: false, value: 'draft' } })
    expect(draft.body).toMatchObject({ draft: true, result: { value: null, reason: 'disabled' } })
    expect(draft.body.trace.at(-1)).toMatchObject({ step: 'enabled', enabled: false, decided: true })
    const bad = await call('POST', '/api/v1/flags/why/explain', {
      flag: { enabled: true, targeting: { rollout: { percentage: 300, attribute: 'user_id' } } },
    })
    expect(bad.status).toBe(400)
    // A draft of a flag that does not exist yet explains too.
    const fresh = await call('POST', '/api/v1/flags/not-yet/explain', { flag: { enabled: true, value: 3 } })
    expect(fresh.body.result).toEqual({ value: 3, type: 'number', reason: 'default' })
    expect((await call('GET', '/api/v1/flags/why')).status).toBe(200)
    expect((await call('GET', '/api/v1/flags/not-yet')).status).toBe(404)
    expect((await call('POST', '/api/v1/flags/missing/explain', {})).status).toBe(404)
  })

  test('`at`: the active window then, and the schedules due by then', async () => {
    await create({ key: 'later', enabled: true, value: 'on', active_from: '2031-01-01T00:00:00Z' })
    expect((await call('POST', '/api/v1/flags/later/explain', {})).body.result.reason).toBe('disabled')
    const then = await call('POST', '/api/v1/flags/later/explain', { at: '2031-06-01T00:00:00Z' })
    expect(then.body.result).toEqual({ value: 'on', type: 'string', reason: 'default' })
    expect(then.body.at).toBe('2031-06-01T00:00:00.000Z')
    const scheduled = await call('POST', '/api/v1/flags/later/schedules', {
      at: new Date(Date.now() + 7 * 24 * 3600_000).toISOString(),
      change: { value: 'scheduled' },
    })
    expect(scheduled.status).toBe(201)
    expect((await call('POST', '/api/v1/flags/later/explain', { at: '2031-06-01T00:00:00Z' })).body.result.value).toBe('scheduled')
    expect((await call('POST', '/api/v1/flags/later/explain', { at: 'soon' })).status).toBe(400)
  })
})
