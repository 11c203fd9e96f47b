// Scheduled changes through HTTP, on the store under test (TEST_STORE=postgres for PostgreSQL): applied once
// within 2 s of their time as a normal change (audit actor `schedule:<id>`, webhook event, stream entry),
// environment overrides, cancelling, a change that became invalid failing visibly with nothing applied,
// surviving a restart, and bad input refused with nothing stored. The waiting tests run concurrently.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Server } from 'bun'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { openSse, type SseStream } from '../helpers/sse'
import { until } from '../helpers/until'

let srv: TestServer
let admin: string
let adminPrefix: string
let stream: SseStream
const hits: any[] = []
let receiver: Server<unknown>

beforeAll(async () => {
  srv = await startServer()
  admin = srv.adminToken
  adminPrefix = (await api(srv, 'GET', '/api/v1/me', { token: admin })).body.token_prefix
  receiver = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      hits.push(await req.json())
      return new Response('ok')
    },
  })
  const hook = await api(srv, 'POST', '/api/v1/webhooks', {
    token: admin,
    body: { url: `http://127.0.0.1:${receiver.port}/hook`, events: ['flag.updated', 'schedule.failed'] },
  })
  expect(hook.status).toBe(201)
  stream = await openSse(`${srv.url}/api/v1/stream`, { authorization: `Bearer ${admin}` })
})
afterAll(async () => {
  stream?.close()
  receiver?.stop(true)
  await srv?.stop()
})

const call = async (method: string, path: string, body?: unknown, token = admin) => api(srv, method, path, { token, body })
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString()

/** Waits until the schedule has left `pending`; returns it with the moment the test first saw that. */
async function finished(server: TestServer, id: string, ms = 6000) {
  return until(
    `schedule ${id} to finish`,
    async () => {
      const res = await api(server, 'GET', `/api/v1/schedules/${id}`, { token: server.adminToken })
      return res.body.status !== 'pending' && { ...res.body, seenAt: Date.now() }
    },
    ms,
  )
}

/** Waits until evaluating `path` answers `value` (caches reload after the schedule's commit); returns when. */
const served = (path: string, value: unknown) =>
  until(`${path} to serve ${value}`, async () => (await call('GET', path)).body.value === value && Date.now(), 3000)

async function createFlag(key: string, body: Record<string, unknown> = {}) {
  expect((await call('POST', '/api/v1/flags', { key, enabled: false, value: true, ...body })).status).toBe(201)
}
async function schedule(key: string, body: Record<string, unknown>) {
  const res = await call('POST', `/api/v1/flags/${key}/schedules`, body)
  expect({ status: res.status, body: res.body }).toMatchObject({
    status: 201,
    body: { success: true, schedule: { status: 'pending', flag_key: key } },
  })
  return res.body.schedule
}
const flagOf = async (key: string) => (await call('GET', `/api/v1/flags/${key}/definition`)).body.flag
const auditOf = async (query: string) => (await call('GET', `/api/v1/audit?${query}`)).body.entries as any[]

