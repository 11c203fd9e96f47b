// The change stream behind two instances on one PostgreSQL database: changes made on either instance reach
// the subscribers of both, numbered in commit order with no gaps, and an instance tells its subscribers only
// once its own cache shows the change (so re-reading on an event gives the new answer).
import { describe, expect, test } from 'bun:test'
import { api } from '../helpers/server'
import { clusterFixture, FANOUT_VARIANTS, fanoutEnv } from '../helpers/cluster'
import { requireServices } from '../helpers/requirements'
import { openSse } from '../helpers/sse'

const ready = await requireServices({ postgres: true, redis: true })

for (const variant of FANOUT_VARIANTS) {
  describe.skipIf(!ready)(`change stream on two instances, ${variant}`, () => {
    const c = clusterFixture(fanoutEnv(variant))

    test('concurrent writes on both instances reach subscribers of both, in one gapless commit order', async () => {
      const { a, b, admin } = c
      const auth = { authorization: `Bearer ${admin}` }
      const [sa, sb] = await Promise.all([openSse(`${a.url}/api/v1/stream`, auth), openSse(`${b.url}/api/v1/stream`, auth)])
      const head = (await sa.next()).data.version as number
      expect((await sb.next()).data.version).toBe(head)
      const n = 30
      const writes = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          api(i % 2 ? a : b, 'POST', '/api/v1/flags', { token: admin, body: { key: `c${i}`, enabled: true, value: i } }),
        ),
      )
      expect(writes.every((w) => w.status === 201)).toBe(true)
      for (const s of [sa, sb]) {
        const got = []
        for (let i = 0; i < n; i++) got.push(await s.next((e) => e.event === 'change', 5000))
        expect(got.map((e) => Number(e.id))).toEqual(Array.from({ length: n }, (_, i) => head + 1 + i))
        expect(new Set(got.map((e) => e.data.key)).size).toBe(n)
      }
      expect(sa.events.filter((e) => e.event === 'change').map((e) => e.data.key)).toEqual(
        sb.events.filter((e) => e.event === 'change').map((e) => e.data.key),
      )
      sa.close()
      sb.close()
    }, 30_000)

    test('on the event, the other instance already evaluates the new value', async () => {
      const { a, b, admin } = c
      await api(a, 'POST', '/api/v1/flags', { token: admin, body: { key: 'fresh', enabled: true, value: 'old' } })
      const s = await openSse(`${b.url}/api/v1/stream`, { authorization: `Bearer ${admin}` })
      await s.next()
      for (let i = 0; i < 5; i++) {
        expect((await api(a, 'PUT', '/api/v1/flags/fresh', { token: admin, body: { value: `v${i}` } })).status).toBe(200)
        await s.next((e) => e.event === 'change' && e.data.key === 'fresh' && e.data.version === i + 2)
        expect((await api(b, 'GET', '/api/v1/flags/fresh', { token: admin })).body.value).toBe(`v${i}`)
      }
      s.close()
    })

    test('a token revoked on one instance closes its stream on the other within 5 s', async () => {
      const { a, b, admin } = c
      const made = await api(a, 'POST', '/api/v1/tokens', {
        token: admin,
        body: { name: 'reader', project_id: 'default', permissions: ['read:flags'] },
      })
      const s = await openSse(`${b.url}/api/v1/stream`, { authorization: `Bearer ${made.body.token}` })
      await s.next()
      const started = Date.now()
      expect((await api(a, 'DELETE', `/api/v1/tokens/${made.body.meta.hash}`, { token: admin })).status).toBe(200)
      await Promise.race([s.ended, Bun.sleep(5000)])
      expect(s.isEnded()).toBe(true)
      expect(Date.now() - started).toBeLessThan(5000)
    })
  })
}
