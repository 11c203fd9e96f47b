// Snapshots.reconcile() heals missed change notices by comparing each document's stamp with memory: it must
// pick up every kind of change written behind its back, and recompile nothing that did not change.
import type { FlagBody } from '../../server/kinds'
import type { DocumentRow } from '../../server/store/documents'
import { expect, test } from 'bun:test'
import { Snapshots } from '../../server/cache/snapshots'
import { createStore } from '../../server/store'
import { openDatabase } from '../../server/store/database'
import { bootstrap } from '../../server/services/bootstrap'
import { tempSqliteUrl } from '../helpers/temp'

const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString()
// Rows as the store keeps them, of whichever kind the test puts them under (never: any kind's body).
const doc = (key: string, body: Record<string, unknown>, version = 1, created = at(0), updated = created): DocumentRow<never> => ({
  projectId: 'default',
  key,
  body: body as never,
  version,
  createdAt: created,
  updatedAt: updated,
})

test('reconcile reloads changed, new and deleted documents only; a segment change recompiles its flags', async () => {
  const database = await openDatabase(tempSqliteUrl('flagship-reconcile-'))
  const store = createStore(database)
  await bootstrap(store, undefined)
  const proSegment = { conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }] }
  await store.transaction(async (tx) => {
    await store.segments.insert(tx, doc('paying', proSegment))
    await store.flags.insert(tx, doc('stable', { enabled: true, value: 's' }))
    await store.flags.insert(tx, doc('edited', { enabled: true, value: 'old' }))
    await store.flags.insert(tx, doc('removed', { enabled: true, value: 'r' }))
    await store.flags.insert(
      tx,
      doc('targeted', {
        enabled: true,
        value: false,
        targeting: { rules: [{ conditions: [{ property: 'user_id', operator: 'in_segment', value: 'paying' }], value: true }] },
      }),
    )
    await store.configs.insert(tx, doc('cfg', { value: 1 }))
  })
  const snapshots = new Snapshots(store)
  await snapshots.reconcile()
  const project = () => snapshots.project('default')!
  const stable = project().flags.get('stable')!
  const evaluate = (key: string, context: object) => project().flags.get(key)!.compiled.evaluate(context).value
  expect(evaluate('targeted', { plan: 'pro' })).toBe(true)

  // Written straight to the store: no change notice reaches the snapshot.
  await store.transaction(async (tx) => {
    await store.flags.update(tx, 'default', 'edited', { enabled: true, value: 'new' }, 1, at(5))
    await store.flags.delete(tx, 'default', 'removed')
    await store.flags.insert(tx, doc('added', { enabled: true, value: 'a' }))
    await store.segments.update(
      tx,
      'default',
      'paying',
      { conditions: [{ property: 'plan', operator: 'equals', value: 'enterprise' }] },
      1,
      at(5),
    )
    await store.configs.update(tx, 'default', 'cfg', { value: 2 }, 1, at(5))
  })
  expect(evaluate('edited', {})).toBe('old')
  await snapshots.reconcile()

  expect(evaluate('edited', {})).toBe('new')
  expect(project().flags.has('removed')).toBe(false)
  expect(evaluate('added', {})).toBe('a')
  expect(evaluate('targeted', { plan: 'pro' })).toBe(false)
  expect(evaluate('targeted', { plan: 'enterprise' })).toBe(true)
  expect((project().configs.get('cfg')!.body as { value: number }).value).toBe(2)

  // Nothing changed since: nothing is recompiled (the segment change above recompiled every flag once).
  const before = project().flags.get('stable')!
  expect(before).not.toBe(stable)
  await snapshots.reconcile()
  expect(project().flags.get('stable')).toBe(before)
  // A document deleted and created again (version 1 both times) is seen by its new creation time.
  await store.transaction(async (tx) => {
    await store.flags.delete(tx, 'default', 'stable')
    await store.flags.insert(tx, doc('stable', { enabled: true, value: 'reborn' }, 1, at(9)))
  })
  await snapshots.reconcile()
  expect(evaluate('stable', {})).toBe('reborn')
  await database.close()
})

test('notices applied while reconcile awaits win: a segment change and a deletion are not undone', async () => {
  const database = await openDatabase(tempSqliteUrl('flagship-reconcile-'))
  const store = createStore(database)
  await bootstrap(store, undefined)
  const targeted = (value: string): FlagBody => ({
    enabled: true,
    value,
    targeting: { rules: [{ conditions: [{ property: 'user_id', operator: 'in_segment', value: 'seg' }], value: 'in' }] },
  })
  await store.transaction(async (tx) => {
    await store.segments.insert(tx, doc('seg', { conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }] }))
    await store.flags.insert(tx, doc('f', targeted('out')))
    await store.flags.insert(tx, doc('gone', { enabled: true, value: 1 }))
  })
  const snapshots = new Snapshots(store)
  await snapshots.reconcile()
  const flags = () => snapshots.project('default')!.flags
  // Missed notices: f and gone changed behind the snapshot's back.
  await store.transaction(async (tx) => {
    await store.flags.update(tx, 'default', 'f', targeted('out2'), 1, at(5))
    await store.flags.update(tx, 'default', 'gone', { enabled: true, value: 2 }, 1, at(5))
  })
  // While reconcile reads f, the segment changes and `gone` is deleted, and both notices are applied.
  const read = store.flags.get
  let interleaved = false
  store.flags.get = async (db, projectId, key) => {
    const row = await read(db, projectId, key)
    if (!interleaved) {
      interleaved = true
      await store.transaction(async (tx) => {
        await store.segments.update(
          tx,
          'default',
          'seg',
          { conditions: [{ property: 'plan', operator: 'equals', value: 'enterprise' }] },
          1,
          at(6),
        )
        await store.flags.delete(tx, 'default', 'gone')
      })
      await snapshots.apply({ projectId: 'default', resourceType: 'segment', resourceKey: 'seg' })
      await snapshots.apply({ projectId: 'default', resourceType: 'flag', resourceKey: 'gone' })
    }
    return row
  }
  try {
    await snapshots.reconcile()
  } finally {
    store.flags.get = read
  }
  expect(flags().has('gone')).toBe(false)
  await snapshots.reconcile()
  expect(flags().has('gone')).toBe(false)
  expect(flags().get('f')!.compiled.evaluate({ plan: 'enterprise' }).value).toBe('in')
  expect(flags().get('f')!.compiled.evaluate({ plan: 'pro' }).value).toBe('out2')
  await database.close()
})
