import { expect, test } from 'bun:test'
import { openDatabase } from '../../server/store/database'
import { createStore } from '../../server/store'
import { tempSqliteUrl } from '../helpers/temp'

test('SQLite: reads outside a transaction never see another transaction uncommitted, and see it once committed', async () => {
  const database = await openDatabase(tempSqliteUrl('flagship-iso-'))
  const store = createStore(database)
  const row = { projectId: 'p', key: 'k', body: { enabled: true, value: 1 }, version: 1, createdAt: 'now', updatedAt: 'now' }
  let release!: () => void
  const held = new Promise<void>((r) => (release = r))
  let inserted!: () => void
  const insertedSignal = new Promise<void>((r) => (inserted = r))
  const tx = store.transaction(async (db) => {
    await store.flags.insert(db, row)
    inserted()
    await held // the transaction stays open across an await, as a request's does
    throw new Error('roll back')
  })
  await insertedSignal
  expect(await store.flags.get(store.db, 'p', 'k')).toBeUndefined()
  release()
  await expect(tx).rejects.toThrow('roll back')
  expect(await store.flags.get(store.db, 'p', 'k')).toBeUndefined()
  await store.transaction(async (db) => store.flags.insert(db, row))
  expect((await store.flags.get(store.db, 'p', 'k'))?.version).toBe(1)
  await database.close()
})

test('SQLite: the reader connection refuses writes at once (every write goes through a transaction)', async () => {
  const database = await openDatabase(tempSqliteUrl('flagship-ro-'))
  const store = createStore(database)
  const row = { projectId: 'p', key: 'k', body: { enabled: true, value: 1 }, version: 1, createdAt: 'now', updatedAt: 'now' }
  await expect(store.flags.insert(store.db, row)).rejects.toThrow(/readonly|read-only/i)
  await store.transaction(async (db) => store.flags.insert(db, row))
  expect((await store.flags.get(store.db, 'p', 'k'))?.version).toBe(1)
  await database.close()
})
