// Usage writes on both stores (docs/behaviour.md §8, "Cost and usage"): counts are summed per bucket before
// an upsert (PostgreSQL refuses one that touches a row twice), a bucket's sum stops at 2^53 - 1 instead of
// overflowing, and a row the store refuses is dropped on its own, never blocking the counts of later flushes.
import { describe, expect, test } from 'bun:test'
import { compileFlag } from '../../server/engine'
import { countIn, usageCell } from '../../server/usage/counter'
import { startUsageFlusher } from '../../server/usage/flusher'
import { MAX_BUCKET_COUNT, type UsageRow } from '../../server/store/usage'
import { DIALECTS, inProcessServices } from '../helpers/in-process'

const HOUR = '2026-01-01T10:00:00.000Z'
const row = (count: number, lastAt = '2026-01-01T10:05:00.000Z'): UsageRow => ({
  projectId: 'default',
  flagKey: 'k',
  environment: '',
  variant: 'default',
  hour: HOUR,
  count,
  lastAt,
})

for (const dialect of DIALECTS) {
  describe(`usage writes: ${dialect}`, () => {
    const fx = inProcessServices(dialect)
    const bucket = async (key = 'k') =>
      await fx.store.usage.buckets(fx.store.db, 'default', key, '2000-01-01T00:00:00.000Z', '3000-01-01T00:00:00.000Z', undefined, 100)

    test('rows of one bucket in one write are summed (no "cannot affect row a second time")', async () => {
      await fx.store.transaction((tx) => fx.store.usage.add(tx, [row(3), row(4, '2026-01-01T10:09:00.000Z'), row(5)]))
      const [b] = await bucket()
      expect({ count: b!.count, lastAt: b!.lastAt }).toEqual({ count: 12, lastAt: '2026-01-01T10:09:00.000Z' })
    })

    test('a bucket counts past 32 bits and stops at 2^53 - 1', async () => {
      await fx.store.transaction((tx) => fx.store.usage.add(tx, [row(2 ** 40)]))
      expect((await bucket())[0]!.count).toBe(2 ** 40 + 12)
      await fx.store.transaction((tx) => fx.store.usage.add(tx, [row(MAX_BUCKET_COUNT)]))
      await fx.store.transaction((tx) => fx.store.usage.add(tx, [row(MAX_BUCKET_COUNT)]))
      expect((await bucket())[0]!.count).toBe(MAX_BUCKET_COUNT)
    })

    test('a flag counted before and after a change, and a row the store refuses: the rest is written, later flushes go on', async () => {
      const logged: string[] = []
      const flusher = startUsageFlusher({ store: fx.store, intervalMs: 3_600_000, log: (msg) => void logged.push(msg) })
      const before = compileFlag({ key: 'changed', enabled: true, value: true }, new Map())
      const after = compileFlag({ key: 'changed', enabled: true, value: true, description: 'v2' } as never, new Map())
      for (let i = 0; i < 3; i++) countIn(usageCell('default', before, before.evaluate({}), undefined))
      for (let i = 0; i < 2; i++) countIn(usageCell('default', after, after.evaluate({}), undefined))
      // A row no store takes (project_id is NOT NULL).
      const broken = compileFlag({ key: 'broken', enabled: true, value: true }, new Map())
      countIn(usageCell(null as never, broken, broken.evaluate({}), undefined))
      await flusher.flush()
      expect((await bucket('changed')).map((b) => [b.environment, b.count])).toEqual([['', 5]])
      expect(logged).toContain('evaluation counts the store refused were dropped')
      expect(await bucket('broken')).toEqual([])
      countIn(usageCell('default', after, after.evaluate({}), undefined))
      await flusher.stop()
      expect((await bucket('changed')).map((b) => [b.environment, b.count])).toEqual([['', 6]])
    })
  })
}
