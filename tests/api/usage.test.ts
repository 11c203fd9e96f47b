// Usage through HTTP: evaluations on every surface are counted per environment and variant and reach the
// hourly buckets at each flush; SDK reports add to them; lists carry last_evaluated_at; ?stale=true says
// which flags are stale and why; bad reports change nothing; counts survive a restart (SIGTERM flushes).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, createToken, startServer, type TestServer } from '../helpers/server'

let srv: TestServer
let admin: string
const ctx = (c: object) => encodeURIComponent(JSON.stringify(c))
const usage = async (key: string, query = '') => (await api(srv, 'GET', `/api/v1/flags/${key}/usage${query}`, { token: admin })).body
/** waits for a flush (USAGE_FLUSH_MS is 200 here) to show `total` counts of `key` */
async function counted(key: string, total: number) {
  for (let i = 0; i < 50; i++) {
    const body = await usage(key)
    if (body.buckets?.reduce((n: number, b: any) => n + b.count, 0) >= total) return body.buckets
    await Bun.sleep(100)
  }
  throw new Error(`${key} never reached ${total} counts: ${JSON.stringify(await usage(key))}`)
}

beforeAll(async () => {
  srv = await startServer({ env: { USAGE_FLUSH_MS: '200', STALE_AFTER_DAYS: '0' } })
  admin = srv.adminToken
  await api(srv, 'POST', '/api/v1/flags', {
    token: admin,
    body: {
      key: 'counted',
      enabled: true,
      value: false,
      targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: true }] },
    },
  })
  await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'idle', enabled: true, value: true } })
})
afterAll(() => srv?.stop())

