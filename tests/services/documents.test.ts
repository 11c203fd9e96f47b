// The services in process, without HTTP, on both stores: each change is one transaction with exactly one
// audit entry, one webhook outbox row per subscribed webhook and one numbered stream entry, published after
// commit; a refused change leaves no trace; flags, configs and segments share the versioned-document rules.
import { describe, expect, test } from 'bun:test'
import { actor, DIALECTS, inProcessServices, refusal } from '../helpers/in-process'
import { requireServices } from '../helpers/requirements'

const pgReady = await requireServices({ postgres: true })

for (const dialect of DIALECTS) {
  describe.skipIf(dialect === 'postgres' && !pgReady)(`services in process: ${dialect}`, () => {
    const fx = inProcessServices(dialect)

    test('create, update, conflict, delete: one audit entry, one notice and one stream number per change', async () => {
      const audits = await fx.auditCount()
      const row = await fx.services.flags.create(actor, { key: 'svc', enabled: true, value: 1 })
      expect(row.version).toBe(1)
      const updated = await fx.services.flags.update(actor, 'svc', { value: 2 }, 1)
      expect(updated.version).toBe(2)
      expect(await refusal(() => fx.services.flags.update(actor, 'svc', { value: 3 }, 1))).toEqual({ status: 409, code: 'CONFLICT' })
      await fx.services.flags.delete(actor, 'svc')
      expect(await fx.auditCount()).toBe(audits + 3)
      const mine = fx.notices.filter((n) => n.resourceKey === 'svc')
      expect(mine.map((n) => [n.change?.action, n.change?.version])).toEqual([
        ['create', 1],
        ['update', 2],
        ['delete', 2],
      ])
      const seqs = mine.map((n) => n.change!.seq)
      expect(seqs).toEqual([seqs[0]!, seqs[0]! + 1, seqs[0]! + 2])
    })

    test('a refused change leaves no trace: no row, no audit entry, no notice, no stream number', async () => {
      const before = {
        audits: await fx.auditCount(),
        notices: fx.notices.length,
        head: (await fx.store.changes.heads(fx.store.db)).get('default'),
      }
      expect(await refusal(() => fx.services.flags.create(actor, { key: 'bad key!', value: 1 }))).toEqual({
        status: 400,
        code: 'VALIDATION_ERROR',
      })
      expect(await refusal(() => fx.services.configs.create(actor, { key: 'c', value: 1, environments: { moon: { value: 2 } } }))).toEqual({
        status: 400,
        code: 'VALIDATION_ERROR',
      })
      expect(await refusal(() => fx.services.segments.update(actor, 'nope', { conditions: [] }, undefined))).toEqual({
        status: 404,
        code: 'SEGMENT_NOT_FOUND',
      })
      expect(await refusal(() => fx.services.flags.deleteOverride(actor, 'nope', 'production', undefined))).toEqual({
        status: 404,
        code: 'FLAG_NOT_FOUND',
      })
      expect({
        audits: await fx.auditCount(),
        notices: fx.notices.length,
        head: (await fx.store.changes.heads(fx.store.db)).get('default'),
      }).toEqual(before)
      expect(await fx.store.configs.get(fx.store.db, 'default', 'c')).toBeUndefined()
    })

    test('the same versioned-document rules for flags, configs and segments', async () => {
      await fx.services.segments.create(actor, { key: 'seg', conditions: [] })
      await fx.services.configs.create(actor, { key: 'cfg', value: { a: 1 } })
      await fx.services.flags.create(actor, {
        key: 'flg',
        value: true,
        targeting: { rules: [{ conditions: [{ operator: 'in_segment', value: 'seg' }], value: false }] },
      })
      for (const [create, code] of [
        [() => fx.services.segments.create(actor, { key: 'seg', conditions: [] }), 'ALREADY_EXISTS'],
        [() => fx.services.configs.create(actor, { key: 'cfg', value: 1 }), 'ALREADY_EXISTS'],
        [() => fx.services.flags.create(actor, { key: 'flg' }), 'ALREADY_EXISTS'],
      ] as const)
        expect((await refusal(create)).code).toBe(code)
      expect(await refusal(() => fx.services.configs.update(actor, 'cfg', { value: 2 }, 7))).toEqual({ status: 409, code: 'CONFLICT' })
      expect(await refusal(() => fx.services.segments.update(actor, 'seg', { conditions: [] }, 7))).toEqual({
        status: 409,
        code: 'CONFLICT',
      })
      // A segment in use is kept unless forced.
      expect(await refusal(() => fx.services.segments.delete(actor, 'seg', false))).toEqual({ status: 409, code: 'IN_USE' })
      await fx.services.segments.delete(actor, 'seg', true)
      // Overrides: set at a version, removed at the next one; removing a missing one is 404.
      const put = await fx.services.configs.putOverride(actor, 'cfg', 'production', { a: 2 }, 1)
      expect(put.version).toBe(2)
      expect((await fx.services.configs.deleteOverride(actor, 'cfg', 'production', 2)).version).toBe(3)
      expect(await refusal(() => fx.services.configs.deleteOverride(actor, 'cfg', 'production', undefined))).toEqual({
        status: 404,
        code: 'NOT_FOUND',
      })
    })

    test('webhook outbox rows are written with the change, only for subscribed kinds', async () => {
      const hook = await fx.services.webhooks.create(actor, { url: 'https://hooks.example.com/x', events: ['config.updated'] })
      await fx.services.configs.create(actor, { key: 'hooked', value: 1 })
      await fx.services.configs.update(actor, 'hooked', { value: 2 }, undefined)
      const rows = await fx.store.deliveries.recent(fx.store.db, (hook as { id: string }).id, 10)
      expect(rows.map((r) => r.event)).toEqual(['config.updated'])
      expect(JSON.parse(rows[0]!.payload)).toMatchObject({ event: 'config.updated', resource: 'hooked', data: { value: 2, version: 2 } })
    })
  })
}
