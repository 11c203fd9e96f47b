// The services in process, without HTTP, on both stores: each change is one transaction with exactly one
// audit entry, one webhook outbox row per subscribed webhook and one numbered stream entry, published after
// commit; a refused change leaves no trace; flags, configs and segments share the versioned-document rules.
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
  describe.skipIf(dialect === 'postgres' && !pgReady)(`services in process: ${dialect}`, () => {
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

    test('create, update, conflict, delete: one audit entry, one notice and one stream number per change', async () => {
      const audits = await auditCount()
      const row = await services.flags.create(actor, { key: 'svc', enabled: true, value: 1 })
      expect(row.version).toBe(1)
      const updated = await services.flags.update(actor, 'svc', { value: 2 }, 1)
      expect(updated.version).toBe(2)
      expect(await refusal(() => services.flags.update(actor, 'svc', { value: 3 }, 1))).toEqual({ status: 409, code: 'CONFLICT' })
      await services.flags.delete(actor, 'svc')
      expect(await auditCount()).toBe(audits + 3)
      const mine = notices.filter((n) => n.resourceKey === 'svc')
      expect(mine.map((n) => [n.change?.action, n.change?.version])).toEqual([['create', 1], ['update', 2], ['delete', 2]])
      const seqs = mine.map((n) => n.change!.seq)
      expect(seqs).toEqual([seqs[0]!, seqs[0]! + 1, seqs[0]! + 2])
    })

    test('a refused change leaves no trace: no row, no audit entry, no notice, no stream number', async () => {
      const before = { audits: await auditCount(), notices: notices.length, head: (await store.changes.heads(store.db)).get('default') }
      expect(await refusal(() => services.flags.create(actor, { key: 'bad key!', value: 1 }))).toEqual({ status: 400, code: 'VALIDATION_ERROR' })
      expect(await refusal(() => services.configs.create(actor, { key: 'c', value: 1, environments: { moon: { value: 2 } } }))).toEqual({ status: 400, code: 'VALIDATION_ERROR' })
      expect(await refusal(() => services.segments.update(actor, 'nope', { conditions: [] }, undefined))).toEqual({ status: 404, code: 'SEGMENT_NOT_FOUND' })
      expect(await refusal(() => services.flags.deleteOverride(actor, 'nope', 'production', undefined))).toEqual({ status: 404, code: 'FLAG_NOT_FOUND' })
      expect({ audits: await auditCount(), notices: notices.length, head: (await store.changes.heads(store.db)).get('default') }).toEqual(before)
      expect(await store.configs.get(store.db, 'default', 'c')).toBeUndefined()
    })

    test('the same versioned-document rules for flags, configs and segments', async () => {
      await services.segments.create(actor, { key: 'seg', conditions: [] })
      await services.configs.create(actor, { key: 'cfg', value: { a: 1 } })
      await services.flags.create(actor, { key: 'flg', value: true, targeting: { rules: [{ conditions: [{ operator: 'in_segment', value: 'seg' }], value: false }] } })
      for (const [create, code] of [
        [() => services.segments.create(actor, { key: 'seg', conditions: [] }), 'ALREADY_EXISTS'],
        [() => services.configs.create(actor, { key: 'cfg', value: 1 }), 'ALREADY_EXISTS'],
        [() => services.flags.create(actor, { key: 'flg' }), 'ALREADY_EXISTS'],
      ] as const) expect((await refusal(create)).code).toBe(code)
      expect(await refusal(() => services.configs.update(actor, 'cfg', { value: 2 }, 7))).toEqual({ status: 409, code: 'CONFLICT' })
      expect(await refusal(() => services.segments.update(actor, 'seg', { conditions: [] }, 7))).toEqual({ status: 409, code: 'CONFLICT' })
      // A segment in use is kept unless forced.
      expect(await refusal(() => services.segments.delete(actor, 'seg', false))).toEqual({ status: 409, code: 'IN_USE' })
      await services.segments.delete(actor, 'seg', true)
      // Overrides: set at a version, removed at the next one; removing a missing one is 404.
      const put = await services.configs.putOverride(actor, 'cfg', 'production', { a: 2 }, 1)
      expect(put.version).toBe(2)
      expect((await services.configs.deleteOverride(actor, 'cfg', 'production', 2)).version).toBe(3)
      expect(await refusal(() => services.configs.deleteOverride(actor, 'cfg', 'production', undefined))).toEqual({ status: 404, code: 'NOT_FOUND' })
    })

    test('webhook outbox rows are written with the change, only for subscribed kinds', async () => {
      const hook = await services.webhooks.create(actor, { url: 'https://hooks.example.com/x', events: ['config.updated'] })
      await services.configs.create(actor, { key: 'hooked', value: 1 })
      await services.configs.update(actor, 'hooked', { value: 2 }, undefined)
      const rows = await store.deliveries.recent(store.db, (hook as { id: string }).id, 10)
      expect(rows.map((r) => r.event)).toEqual(['config.updated'])
      expect(JSON.parse(rows[0]!.payload)).toMatchObject({ event: 'config.updated', resource: 'hooked', data: { value: 2, version: 2 } })
    })
  })
}
