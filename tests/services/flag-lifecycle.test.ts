// The flag lifecycle services in process, without HTTP, on both stores: archive, restore and rollback are
// changes like any other (one audit entry and one stream number each, a refused one leaves no trace), the
// history is read back from them, the prerequisite graph refuses cycles and IN_USE, and the snapshot keeps
// archived flags away from evaluation.
import { describe, expect, test } from 'bun:test'
import { Snapshots } from '../../server/cache/snapshots'
import { actor, DIALECTS, inProcessServices, refusal } from '../helpers/in-process'
import { requireServices } from '../helpers/requirements'

const pgReady = await requireServices({ postgres: true })

for (const dialect of DIALECTS) {
  describe.skipIf(dialect === 'postgres' && !pgReady)(`flag lifecycle services: ${dialect}`, () => {
    const fx = inProcessServices(dialect)

    test('archive, restore, rollback: each one change (audit, notice, stream number); the history reads them back', async () => {
      const audits = await fx.auditCount()
      await fx.services.flags.create(actor, { key: 'life', enabled: true, value: 'one', tags: ['a'] })
      await fx.services.flags.update(actor, 'life', { value: 'two' }, 1)
      const archived = await fx.services.flags.archive(actor, 'life', 2)
      expect(archived.body).toMatchObject({ archived: true })
      await fx.services.flags.restore(actor, 'life', undefined)
      await fx.services.flags.rollback(actor, 'life', 1, 4)
      expect(await fx.auditCount()).toBe(audits + 5)
      const mine = fx.notices.filter((n) => n.resourceKey === 'life').map((n) => [n.change?.action, n.change?.version])
      expect(mine).toEqual([
        ['create', 1],
        ['update', 2],
        ['archive', 3],
        ['restore', 4],
        ['rollback', 5],
      ])
      const { versions, total } = await fx.services.flags.history('default', 'life', 10, 0)
      expect(total).toBe(5)
      expect(versions.map((v) => [v.version, v.action, v.flag.value])).toEqual([
        [5, 'rollback', 'one'],
        [4, 'restore', 'two'],
        [3, 'archive', 'two'],
        [2, 'update', 'two'],
        [1, 'create', 'one'],
      ])
    })

    const ARCHIVED_FLAG =
      'an archived flag leaves the snapshot (no surface evaluates it) ' + 'and refuses changes but a restore; a refusal leaves no trace'
    test(ARCHIVED_FLAG, async () => {
      await fx.services.flags.create(actor, { key: 'shelved', enabled: true, value: 1 })
      const snapshots = new Snapshots(fx.store)
      await snapshots.reconcile()
      expect(snapshots.project('default')!.flags.has('shelved')).toBe(true)
      await fx.services.flags.archive(actor, 'shelved', undefined)
      await snapshots.reconcile()
      expect(snapshots.project('default')!.flags.has('shelved')).toBe(false)
      expect(snapshots.project('default')!.archivedFlags.has('shelved')).toBe(true)
      const before = { audits: await fx.auditCount(), notices: fx.notices.length }
      expect(await refusal(() => fx.services.flags.update(actor, 'shelved', { value: 2 }, undefined))).toEqual({
        status: 409,
        code: 'FLAG_ARCHIVED',
      })
      expect(await refusal(() => fx.services.flags.rollback(actor, 'shelved', 1, undefined))).toEqual({
        status: 409,
        code: 'FLAG_ARCHIVED',
      })
      expect(await refusal(() => fx.services.flags.restore(actor, 'life', undefined))).toEqual({ status: 409, code: 'NOT_ARCHIVED' })
      expect({ audits: await fx.auditCount(), notices: fx.notices.length }).toEqual(before)
      await fx.services.flags.restore(actor, 'shelved', undefined)
      await snapshots.reconcile()
      expect(snapshots.project('default')!.flags.get('shelved')!.compiled.evaluate({}).value).toBe(1)
    })

    test('prerequisites: a cycle through an update is refused; a required flag cannot be archived or deleted', async () => {
      await fx.services.flags.create(actor, { key: 'p1', enabled: true, value: true })
      await fx.services.flags.create(actor, { key: 'p2', enabled: true, value: true, prerequisites: [{ key: 'p1', value: true }] })
      expect(
        await refusal(() => fx.services.flags.update(actor, 'p1', { prerequisites: [{ key: 'p2', value: true }] }, undefined)),
      ).toEqual({ status: 400, code: 'VALIDATION_ERROR' })
      expect(await refusal(() => fx.services.flags.archive(actor, 'p1', undefined))).toEqual({ status: 409, code: 'IN_USE' })
      expect(await refusal(() => fx.services.flags.delete(actor, 'p1'))).toEqual({ status: 409, code: 'IN_USE' })
      await fx.services.flags.delete(actor, 'p2')
      await fx.services.flags.delete(actor, 'p1')
    })

    test('explain: a draft is validated like a write and nothing is stored', async () => {
      const audits = await fx.auditCount()
      expect(
        await refusal(() => fx.services.explain(actor, 'draft-only', { context: {}, flag: { variants: { a: 1 }, default_variant: 'b' } })),
      ).toEqual({ status: 400, code: 'VALIDATION_ERROR' })
      const ok = await fx.services.explain(actor, 'draft-only', {
        context: {},
        flag: { enabled: true, variants: { a: 1, b: 2 }, default_variant: 'b' },
      })
      expect(ok.result).toEqual({ value: 2, type: 'number', reason: 'default', variant: 'b' })
      expect(await fx.auditCount()).toBe(audits)
      expect(await fx.store.flags.get(fx.store.db, 'default', 'draft-only')).toBeUndefined()
    })
  })
}
