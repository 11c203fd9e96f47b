// The store conformance suite: the same behaviour tests, in process, against the embedded SQLite store and
// the PostgreSQL store, so the two dialects cannot drift apart. PostgreSQL is required under CI=true.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { openDatabase } from '../../server/store/database'
import { createStore, type Store } from '../../server/store'
import type { DocumentRepository, DocumentRow } from '../../server/store/documents'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'
import { requireServices } from '../helpers/requirements'
import { tempSqliteUrl } from '../helpers/temp'

const pgReady = await requireServices({ postgres: true })
const now = () => new Date().toISOString()
const doc = (key: string, body: Record<string, unknown> = { value: key }): DocumentRow => ({
  projectId: 'p1',
  key,
  body,
  version: 1,
  createdAt: now(),
  updatedAt: now(),
})

/** The store with its document repositories over any JSON object: a repository does the same for every kind,
 *  so these tests store bodies no kind would. */
type AnyBodies = Omit<Store, 'flags' | 'configs' | 'segments'> & Record<'flags' | 'configs' | 'segments', DocumentRepository>

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe.skipIf(dialect === 'postgres' && !pgReady)(`store conformance: ${dialect}`, () => {
    let store: AnyBodies
    let pg: TestDatabase | undefined
    beforeAll(async () => {
      pg = dialect === 'postgres' ? await createTestDatabase() : undefined
      store = createStore(await openDatabase(pg?.url ?? tempSqliteUrl()))
      await store.transaction((tx) =>
        store.projects.insert(tx, { id: 'p1', name: 'P', slug: 'p1', environments: ['prod'], createdAt: now(), updatedAt: now() }),
      )
    })
    afterAll(async () => {
      await store?.database.close()
      await pg?.drop()
    })

    test('documents: insert, get, page in key order with a total, stamps, delete', async () => {
      await store.transaction(async (tx) => {
        for (const key of ['b', 'a', 'c']) await store.flags.insert(tx, doc(key, { nested: { list: [1, 'two', null], ok: true } }))
      })
      expect((await store.flags.get(store.db, 'p1', 'a'))?.body).toEqual({ nested: { list: [1, 'two', null], ok: true } })
      expect(await store.flags.get(store.db, 'p1', 'zzz')).toBeUndefined()
      const page = await store.flags.page(store.db, 'p1', 2, 1)
      expect([page.rows.map((r) => r.key), page.total]).toEqual([['b', 'c'], 3])
      expect((await store.flags.stamps(store.db, 'p1')).map((s) => s.key).sort()).toEqual(['a', 'b', 'c'])
      await store.transaction((tx) => store.flags.delete(tx, 'p1', 'c'))
      expect((await store.flags.all(store.db, 'p1')).map((r) => r.key)).toEqual(['a', 'b'])
    })

    test('documents: a page filtered on a body flag (archived or not; absent is not) in key order with its total', async () => {
      await store.transaction(async (tx) => {
        for (const [key, body] of [
          ['f3', { archived: true }],
          ['f1', {}],
          ['f2', { archived: false, x: 1 }],
          ['f4', { archived: true, tags: ['a'] }],
          ['f5', { value: 'archived' }],
        ] as const) {
          await store.flags.insert(tx, { ...doc(key, body as Record<string, unknown>), projectId: 'p-arch' })
        }
      })
      const live = await store.flags.pageWhereBody(store.db, 'p-arch', { archived: false }, 2, 0)
      expect([live.rows.map((r) => r.key), live.total]).toEqual([['f1', 'f2'], 3])
      expect((await store.flags.pageWhereBody(store.db, 'p-arch', { archived: false }, 10, 2)).rows.map((r) => r.key)).toEqual(['f5'])
      const archived = await store.flags.pageWhereBody(store.db, 'p-arch', { archived: true }, 10, 0)
      expect([archived.rows.map((r) => r.key), archived.total]).toEqual([['f3', 'f4'], 2])
    })

    const TAG_FILTER =
      'documents: a page filtered on tags (every one; exact, case-sensitive; quotes and SQL wildcards are plain text), ' +
      'in either archived state'
    test(TAG_FILTER, async () => {
      const tagged: [string, Record<string, unknown>][] = [
        ['t1', { tags: ['a', 'b'] }],
        ['t2', { tags: ['b'] }],
        ['t3', { tags: ['a', 'b'], archived: true }],
        ['t4', {}],
        ['t5', { tags: ['A'] }],
        ['t6', { tags: ["it's", '%', 'a"b'] }],
        ['t7', { tags: 'a' }],
        ['t8', { description: 'a' }],
      ]
      await store.transaction(async (tx) => {
        for (const [key, body] of tagged) await store.flags.insert(tx, { ...doc(key, body), projectId: 'p-tags' })
      })
      const keys = async (filter: { archived?: boolean; tags?: string[] }, limit = 10, offset = 0) => {
        const { rows, total } = await store.flags.pageWhereBody(store.db, 'p-tags', filter, limit, offset)
        return [rows.map((r) => r.key), total]
      }
      expect(await keys({ tags: ['a'] })).toEqual([['t1', 't3'], 2])
      expect(await keys({ tags: ['a'], archived: false })).toEqual([['t1'], 1])
      expect(await keys({ tags: ['b', 'a'], archived: true })).toEqual([['t3'], 1])
      expect(await keys({ tags: ['b'] }, 1, 1)).toEqual([['t2'], 3])
      expect(await keys({ tags: ['a', 'missing'] })).toEqual([[], 0])
      expect(await keys({ tags: ["it's"] })).toEqual([['t6'], 1])
      expect(await keys({ tags: ['%'] })).toEqual([['t6'], 1])
      expect(await keys({ tags: ['a"b'] })).toEqual([['t6'], 1])
      expect(await keys({ tags: ['_'] })).toEqual([[], 0])
      expect(await keys({})).toEqual([tagged.map(([k]) => k), 8])
    })

    test('documents: an update applies only at the version it was read at, and bumps it', async () => {
      await store.transaction((tx) => store.configs.insert(tx, doc('v')))
      const first = await store.transaction((tx) => store.configs.update(tx, 'p1', 'v', { value: 2 }, 1, now()))
      expect([first?.version, first?.body]).toEqual([2, { value: 2 }])
      const stale = await store.transaction((tx) => store.configs.update(tx, 'p1', 'v', { value: 3 }, 1, now()))
      expect(stale).toBeUndefined()
      expect((await store.configs.get(store.db, 'p1', 'v'))?.version).toBe(2)
    })

    test('documents in bulk: insertMany beyond one statement, getMany / getManyForUpdate of many keys, deleteMany', async () => {
      const keys = Array.from({ length: 1234 }, (_, i) => `bulk-${String(i).padStart(4, '0')}`)
      await store.transaction((tx) =>
        store.flags.insertMany(
          tx,
          keys.map((key, i) => ({ ...doc(key, { value: i, nested: { k: key } }), projectId: 'p-bulk' })),
        ),
      )
      const all = await store.flags.all(store.db, 'p-bulk')
      expect(all.map((r) => r.key)).toEqual(keys)
      expect(all[1000]?.body).toEqual({ value: 1000, nested: { k: 'bulk-1000' } })
      const wanted = [...keys.slice(0, 700), 'missing', keys[3]!, ...keys.slice(1200)]
      const byKey = (rows: DocumentRow[]) => rows.map((r) => [r.key, r.body.value]).sort()
      const expected = [...keys.slice(0, 700), ...keys.slice(1200)].map((k) => [k, keys.indexOf(k)]).sort()
      expect(byKey(await store.flags.getMany(store.db, 'p-bulk', wanted))).toEqual(expected)
      expect(byKey(await store.transaction((tx) => store.flags.getManyForUpdate(tx, 'p-bulk', wanted)))).toEqual(expected)
      expect(await store.flags.getMany(store.db, 'p1', keys)).toEqual([])
      await store.transaction((tx) => store.flags.deleteMany(tx, 'p-bulk', [...keys.slice(0, 600), 'missing']))
      expect((await store.flags.all(store.db, 'p-bulk')).map((r) => r.key)).toEqual(keys.slice(600))
      // A clash anywhere in the rows fails the insert, and the transaction writes none of them.
      await expect(
        store.transaction((tx) =>
          store.flags.insertMany(
            tx,
            ['fresh-1', 'bulk-0700', 'fresh-2'].map((key) => ({ ...doc(key), projectId: 'p-bulk' })),
          ),
        ),
      ).rejects.toThrow()
      expect(await store.flags.getMany(store.db, 'p-bulk', ['fresh-1', 'fresh-2'])).toEqual([])
    })

    const BULK_UPDATE =
      'documents in bulk: updateMany writes each document still at its version ' + '(body, version + 1, updated_at), and no other'
    test(BULK_UPDATE, async () => {
      const keys = [...Array.from({ length: 700 }, (_, i) => `upd-${i}`), "it's", 'a"b', 'ü 🚩']
      await store.transaction((tx) =>
        store.configs.insertMany(
          tx,
          keys.map((key) => ({ ...doc(key, { old: key }), projectId: 'p-upd' })),
        ),
      )
      const moved = new Set(['upd-3', 'upd-650', "it's"])
      await store.transaction(async (tx) => {
        for (const key of moved) await store.configs.update(tx, 'p-upd', key, { moved: true }, 1, now())
      })
      const body = (key: string) => ({ key, s: 'ünïcødé "q" \\ 🎉', n: [0, -1.5, 1e21], e: {}, a: [], z: null })
      const at = now()
      const written = await store.transaction((tx) =>
        store.configs.updateMany(
          tx,
          'p-upd',
          keys.map((key) => ({ key, body: body(key), fromVersion: 1 })),
          at,
        ),
      )
      expect(written.map((r) => r.key).sort()).toEqual(keys.filter((k) => !moved.has(k)).sort())
      for (const row of await store.configs.all(store.db, 'p-upd')) {
        if (moved.has(row.key)) expect([row.version, row.body]).toEqual([2, { moved: true }])
        else expect([row.version, row.body, row.updatedAt]).toEqual([2, body(row.key), at])
      }
      expect(written.find((r) => r.key === 'a"b')).toEqual((await store.configs.get(store.db, 'p-upd', 'a"b'))!)
    })

    test('audit: insertMany stores each entry as insert would, numbered in the order given', async () => {
      const at = now()
      const entry = (i: number) => ({
        projectId: 'p-audit',
        timestamp: at,
        actor: 'cli',
        action: 'create' as const,
        resourceType: 'flag' as const,
        resourceKey: `k${i}`,
        actorType: 'cli',
        credential: null,
        details: i % 2 ? { change_set: 'cs', n: i } : null,
        before: null,
        after: { key: `k${i}`, nested: [i, 'ü'] },
      })
      await store.transaction((tx) => store.audit.insert(tx, entry(0)))
      await store.transaction((tx) =>
        store.audit.insertMany(
          tx,
          Array.from({ length: 1100 }, (_, i) => entry(i + 1)),
        ),
      )
      const { rows, total } = await store.audit.page(store.db, 'p-audit', {}, 2000, 0)
      expect(total).toBe(1101)
      // Newest first: same timestamp, so by id, which follows the order given.
      expect(rows.map((r) => r.resourceKey)).toEqual(Array.from({ length: 1101 }, (_, i) => `k${1100 - i}`))
      expect(rows.map(({ id: _id, ...r }) => r)).toEqual(Array.from({ length: 1101 }, (_, i) => entry(1100 - i)))
    })

    test('a transaction that throws writes nothing', async () => {
      await expect(
        store.transaction(async (tx) => {
          await store.segments.insert(tx, doc('rolled-back'))
          throw new Error('boom')
        }),
      ).rejects.toThrow('boom')
      expect(await store.segments.get(store.db, 'p1', 'rolled-back')).toBeUndefined()
    })

    test('JSON bodies come back as they went in: unicode, numbers, empty containers', async () => {
      const body = { s: 'ünïcødé 🎉 "quoted" \\ back', n: [0, -1.5, 1e21, 9007199254740991], e: {}, a: [], f: false, z: null }
      await store.transaction((tx) => store.segments.insert(tx, doc('json', body)))
      expect((await store.segments.get(store.db, 'p1', 'json'))?.body).toEqual(body)
    })

    test('change log: numbered 1, 2, 3 … per project, kept to the newest N, read back in order', async () => {
      const entry = (key: string) => ({
        resourceType: 'flag' as const,
        resourceKey: key,
        action: 'update' as const,
        version: 1,
        environment: '',
        createdAt: now(),
      })
      const first = await store.transaction((tx) => store.changes.append(tx, 'p1', [entry('x'), entry('y')], 3))
      const second = await store.transaction((tx) => store.changes.append(tx, 'p1', [entry('z')], 3))
      const other = await store.transaction((tx) => store.changes.append(tx, 'p2', [entry('q')], 3))
      expect([...first, ...second, ...other].map((r) => [r.projectId, r.seq])).toEqual([
        ['p1', 1],
        ['p1', 2],
        ['p1', 3],
        ['p2', 1],
      ])
      await store.transaction((tx) => store.changes.append(tx, 'p1', [entry('w')], 3))
      expect((await store.changes.newest(store.db, 'p1', 10)).map((r) => r.seq)).toEqual([2, 3, 4])
      expect((await store.changes.after(store.db, 'p1', 2, 10)).map((r) => r.resourceKey)).toEqual(['z', 'w'])
      expect(await store.changes.heads(store.db)).toEqual(
        new Map([
          ['p1', 4],
          ['p2', 1],
        ]),
      )
      // A rolled-back change takes no number.
      await store
        .transaction(async (tx) => {
          await store.changes.append(tx, 'p1', [entry('lost')], 3)
          throw new Error('rollback')
        })
        .catch(() => {})
      expect((await store.changes.heads(store.db)).get('p1')).toBe(4)
    })

    test('change log: concurrent transactions get distinct, gapless numbers', async () => {
      const entry = {
        resourceType: 'config' as const,
        resourceKey: 'c',
        action: 'update' as const,
        version: null,
        environment: '',
        createdAt: now(),
      }
      const rows = await Promise.all(
        Array.from({ length: 10 }, () => store.transaction((tx) => store.changes.append(tx, 'p3', [entry], 100))),
      )
      expect(
        rows
          .flat()
          .map((r) => r.seq)
          .sort((a, b) => a - b),
      ).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    })

    test('server keys: the first value written wins, for every caller', async () => {
      const values = await Promise.all(
        ['one', 'two', 'three'].map((v) => store.transaction((tx) => store.serverKeys.getOrCreate(tx, 'k', v))),
      )
      expect(new Set(values).size).toBe(1)
      expect(await store.transaction((tx) => store.serverKeys.getOrCreate(tx, 'k', 'later'))).toBe(values[0]!)
    })

    test('schedules: each claim marks exactly one due row; overlapping claims take distinct rows; a row leaves pending once', async () => {
      const at = (ms: number) => new Date(Date.now() + ms).toISOString()
      const row = (id: string, when: string) => ({
        id,
        projectId: 'p1',
        flagKey: 'f',
        at: when,
        change: { enabled: true },
        note: null,
        status: 'pending' as const,
        createdBy: 'ff_p1_abcd',
        createdByToken: null,
        createdAt: now(),
        finishedAt: null,
        cancelledBy: null,
        resultVersion: null,
        errorCode: null,
        error: null,
      })
      const future = at(3_600_000)
      await store.transaction(async (tx) => {
        for (let i = 0; i < 5; i++) await store.schedules.insert(tx, row(`due-${i}`, at(-1000 * (i + 1))))
        await store.schedules.insert(tx, row('later', future))
      })
      // Each transaction holds its claim a while, so they overlap on PostgreSQL (SQLite runs them in turn).
      const claims = await Promise.all(
        Array.from({ length: 8 }, () =>
          store.transaction(async (tx) => {
            const claimed = await store.schedules.claimDue(tx, now())
            await Bun.sleep(30)
            return claimed?.id
          }),
        ),
      )
      expect(claims.filter(Boolean).sort()).toEqual(['due-0', 'due-1', 'due-2', 'due-3', 'due-4'])
      const { rows } = await store.schedules.page(store.db, 'p1', {}, 100, 0)
      expect(rows.map((r) => [r.id, r.status])).toEqual([
        ['later', 'pending'],
        ...['due-0', 'due-1', 'due-2', 'due-3', 'due-4'].map((id) => [id, 'applied']),
      ])
      expect(await store.schedules.nextDueAt(store.db)).toBe(future)
      expect(await store.transaction((tx) => store.schedules.markFailed(tx, 'due-0', now(), { code: 'X', message: 'x' }))).toBeUndefined()
      expect(await store.transaction((tx) => store.schedules.cancel(tx, 'p1', 'due-1', now(), 'ff_p1_abcd'))).toBeUndefined()
      expect((await store.transaction((tx) => store.schedules.cancel(tx, 'p1', 'later', now(), 'ff_p1_abcd')))?.status).toBe('cancelled')
      expect(await store.schedules.nextDueAt(store.db)).toBeNull()

      // Retention: finished rows before the cut go, pending ones and later ones stay.
      await store.transaction((tx) => store.schedules.insert(tx, row('still-pending', at(-10))))
      const cut = at(60_000)
      expect(await store.transaction((tx) => store.schedules.pruneFinished(tx, at(-3_600_000)))).toBe(0)
      expect(await store.transaction((tx) => store.schedules.pruneFinished(tx, cut))).toBe(6)
      expect((await store.schedules.page(store.db, 'p1', {}, 100, 0)).rows.map((r) => r.id)).toEqual(['still-pending'])
    })

    const OVERLAPPING_CLAIMS =
      "webhook deliveries: claims that overlap take different webhooks' rows, " + 'none waits for another and none comes back empty'
    test(OVERLAPPING_CLAIMS, async () => {
      const hooks = ['h-0', 'h-1', 'h-2', 'h-3']
      const past = new Date(Date.now() - 1000).toISOString()
      await store.transaction(async (tx) => {
        for (const id of hooks) {
          await store.webhooks.insert(tx, {
            id,
            projectId: 'p1',
            url: 'http://127.0.0.1:9/hook',
            secret: null,
            events: ['*'],
            createdAt: now(),
          })
          await store.deliveries.insert(tx, [
            {
              id: `d-${id}`,
              webhookId: id,
              projectId: 'p1',
              event: 'flag.created',
              payload: '{}',
              status: 'pending',
              attempts: 0,
              nextAttemptAt: past,
              lastStatusCode: null,
              lastError: null,
              claimedBy: null,
              claimedUntil: null,
              createdAt: now(),
              updatedAt: now(),
            },
          ])
        }
      })
      const until = new Date(Date.now() + 60_000).toISOString()
      // Each transaction holds its claim a while, so they overlap on PostgreSQL (SQLite runs them in turn). A
      // claim that waited on another's locked row would find it taken and claim nothing.
      const claims = await Promise.all(
        hooks.map((_, i) =>
          store.transaction(async (tx) => {
            const rows = await store.deliveries.claimDue(tx, { owner: `w${i}`, now: now(), claimUntil: until, limit: 1, maxAttempts: 3 })
            await Bun.sleep(30)
            return rows.map((r) => r.id)
          }),
        ),
      )
      expect(claims.every((ids) => ids.length === 1)).toBe(true)
      expect(claims.flat().sort()).toEqual(hooks.map((id) => `d-${id}`))
    })

    test('webhook deliveries: one insert of more rows than a statement holds stores them all', async () => {
      const later = new Date(Date.now() + 3_600_000).toISOString()
      const rows = Array.from({ length: 1200 }, (_, i) => ({
        id: `bulk-${i}`,
        webhookId: 'h-bulk',
        projectId: 'p1',
        event: 'flag.created' as const,
        payload: `{"n":${i}}`,
        status: 'pending' as const,
        attempts: 0,
        nextAttemptAt: later,
        lastStatusCode: null,
        lastError: null,
        claimedBy: null,
        claimedUntil: null,
        createdAt: now(),
        updatedAt: now(),
      }))
      await store.transaction((tx) => store.deliveries.insert(tx, rows))
      expect((await store.deliveries.recent(store.db, 'h-bulk', 5000)).map((r) => r.id).sort()).toEqual(rows.map((r) => r.id).sort())
    })

    test('tokens: insert, list by project, touch, delete', async () => {
      const row = {
        hash: 'h1',
        projectId: 'p1',
        name: 'ci',
        tokenPrefix: 'ff_p1_abcd',
        permissions: ['read:flags' as const],
        expiresAt: null,
        createdAt: now(),
        lastUsedAt: null,
        ownerUserId: null,
        environments: null,
        environment: null,
        createdByUserId: null,
      }
      await store.transaction((tx) => store.tokens.insert(tx, row))
      await store.transaction((tx) => store.tokens.touch(tx, 'h1', '2026-01-01T00:00:00.000Z'))
      expect(await store.tokens.byProject(store.db, 'p1')).toEqual([{ ...row, lastUsedAt: '2026-01-01T00:00:00.000Z' }])
      await store.transaction((tx) => store.tokens.delete(tx, 'h1'))
      expect(await store.tokens.count(store.db, 'p1')).toBe(0)
    })
  })
}
