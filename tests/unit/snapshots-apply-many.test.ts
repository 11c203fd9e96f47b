// Snapshots.applyMany (a commit's notices together, documents reloaded in bulk) leaves the cache exactly as
// applying the same notices one by one does: segments, live and archived flags, configs, deletions, and
// notices of other kinds and other projects in between; and it reads the store a few times, not per document.
import type { DocumentRepository, DocumentRow } from '../../server/store/documents'
import { expect, test } from 'bun:test'
import { Snapshots, type ProjectSnapshot } from '../../server/cache/snapshots'
import { createStore } from '../../server/store'
import { openDatabase } from '../../server/store/database'
import { bootstrap } from '../../server/services/bootstrap'
import type { ChangeNotice } from '../../server/notices/changes'
import { tempSqliteUrl } from '../helpers/temp'

const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString()
// Rows as the store keeps them, of whichever kind the test puts them under (never: any kind's body).
const doc = (key: string, body: Record<string, unknown>, projectId = 'default'): DocumentRow<never> => ({
  projectId,
  key,
  body: body as never,
  version: 1,
  createdAt: at(0),
  updatedAt: at(0),
})
const targeted = (value: string) => ({
  enabled: true,
  value,
  targeting: { rules: [{ conditions: [{ property: 'user_id', operator: 'in_segment', value: 'seg' }], value: 'in' }] },
})

/** What a project's snapshot serves: every row, and each live flag's answer for two contexts. */
const served = (snap: ProjectSnapshot) => ({
  project: snap.project,
  flags: [...snap.flags]
    .map(([key, f]) => [key, f.row, f.compiled.evaluate({ plan: 'pro' }).value, f.compiled.evaluate({ plan: 'free' }).value])
    .sort(),
  archived: [...snap.archivedFlags].sort(),
  configs: [...snap.configs].sort(),
  segments: [...snap.segments].sort(),
})

test('applyMany ends where applying each notice in turn ends, with a few reads', async () => {
  const store = createStore(await openDatabase(tempSqliteUrl('flagship-apply-many-')))
  await bootstrap(store, undefined)
  await store.transaction(async (tx) => {
    await store.projects.insert(tx, {
      id: 'other',
      name: 'Other',
      slug: 'other',
      environments: ['production'],
      createdAt: at(0),
      updatedAt: at(0),
    })
    await store.segments.insert(tx, doc('seg', { conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }] }))
    await store.flags.insert(tx, doc('kept', targeted('kept')))
    await store.flags.insert(tx, doc('edited', { enabled: true, value: 'old' }))
    await store.flags.insert(tx, doc('removed', { enabled: true, value: 'r' }))
    await store.flags.insert(tx, doc('to-archive', { enabled: true, value: 'a' }))
    await store.configs.insert(tx, doc('cfg-removed', { value: 1 }))
  })
  const one = new Snapshots(store)
  const many = new Snapshots(store)
  await one.reconcile()
  await many.reconcile()

  // One commit's writes (as an import makes them), then its notices in commit order.
  const notices: ChangeNotice[] = []
  const note = (resourceType: ChangeNotice['resourceType'], resourceKey: string, projectId = 'default') =>
    void notices.push({ projectId, resourceType, resourceKey })
  await store.transaction(async (tx) => {
    await store.segments.update(tx, 'default', 'seg', { conditions: [{ property: 'plan', operator: 'equals', value: 'free' }] }, 1, at(5))
    note('segment', 'seg')
    await store.flags.insertMany(
      tx,
      Array.from({ length: 300 }, (_, i) => doc(`new-${i}`, targeted(`n${i}`))),
    )
    for (let i = 0; i < 300; i++) note('flag', `new-${i}`)
    await store.flags.update(tx, 'default', 'edited', { enabled: true, value: 'new' }, 1, at(5))
    note('flag', 'edited')
    await store.flags.update(tx, 'default', 'to-archive', { enabled: true, value: 'a', archived: true }, 1, at(5))
    note('flag', 'to-archive')
    await store.flags.delete(tx, 'default', 'removed')
    note('flag', 'removed')
    note('token', 'ff_default_x')
    await store.projects.update(tx, 'default', { name: 'Renamed', updatedAt: at(5) })
    note('project', 'default')
    await store.configs.delete(tx, 'default', 'cfg-removed')
    await store.configs.insert(tx, doc('cfg-new', { value: 2 }))
    note('config', 'cfg-removed')
    note('config', 'cfg-new')
    await store.flags.insert(tx, doc('elsewhere', { enabled: true, value: 'e' }, 'other'))
    note('flag', 'elsewhere', 'other')
    note('flag', 'edited')
  })

  for (const n of notices) await one.apply(n)
  const reads = { get: 0, getMany: 0 }
  for (const repo of [store.flags, store.configs, store.segments] as DocumentRepository[]) {
    const [get, getMany] = [repo.get, repo.getMany]
    repo.get = (...args) => (reads.get++, get(...args))
    repo.getMany = (...args) => (reads.getMany++, getMany(...args))
  }
  const revision = many.project('default')!.revision
  await many.applyMany(notices)

  for (const id of ['default', 'other']) expect(served(many.project(id)!)).toEqual(served(one.project(id)!))
  const snap = many.project('default')!
  expect(snap.flags.get('kept')!.compiled.evaluate({ plan: 'free' }).value).toBe('in')
  expect(snap.flags.get('new-7')!.compiled.evaluate({ plan: 'free' }).value).toBe('in')
  expect([
    snap.flags.has('to-archive'),
    snap.archivedFlags.has('to-archive'),
    snap.flags.has('removed'),
    snap.configs.has('cfg-removed'),
  ]).toEqual([false, true, false, false])
  expect(snap.project.name).toBe('Renamed')
  expect(snap.revision).toBeGreaterThan(revision)
  // Runs of document notices: the first 304, of `default` (segments and flags: two reads), then, after the token and
  // project notices, two configs (one read); `other`'s one flag and the last `edited` each alone (a get).
  expect(reads).toEqual({ getMany: 3, get: 2 })
})