describe('scheduled changes', () => {
  test.concurrent('a flag update is applied once within 2 s of its time, as a normal change', async () => {
    await createFlag('launch')
    const at = inMs(1500)
    const s = await schedule('launch', { at, change: { enabled: true, value: true }, note: 'go live' })
    expect(s).toMatchObject({
      at,
      change: { enabled: true, value: true },
      note: 'go live',
      created_by: adminPrefix,
      finished_at: null,
      result_version: null,
      error: null,
    })
    expect((await flagOf('launch')).enabled).toBe(false)

    const done = await finished(srv, s.id)
    expect(done).toMatchObject({ status: 'applied', result_version: 2, error: null, created_by: adminPrefix })
    const lag = Date.parse(done.finished_at) - Date.parse(at)
    expect(lag).toBeGreaterThanOrEqual(0)
    expect(lag).toBeLessThan(2000)
    expect(done.seenAt - Date.parse(at)).toBeLessThan(2000)
    expect(await flagOf('launch')).toMatchObject({ enabled: true, version: 2 })
    // The schedule's row says `applied` at commit; this instance's cache shows the change a moment later.
    expect((await served('/api/v1/flags/launch', true)) - Date.parse(at)).toBeLessThan(2000)

    // One audit entry for the change, by the schedule; the schedule's own entry, by the token that made it.
    const updates = await auditOf('resource_type=flag&resource_key=launch&action=update')
    expect(updates.map((e) => [e.actor, e.before.enabled, e.after.enabled])).toEqual([[`schedule:${s.id}`, false, true]])
    expect((await auditOf(`resource_type=schedule&resource_key=${s.id}`)).map((e) => [e.action, e.actor])).toEqual([
      ['create', adminPrefix],
    ])
    // The webhook event and the stream entry of any update.
    const hit = await until('the flag.updated delivery', async () =>
      hits.find((h) => h.event === 'flag.updated' && h.resource === 'launch'),
    )
    expect(hit).toMatchObject({ environment: '', data: { enabled: true, value: true, version: 2 } })
    const change = await stream.next((e) => e.event === 'change' && e.data.key === 'launch' && e.data.action === 'update')
    expect(change.data).toMatchObject({ resource_type: 'flag', version: 2, environment: '' })
    await Bun.sleep(600)
    expect(await flagOf('launch')).toMatchObject({ version: 2 })
  })

  test.concurrent('an environment override is applied to that environment only', async () => {
    await createFlag('regional', { enabled: true })
    const s = await schedule('regional', { at: inMs(1200), change: { environment: 'production', override: { enabled: false } } })
    expect(s.change).toEqual({ environment: 'production', override: { enabled: false } })
    expect(await finished(srv, s.id)).toMatchObject({ status: 'applied', result_version: 2 })
    expect(await flagOf('regional')).toMatchObject({ enabled: true, environments: { production: { enabled: false } }, version: 2 })
    const ctx = (environment: string) => encodeURIComponent(JSON.stringify({ environment }))
    await served(`/api/v1/flags/regional?context=${ctx('production')}`, false)
    expect((await call('GET', `/api/v1/flags/regional?context=${ctx('staging')}`)).body.value).toBe(true)
    const hit = await until('the override delivery', async () => hits.find((h) => h.event === 'flag.updated' && h.resource === 'regional'))
    expect(hit.environment).toBe('production')
    const change = await stream.next((e) => e.event === 'change' && e.data.key === 'regional' && e.data.action === 'update')
    expect(change.data.environment).toBe('production')
  })

  test.concurrent('cancelled: never applied; cancelling again is a 409', async () => {
    await createFlag('held')
    const s = await schedule('held', { at: inMs(1000), change: { enabled: true } })
    const writer = await createToken(srv, ['write:flags'])
    const cancel = await call('DELETE', `/api/v1/schedules/${s.id}`, undefined, writer)
    expect(cancel.status).toBe(200)
    const writerPrefix = (await call('GET', '/api/v1/me', undefined, writer)).body.token_prefix
    expect(cancel.body).toMatchObject({ success: true, id: s.id, schedule: { status: 'cancelled', cancelled_by: writerPrefix } })
    const again = await call('DELETE', `/api/v1/schedules/${s.id}`)
    expect({ status: again.status, code: again.body.code, details: again.body.details }).toEqual({
      status: 409,
      code: 'NOT_PENDING',
      details: { status: 'cancelled' },
    })
    await Bun.sleep(2000)
    expect((await call('GET', `/api/v1/schedules/${s.id}`)).body.status).toBe('cancelled')
    expect(await flagOf('held')).toMatchObject({ enabled: false, version: 1 })
    const entries = await auditOf(`resource_type=schedule&resource_key=${s.id}`)
    expect(entries.map((e) => [e.action, e.before?.status ?? null, e.after.status])).toEqual([
      ['update', 'pending', 'cancelled'],
      ['create', null, 'pending'],
    ])
  })

  test.concurrent('a change that became invalid fails visibly: error recorded, nothing applied, schedule.failed sent', async () => {
    await createFlag('gated')
    expect(
      (await call('POST', '/api/v1/segments', { key: 'beta', conditions: [{ property: 'plan', operator: 'equals', value: 'beta' }] }))
        .status,
    ).toBe(201)
    const targeting = { rules: [{ conditions: [{ operator: 'in_segment', value: 'beta' }], value: true }] }
    const s = await schedule('gated', { at: inMs(1500), change: { enabled: true, targeting } })
    // The segment is not used by any flag yet, so it may be deleted; the scheduled change now refers to nothing.
    expect((await call('DELETE', '/api/v1/segments/beta')).status).toBe(200)

    const done = await finished(srv, s.id)
    expect(done).toMatchObject({ status: 'failed', result_version: null, error: { code: 'VALIDATION_ERROR' } })
    expect(done.error.message).toContain('unknown segment "beta"')
    expect(await flagOf('gated')).toMatchObject({ enabled: false, version: 1 })
    expect(await auditOf('resource_type=flag&resource_key=gated&action=update')).toEqual([])
    const failure = await auditOf(`resource_type=schedule&resource_key=${s.id}&action=update`)
    expect(failure.map((e) => [e.actor, e.before.status, e.after.status])).toEqual([[`schedule:${s.id}`, 'pending', 'failed']])
    const hit = await until('the schedule.failed delivery', async () =>
      hits.find((h) => h.event === 'schedule.failed' && h.resource === s.id),
    )
    expect(hit).toMatchObject({
      environment: '',
      data: { id: s.id, flag_key: 'gated', status: 'failed', error: { code: 'VALIDATION_ERROR' } },
    })
    expect(hits.some((h) => h.event === 'flag.updated' && h.resource === 'gated')).toBe(false)
    expect((await call('DELETE', `/api/v1/schedules/${s.id}`)).body.details).toEqual({ status: 'failed' })
  })

  test.concurrent('a schedule for a flag deleted meanwhile fails with FLAG_NOT_FOUND', async () => {
    await createFlag('doomed')
    const s = await schedule('doomed', { at: inMs(1200), change: { environment: 'staging', override: { enabled: true } } })
    expect((await call('DELETE', '/api/v1/flags/doomed')).status).toBe(200)
    expect(await finished(srv, s.id)).toMatchObject({
      status: 'failed',
      error: { code: 'FLAG_NOT_FOUND', message: 'Flag "doomed" not found' },
    })
    expect((await call('GET', '/api/v1/flags/doomed/definition')).status).toBe(404)
    const hit = await until('the schedule.failed delivery', async () =>
      hits.find((h) => h.event === 'schedule.failed' && h.resource === s.id),
    )
    expect(hit.environment).toBe('staging')
    // Its history stays readable in the project's list, though the flag's own list is gone with the flag.
    expect((await call('GET', '/api/v1/schedules?status=failed')).body.schedules.map((x: any) => x.id)).toContain(s.id)
    expect((await call('GET', '/api/v1/flags/doomed/schedules')).body.code).toBe('FLAG_NOT_FOUND')
  })
})

