// A large change set on two instances: an import of 1,500 flags applied on one instance (its notices go to
// the other in a few batch messages, within NOTIFY's 8000-byte limit) is served by the other, and every
// stream subscriber of both gets every change, numbered in commit order with no gap. 1,500 is more than the
// store keeps for replay (STREAM_REPLAY_LIMIT 1000), so the other instance's events cannot come from it.
import { describe, expect, test } from 'bun:test'
import { api, type TestServer } from '../helpers/server'
import { clusterFixture, FANOUT_VARIANTS, fanoutEnv } from '../helpers/cluster'
import { requireServices } from '../helpers/requirements'
import { openSse, type SseStream } from '../helpers/sse'

const ready = await requireServices({ postgres: true, redis: true })
const N = 1500

/** `n` flags; `round` changes every value, so a second import updates them all. */
const document = (n: number, round: number) => ({
  flagship: 1,
  flags: Array.from({ length: n }, (_, i) => ({
    key: `bulk-${String(i).padStart(5, '0')}`,
    enabled: true,
    value: `r${round}-${i}`,
    targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'in', value: ['pro'] }], value: `pro-${round}` }] },
  })),
})

/** The next `n` change events of `s`: their numbers and what they say. */
async function changes(s: SseStream, n: number): Promise<{ seq: number; what: string }[]> {
  const got = []
  for (let i = 0; i < n; i++) {
    const e = await s.next((e) => e.event === 'change' || e.event === 'reset', 20_000)
    if (e.event === 'reset') throw new Error(`the stream was reset after ${i} changes`)
    got.push({ seq: Number(e.id), what: `${e.data.action} ${e.data.resource_type}:${e.data.key}` })
  }
  return got
}

for (const variant of FANOUT_VARIANTS) {
  describe.skipIf(!ready)(`a large import on two instances, ${variant}`, () => {
    const c = clusterFixture(fanoutEnv(variant))

    const everything = async (srv: TestServer) =>
      (await api(srv, 'POST', '/api/v1/evaluate', { token: c.admin, body: { context: { user_id: 'u1', plan: 'pro' } } })).body.flags

    const LARGE_IMPORT =
      '1,500 creates, then 1,000 updates and 500 deletes: ' + 'the other instance serves them and every subscriber gets every change'
    test(LARGE_IMPORT, async () => {
      const { a, b, admin } = c
      const auth = { authorization: `Bearer ${admin}` }
      const streams = await Promise.all([a, b, b].map((srv) => openSse(`${srv.url}/api/v1/stream`, auth)))
      const heads = await Promise.all(streams.map(async (s) => (await s.next()).data.version as number))
      expect(new Set(heads).size).toBe(1)
      let head = heads[0]!

      for (const [round, doc, prune] of [
        [1, document(N, 1), false],
        [2, document(N - 500, 2), true],
      ] as const) {
        const applied = await api(a, 'POST', `/api/v1/import?mode=apply${prune ? '&prune=true' : ''}`, { token: admin, body: doc })
        expect(applied.status).toBe(200)
        expect(applied.body.summary).toEqual(
          round === 1 ? { create: N, update: 0, delete: 0, unchanged: 0 } : { create: 0, update: N - 500, delete: 500, unchanged: 0 },
        )
        const expected = applied.body.changes.map((c: any, i: number) => ({
          seq: head + 1 + i,
          what: `${c.action} ${c.resource_type}:${c.key}`,
        }))
        expect(expected.length).toBe(N)
        for (const s of streams) expect(await changes(s, N)).toEqual(expected)
        head += N
        // Each instance sent the events once its cache showed the changes: both now serve the same flags.
        const served = await everything(b)
        expect(Object.keys(served).length).toBe(doc.flags.length)
        expect(served).toEqual(await everything(a))
        expect(served['bulk-00007']).toBe(`pro-${round}`)
        expect((await api(b, 'GET', '/api/v1/flags/bulk-00007', { token: admin })).body.value).toBe(`r${round}-7`)
      }
      expect((await api(b, 'GET', `/api/v1/flags/bulk-${String(N - 1).padStart(5, '0')}`, { token: admin })).status).toBe(404)
      for (const s of streams) s.close()
    }, 120_000)
  })
}
