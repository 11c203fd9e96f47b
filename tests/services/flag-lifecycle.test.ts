// The flag lifecycle services in process, without HTTP, on both stores: archive, restore and rollback are
// changes like any other (one audit entry and one stream number each, a refused one leaves no trace), the
// history is read back from them, the prerequisite graph refuses cycles and IN_USE, and the snapshot keeps
// archived flags away from evaluation.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { openDatabase } from '../../server/store/database'
import { createStore, type Store } from '../../server/store'
import { bootstrap } from '../../server/services/bootstrap'
import { ChangeBus, type ChangeNotice } from '../../server/services/events'
import { Snapshots } from '../../server/cache/snapshots'
import { createServices, type Services } from '../../server/services'
import { AppError } from '../../server/services/errors'
import { loadSettings } from '../../server/settings'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'
import { requireServices } from '../helpers/requirements'
import { tempSqliteUrl } from '../helpers/temp'

const pgReady = await requireServices({ postgres: true })
const actor = { projectId: 'default', name: 'ff_defa_test' }

/** The AppError a call throws or rejects with (status and code); a failure if it succeeds. */
async function refusal(call: () => unknown): Promise<{ status: number; code: string }> {
  try {
    await call()
  } catch (e) {
    if (e instanceof AppError) return { status: e.status, code: e.code }
    throw e
  }
  throw new Error('expected a refusal')
}

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe.skipIf(dialect === 'postgres' && !pgReady)(`flag lifecycle services: ${dialect}`, () => {
    let store: Store
    let services: Services
    let pg: TestDatabase | undefined
    const notices: ChangeNotice[] = []
    const auditCount = async () => (await store.audit.page(store.db, 'default', {}, 1, 0)).total

    beforeAll(async () => {
      pg = dialect === 'postgres' ? await createTestDatabase() : undefined
      store = createStore(await openDatabase(pg?.url ?? tempSqliteUrl()))
      await bootstrap(store, undefined)
      const bus = new ChangeBus()
      const snapshots = new Snapshots(store)
      await snapshots.reconcile()
      bus.subscribe((n) => void notices.push(n))
      services = createServices(store, bus, snapshots, loadSettings({}))
    })
    afterAll(async () => {
      await store?.database.close()
      await pg?.drop()
    })

    test('archive, restore, rollback: each one change (audit, notice, stream number); the history reads them back', async () => {
      const audits = await auditCount()
      await services.flags.create(actor, { key: 'life', enabled: true, value: 'one', tags: ['a'] })
      await services.flags.update(actor, 'life', { value: 'two' }, 1)
      const archived = await services.flags.archive(actor, 'life', 2)
      expect(archived.body).toMatchObject({ archived: true })
      await services.flags.restore(actor, 'life', undefined)
      await services.flags.rollback(actor, 'life', 1, 4)
      expect(await auditCount()).toBe(audits + 5)
      const mine = notices.filter((n) => n.resourceKey === 'life').map((n) => [n.change?.action, n.change?.version])
      expect(mine).toEqual([['create', 1], ['update', 2], ['archive', 3], ['restore', 4], ['rollback', 5]])
      const { versions, total } = await services.flags.history('default', 'life', 10, 0)
      expect(total).toBe(5)
      expect(versions.map((v) => [v.version, v.action, v.flag.value])).toEqual([[5, 'rollback', 'one'], [4, 'restore', 'two'], [3, 'archive', 'two'], [2, 'update', 'two'], [1, 'create', 'one']])
    })

    test('an archived flag leaves the snapshot (no surface evaluates it) and refuses changes but a restore; a refusal leaves no trace', async () => {
      await services.flags.create(actor, { key: 'shelved', enabled: true, value: 1 })
      const snapshots = new Snapshots(store)
      await snapshots.reconcile()
      expect(snapshots.project('default')!.flags.has('shelved')).toBe(true)
      await services.flags.archive(actor, 'shelved', undefined)
      await snapshots.reconcile()
      expect(snapshots.project('default')!.flags.has('shelved')).toBe(false)
      expect(snapshots.project('default')!.archivedFlags.has('shelved')).toBe(true)
      const before = { audits: await auditCount(), notices: notices.length }
      expect(await refusal(() => services.flags.update(actor, 'shelved', { value: 2 }, undefined))).toEqual({ status: 409, code: 'FLAG_ARCHIVED' })
      expect(await refusal(() => services.flags.rollback(actor, 'shelved', 1, undefined))).toEqual({ status: 409, code: 'FLAG_ARCHIVED' })
      expect(await refusal(() => services.flags.restore(actor, 'life', undefined))).toEqual({ status: 409, code: 'NOT_ARCHIVED' })
      expect({ audits: await auditCount(), notices: notices.length }).toEqual(before)
      await services.flags.restore(actor, 'shelved', undefined)
      await snapshots.reconcile()
      expect(snapshots.project('default')!.flags.get('shelved')!.compiled.evaluate({}).value).toBe(1)
    })

    test('prerequisites: a cycle through an update is refused; a required flag cannot be archived or deleted', async () => {
      await services.flags.create(actor, { key: 'p1', enabled: true, value: true })
      await services.flags.create(actor, { key: 'p2', enabled: true, value: true, prerequisites: [{ key: 'p1', value: true }] })
      expect(await refusal(() => services.flags.update(actor, 'p1', { prerequisites: [{ key: 'p2', value: true }] }, undefined))).toEqual({ status: 400, code: 'VALIDATION_ERROR' })
      expect(await refusal(() => services.flags.archive(actor, 'p1', undefined))).toEqual({ status: 409, code: 'IN_USE' })
      expect(await refusal(() => services.flags.delete(actor, 'p1'))).toEqual({ status: 409, code: 'IN_USE' })
      await services.flags.delete(actor, 'p2')
      await services.flags.delete(actor, 'p1')
    })

    test('explain: a draft is validated like a write and nothing is stored', async () => {
      const audits = await auditCount()
      expect(await refusal(() => services.explain(actor, 'draft-only', { context: {}, flag: { variants: { a: 1 }, default_variant: 'b' } }))).toEqual({ status: 400, code: 'VALIDATION_ERROR' })
      const ok = await services.explain(actor, 'draft-only', { context: {}, flag: { enabled: true, variants: { a: 1, b: 2 }, default_variant: 'b' } })
      expect(ok.result).toEqual({ value: 2, type: 'number', reason: 'default', variant: 'b' })
      expect(await auditCount()).toBe(audits)
      expect(await store.flags.get(store.db, 'default', 'draft-only')).toBeUndefined()
    })
  })
}