describe('lists', () => {
  test('upcoming first (soonest first), then the rest (latest first); per flag; by status', async () => {
    await createFlag('listed')
    await createFlag('other')
    const later = await schedule('listed', { at: inMs(3_600_000), change: { enabled: true } })
    const sooner = await schedule('listed', { at: inMs(1_800_000), change: { value: false } })
    const elsewhere = await schedule('other', { at: inMs(2_700_000), change: { enabled: true } })
    const gone = await schedule('listed', { at: inMs(900_000), change: { enabled: true } })
    expect((await call('DELETE', `/api/v1/schedules/${gone.id}`)).status).toBe(200)

    const mine = await call('GET', '/api/v1/flags/listed/schedules')
    expect(mine.body.schedules.map((x: any) => x.id)).toEqual([sooner.id, later.id, gone.id])
    expect([mine.body.total, mine.body.has_more]).toEqual([3, false])
    const pending = (await call('GET', '/api/v1/schedules?status=pending')).body.schedules.map((x: any) => x.id)
    expect(pending.indexOf(sooner.id)).toBeLessThan(pending.indexOf(elsewhere.id))
    expect(pending.indexOf(elsewhere.id)).toBeLessThan(pending.indexOf(later.id))
    const paged = await call('GET', '/api/v1/flags/listed/schedules?limit=1&offset=1')
    expect([paged.body.schedules.map((x: any) => x.id), paged.body.total, paged.body.has_more]).toEqual([[later.id], 3, true])
    expect((await call('GET', '/api/v1/flags/listed/schedules?status=cancelled')).body.schedules.map((x: any) => x.id)).toEqual([gone.id])
    for (const x of [later, sooner, elsewhere]) expect((await call('DELETE', `/api/v1/schedules/${x.id}`)).status).toBe(200)
  })
})