describe('usage', () => {
  test('every evaluation surface is counted, by environment and variant', async () => {
    await api(srv, 'GET', `/api/v1/flags/counted?context=${ctx({ plan: 'pro', environment: 'production' })}`, { token: admin })
    await api(srv, 'GET', `/api/v1/flags/counted?context=${ctx({ plan: 'free' })}`, { token: admin })
    await api(srv, 'POST', '/api/v1/evaluate', { token: admin, body: { context: { plan: 'pro' }, flags: ['counted'] } })
    await api(srv, 'POST', '/ofrep/v1/evaluate/flags/counted', {
      token: admin,
      body: { context: { plan: 'pro', environment: 'production' } },
    })
    await api(srv, 'POST', '/ofrep/v1/evaluate/flags', { token: admin, body: { context: { plan: 'free' } } })
    const buckets = await counted('counted', 5)
    const by = (env: string, variant: string) =>
      buckets.filter((b: any) => b.environment === env && b.variant === variant).reduce((n: number, b: any) => n + b.count, 0)
    expect([by('production', 'rule-1'), by('', 'rule-1'), by('', 'default')]).toEqual([2, 1, 2])
    expect(buckets[0].hour).toMatch(/^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z$/)
    const prodOnly = await usage('counted', '?environment=production')
    expect(prodOnly.buckets.every((b: any) => b.environment === 'production')).toBe(true)
  })

  test('SDK reports add to the buckets; unknown flags are ignored; lists carry last_evaluated_at', async () => {
    const to = new Date().toISOString()
    const from = new Date(Date.now() - 60_000).toISOString()
    const res = await api(srv, 'POST', '/api/v1/usage', {
      token: admin,
      body: {
        counts: [
          { key: 'idle', environment: 'staging', variant: 'default', count: 40, from, to },
          { key: 'gone', environment: '', variant: 'default', count: 3, from, to },
        ],
      },
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ success: true, accepted: 1, ignored: 1 })
    // (the OFREP bulk call above evaluated `idle` once too, with no environment)
    expect((await usage('idle')).buckets).toEqual(
      expect.arrayContaining([expect.objectContaining({ environment: 'staging', variant: 'default', count: 40 })]),
    )
    const list = (await api(srv, 'GET', '/api/v1/flags', { token: admin })).body.flags
    for (const item of list) expect(typeof item.last_evaluated_at).toBe('string')
  })

  test('GET /api/v1/usage?keys=: several flags at once, each as its own usage read gives it; bad lists are refused', async () => {
    const one = (await usage('idle')).buckets
    const many = await api(
      srv,
      'GET',
      '/api/v1/usage?keys=idle,counted,nobody&since=' + encodeURIComponent(new Date(Date.now() - 7 * 86_400_000).toISOString()),
      { token: admin },
    )
    expect(many.status).toBe(200)
    expect(Object.keys(many.body.flags).sort()).toEqual(['counted', 'idle', 'nobody'])
    expect(many.body.flags.idle).toEqual(one)
    expect(many.body.flags.counted).toEqual((await usage('counted')).buckets)
    expect(many.body.flags.nobody).toEqual([])
    const tooMany = Array.from({ length: 101 }, (_, i) => `k${i}`).join(',')
    for (const query of ['', '?keys=', `?keys=${tooMany}`, '?keys=idle&since=yesterday']) {
      expect((await api(srv, 'GET', `/api/v1/usage${query}`, { token: admin })).status).toBe(400)
    }
    const writer = await createToken(srv, ['write:flags'])
    expect((await api(srv, 'GET', '/api/v1/usage?keys=idle', { token: writer })).status).toBe(403)
  })

  test('?stale=true lists stale flags with the reason', async () => {
    await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'never', enabled: true, value: true } })
    await Bun.sleep(20)
    const res = await api(srv, 'GET', '/api/v1/flags?stale=true', { token: admin })
    expect(res.status).toBe(200)
    const reasons = Object.fromEntries(res.body.flags.map((f: any) => [f.key, f.stale_reason]))
    // STALE_AFTER_DAYS=0: everything evaluated earlier than now is "not recent", a flag never evaluated is stale
    expect(reasons.never).toBe('never evaluated')
    expect(reasons.idle).toBe('not evaluated recently')
    expect((await api(srv, 'GET', '/api/v1/flags?stale=maybe', { token: admin })).status).toBe(400)
    expect((await api(srv, 'GET', '/api/v1/flags?stale=false', { token: admin })).body.total).toBe(3)
  })

  test('the same request again and again (an answer the fast path remembers) is counted every time, across flushes', async () => {
    await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'repeated', enabled: true, value: true } })
    const path = `/api/v1/flags/repeated?context=${ctx({ user_id: 'u-1', environment: 'production' })}`
    for (let i = 0; i < 5; i++) expect((await api(srv, 'GET', path, { token: admin })).status).toBe(200)
    await counted('repeated', 5)
    for (let i = 0; i < 3; i++) expect((await api(srv, 'GET', path, { token: admin })).status).toBe(200)
    const buckets = await counted('repeated', 8)
    expect(buckets.reduce((n: number, b: any) => n + b.count, 0)).toBe(8)
    expect(buckets.every((b: any) => b.environment === 'production' && b.variant === 'default')).toBe(true)
  })

  test('bad reports are refused whole and change nothing; a write-only token may not report', async () => {
    const before = await usage('idle')
    const now = new Date().toISOString()
    const good = { key: 'idle', environment: '', variant: 'default', count: 1, from: now, to: now }
    for (const counts of [
      [{ ...good, count: -1 }],
      [{ ...good, count: 1.5 }],
      [{ ...good, from: 'yesterday' }],
      [{ ...good, to: new Date(Date.now() + 86_400_000).toISOString() }],
      [{ ...good, key: 'bad key' }],
      [{ ...good, variant: '' }],
      [good, { ...good, environment: 'x'.repeat(65) }],
      Array.from({ length: 1001 }, () => good),
    ]) {
      const res = await api(srv, 'POST', '/api/v1/usage', { token: admin, body: { counts } })
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' })
    }
    expect((await api(srv, 'POST', '/api/v1/usage', { token: admin, body: { counts: 'x' } })).status).toBe(400)
    expect(
      (await api(srv, 'POST', '/api/v1/usage', { token: await createToken(srv, ['write:flags']), body: { counts: [good] } })).status,
    ).toBe(403)
    expect((await api(srv, 'GET', '/api/v1/flags/idle/usage?since=soon', { token: admin })).status).toBe(400)
    expect((await api(srv, 'GET', '/api/v1/flags/nope/usage', { token: admin })).status).toBe(404)
    // A `since` in the future is an empty series (nothing counted there yet); after an explicit `until` it is a contradiction.
    const tomorrow = encodeURIComponent(new Date(Date.now() + 86_400_000).toISOString())
    const future = await api(srv, 'GET', `/api/v1/flags/idle/usage?since=${tomorrow}`, { token: admin })
    expect({ status: future.status, body: future.body }).toEqual({ status: 200, body: { key: 'idle', buckets: [], has_more: false } })
    const futureMany = await api(srv, 'GET', `/api/v1/usage?keys=idle&since=${tomorrow}`, { token: admin })
    expect({ status: futureMany.status, body: futureMany.body }).toEqual({ status: 200, body: { flags: { idle: [] }, has_more: false } })
    const contradiction = await api(
      srv,
      'GET',
      `/api/v1/flags/idle/usage?since=${tomorrow}&until=${encodeURIComponent(new Date().toISOString())}`,
      { token: admin },
    )
    expect({ status: contradiction.status, path: contradiction.body.details?.issues?.[0]?.path }).toEqual({ status: 400, path: 'since' })
    expect((await api(srv, 'GET', `/api/v1/flags/nope/usage?since=${tomorrow}`, { token: admin })).status).toBe(404)
    expect(await usage('idle')).toEqual(before)
  })

  test('counts flushed at a stop are kept across a restart', async () => {
    const local = await startServer({ env: { USAGE_FLUSH_MS: '60000' } })
    try {
      await api(local, 'POST', '/api/v1/flags', { token: local.adminToken, body: { key: 'kept', enabled: true, value: true } })
      for (let i = 0; i < 3; i++) await api(local, 'GET', '/api/v1/flags/kept', { token: local.adminToken })
      await local.process.kill('SIGTERM')
      await local.process.exited
      const again = await startServer({ databaseUrl: local.databaseUrl, dbPath: local.dbPath, adminToken: local.adminToken })
      try {
        const body = (await api(again, 'GET', '/api/v1/flags/kept/usage', { token: again.adminToken })).body
        expect(body.buckets.reduce((n: number, b: any) => n + b.count, 0)).toBe(3)
      } finally {
        await again.stop()
      }
    } finally {
      await local.stop()
    }
  }, 60_000)
})