describe('bad input', () => {
  test('refused with a 4xx JSON error naming the problem; nothing stored', async () => {
    await createFlag('strict')
    const state = async () => [(await call('GET', '/api/v1/schedules')).body.total, (await call('GET', '/api/v1/audit?limit=1')).body.total]
    const before = await state()
    const ok = { at: inMs(60_000), change: { enabled: true } }
    const cases: [string, unknown, number, string, string][] = [
      ['strict', { ...ok, at: inMs(-1000) }, 400, 'at', 'must be in the future'],
      ['strict', { ...ok, at: new Date(Date.now() + 400 * 86_400_000).toISOString() }, 400, 'at', 'must be at most 365 days ahead'],
      ['strict', { ...ok, at: '2030-01-01' }, 400, 'at', 'must be an ISO 8601 date-time with an offset'],
      ['strict', { ...ok, at: '2030-01-01T10:00:00' }, 400, 'at', 'must be an ISO 8601 date-time with an offset'],
      ['strict', { ...ok, at: 'tomorrow' }, 400, 'at', 'must be an ISO 8601 date-time with an offset'],
      ['strict', { ...ok, at: 1 }, 400, 'at', 'string'],
      ['strict', { change: ok.change }, 400, 'at', ''],
      ['strict', { at: ok.at }, 400, 'change', ''],
      ['strict', { ...ok, change: {} }, 400, 'change', 'must change something'],
      ['strict', { ...ok, change: { version: 3 } }, 400, 'change', 'must change something'],
      ['strict', { ...ok, change: 'enable' }, 400, 'change', 'must be an object'],
      ['strict', { ...ok, change: { enabled: 'yes' } }, 400, 'change.enabled', 'boolean'],
      ['strict', { ...ok, change: { enable: true } }, 400, 'change.enable', 'should not be provided'],
      [
        'strict',
        { ...ok, change: { targeting: { rollout: { percentage: 150, attribute: 'user_id' } } } },
        400,
        'change.targeting.rollout.percentage',
        '100',
      ],
      [
        'strict',
        { ...ok, change: { targeting: { rules: [{ conditions: [{ operator: 'in_segment', value: 'nope' }], value: true }] } } },
        400,
        'change.targeting.rules[0].conditions[0].value',
        'unknown segment "nope"',
      ],
      [
        'strict',
        { ...ok, change: { environment: 'moon', override: { enabled: true } } },
        400,
        'change.environment',
        'unknown environment "moon"',
      ],
      ['strict', { ...ok, change: { environment: 'production', override: { enabled: 'no' } } }, 400, 'change.override.enabled', 'boolean'],
      [
        'strict',
        { ...ok, change: { environment: 'production', override: { enabled: true, extra: 1 } } },
        400,
        'change.override.extra',
        'should not be provided',
      ],
      ['strict', { ...ok, change: { environment: 'production' } }, 400, 'change.override', ''],
      ['strict', { ...ok, note: 'x'.repeat(501) }, 400, 'note', 'at most 500 characters'],
      ['strict', { ...ok, note: 'bell\u0007' }, 400, 'note', 'without control characters'],
      ['strict', { ...ok, extra: true }, 400, 'extra', 'should not be provided'],
      ['nope', ok, 404, '', 'Flag "nope" not found'],
    ]
    for (const [key, body, status, path, message] of cases) {
      const res = await call('POST', `/api/v1/flags/${key}/schedules`, body)
      const issue = res.body.details?.issues?.find((i: any) => i.path === path)
      expect({ body, status: res.status, code: res.body.code, found: status === 404 || issue !== undefined }).toEqual({
        body,
        status,
        code: status === 404 ? 'FLAG_NOT_FOUND' : 'VALIDATION_ERROR',
        found: true,
      })
      expect(status === 404 ? res.body.error : issue.message).toContain(message)
    }
    for (const [method, path, code] of [
      ['GET', '/api/v1/schedules/none', 'SCHEDULE_NOT_FOUND'],
      ['DELETE', '/api/v1/schedules/none', 'SCHEDULE_NOT_FOUND'],
      ['GET', '/api/v1/flags/nope/schedules', 'FLAG_NOT_FOUND'],
    ] as const) {
      const res = await call(method, path)
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 404, code })
    }
    for (const url of [
      '/api/v1/schedules?status=done',
      '/api/v1/flags/strict/schedules?status=',
      '/api/v1/schedules?limit=0',
      '/api/v1/schedules?when=1',
    ]) {
      expect({ url, status: (await call('GET', url)).status }).toEqual({ url, status: 400 })
    }
    expect(await state()).toEqual(before)
  })

  test('permissions: read:flags lists, write:flags schedules and cancels', async () => {
    await createFlag('guarded')
    const reader = await createToken(srv, ['read:flags'])
    const writer = await createToken(srv, ['write:flags'])
    const configs = await createToken(srv, ['read:configs', 'write:configs'])
    const body = { at: inMs(600_000), change: { enabled: true } }
    expect((await call('POST', '/api/v1/flags/guarded/schedules', body, reader)).body).toMatchObject({
      code: 'FORBIDDEN',
      details: { required: 'write:flags' },
    })
    // 403 comes before validation: an invalid body from a reader is still a 403.
    expect((await call('POST', '/api/v1/flags/guarded/schedules', { at: 'x', change: 'bad' }, reader)).status).toBe(403)
    const created = await call('POST', '/api/v1/flags/guarded/schedules', body, writer)
    expect(created.status).toBe(201)
    for (const path of ['/api/v1/schedules', '/api/v1/flags/guarded/schedules', `/api/v1/schedules/${created.body.schedule.id}`]) {
      expect((await call('GET', path, undefined, reader)).status).toBe(200)
      expect((await call('GET', path, undefined, configs)).body.details).toEqual({ required: 'read:flags' })
    }
    expect((await call('DELETE', `/api/v1/schedules/${created.body.schedule.id}`, undefined, reader)).status).toBe(403)
    expect((await call('DELETE', `/api/v1/schedules/${created.body.schedule.id}`, undefined, writer)).status).toBe(200)
  })
})

test('a schedule whose time passed while the service was down is applied once, shortly after it starts again', async () => {
  const first = await startServer()
  const second: TestServer[] = []
  try {
    const token = first.adminToken
    expect((await api(first, 'POST', '/api/v1/flags', { token, body: { key: 'overnight', enabled: false } })).status).toBe(201)
    const at = inMs(1200)
    const created = await api(first, 'POST', '/api/v1/flags/overnight/schedules', { token, body: { at, change: { enabled: true } } })
    expect(created.status).toBe(201)
    const id = created.body.schedule.id
    await first.kill()
    await Bun.sleep(Math.max(0, Date.parse(at) - Date.now() + 300))

    const startedAt = Date.now()
    second.push(await startServer({ databaseUrl: first.databaseUrl, dbPath: first.dbPath, adminToken: token }))
    const done = await finished(second[0]!, id)
    expect(done.status).toBe('applied')
    expect(Date.parse(done.finished_at)).toBeGreaterThanOrEqual(startedAt)
    expect(done.seenAt - startedAt).toBeLessThan(10_000)
    await Bun.sleep(700)
    const flag = await api(second[0]!, 'GET', '/api/v1/flags/overnight/definition', { token })
    expect(flag.body.flag).toMatchObject({ enabled: true, version: 2 })
    const audit = await api(second[0]!, 'GET', `/api/v1/audit?actor=schedule:${id}`, { token })
    expect(audit.body.total).toBe(1)
  } finally {
    for (const s of second) await s.stop()
    await first.stop()
  }
}, 60_000)
