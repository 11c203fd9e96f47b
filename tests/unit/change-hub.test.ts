// The change hub in process, over a real store: commit order whatever order notices arrive in, gaps filled
// from the stored log (a notice that never came), many subscribers each getting every change, and a
// subscriber that does not read dropped at its bound instead of growing memory.
import { afterEach, describe, expect, test } from 'bun:test'
import { openDatabase } from '../../server/store/database'
import { createStore, type Store } from '../../server/store'
import { ChangeHub } from '../../server/streams/hub'
import { MAX_QUEUED_BYTES, Subscriber } from '../../server/streams/sse'
import type { ChangeNotice, StreamChange } from '../../server/notices/changes'
import { tempSqliteUrl } from '../helpers/temp'

const hubs: ChangeHub[] = []
afterEach(() => hubs.splice(0).forEach((h) => h.stop()))

async function setup(replayLimit = 100) {
  const store = createStore(await openDatabase(tempSqliteUrl()))
  const applied: string[] = []
  const hub = new ChangeHub({
    store,
    replayLimit,
    heartbeatMs: 60_000,
    log: () => {},
    applyToCache: async (n) => void applied.push(n.resourceKey),
    stillAllowed: () => true,
  })
  await hub.start()
  hubs.push(hub)
  return { store, hub, applied }
}

/** Commits `n` flag changes to the stored log and returns their notices (as the change runner publishes them). */
async function commit(store: Store, n: number, prefix = 'f'): Promise<ChangeNotice[]> {
  const rows = await store.transaction((tx) =>
    store.changes.append(
      tx,
      'p1',
      Array.from({ length: n }, (_, i) => ({
        resourceType: 'flag' as const,
        resourceKey: `${prefix}${i}`,
        action: 'update' as const,
        version: i + 1,
        environment: '',
        createdAt: new Date().toISOString(),
      })),
      1000,
    ),
  )
  return rows.map((r) => ({
    projectId: 'p1',
    resourceType: 'flag',
    resourceKey: r.resourceKey,
    change: {
      seq: r.seq,
      resource_type: r.resourceType,
      key: r.resourceKey,
      action: r.action,
      version: r.version,
      environment: r.environment,
      at: r.createdAt,
    } satisfies StreamChange,
  }))
}

/** A subscriber whose response body is read into `text`. */
function reader(hub: ChangeHub, lastEventId?: number) {
  const sub = new Subscriber(
    'p1',
    'hash',
    'native',
    () => true,
    {},
    (s) => hub.remove(s),
  )
  const out = { sub, text: '' }
  void (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of sub.response.body!) out.text += decoder.decode(chunk)
  })()
  hub.add(sub, lastEventId)
  return out
}

const ids = (text: string) => [...text.matchAll(/^id: (\d+)\nevent: change/gm)].map((m) => Number(m[1]))

describe('ChangeHub', () => {
  test('notices arriving out of order reach subscribers in commit order, once each', async () => {
    const { store, hub } = await setup()
    const r = reader(hub)
    const notices = await commit(store, 5)
    for (const i of [2, 0, 4, 1, 3]) await hub.ingest(notices[i]!)
    await Bun.sleep(10)
    expect(ids(r.text)).toEqual([1, 2, 3, 4, 5])
  })

  test('a notice that never arrives is filled from the stored log, caches first', async () => {
    const { store, hub, applied } = await setup()
    const r = reader(hub)
    const notices = await commit(store, 3)
    await hub.ingest(notices[2]!) // 1 and 2 were lost on the way
    await Bun.sleep(10)
    expect(ids(r.text)).toEqual([1, 2, 3])
    expect(applied).toEqual(['f0', 'f1']) // the change that came with its notice was applied by its sender
    // and with no notice at all, the periodic catch-up finds it
    await commit(store, 1, 'late')
    await hub.catchUp()
    await Bun.sleep(10)
    expect(ids(r.text)).toEqual([1, 2, 3, 4])
  })

  test('1,000 subscribers each get every change', async () => {
    const { store, hub } = await setup()
    const readers = Array.from({ length: 1000 }, () => reader(hub))
    for (const n of await commit(store, 20)) await hub.ingest(n)
    await Bun.sleep(50)
    const expected = Array.from({ length: 20 }, (_, i) => i + 1)
    for (const r of readers) expect(ids(r.text)).toEqual(expected)
    expect(hub.subscriberCount).toBe(1000)
    readers.forEach((r) => r.sub.close())
    expect(hub.subscriberCount).toBe(0)
  })

  test('a subscriber that does not read is dropped once its queue passes the bound', async () => {
    const { store, hub } = await setup()
    const stuck = new Subscriber(
      'p1',
      'hash',
      'native',
      () => true,
      {},
      (s) => hub.remove(s),
    )
    hub.add(stuck, undefined) // its response body is never read
    const live = reader(hub)
    let sent = 0
    while (!stuck.isClosed && sent < 100_000) {
      for (const n of await commit(store, 50)) await hub.ingest(n)
      sent += 50
    }
    expect(stuck.isClosed).toBe(true)
    // ~150 bytes per event: dropped after about MAX_QUEUED_BYTES of them, not after everything
    expect(sent * 100).toBeLessThan(MAX_QUEUED_BYTES * 4)
    expect(hub.subscriberCount).toBe(1)
    await Bun.sleep(20)
    expect(ids(live.text)).toHaveLength(sent)
  })

  test('replay after restart comes from the stored log; too old a point gets reset', async () => {
    const { store, hub } = await setup(3)
    for (const n of await commit(store, 6)) await hub.ingest(n)
    const again = new ChangeHub({
      store,
      replayLimit: 3,
      heartbeatMs: 60_000,
      log: () => {},
      applyToCache: async () => {},
      stillAllowed: () => true,
    })
    await again.start()
    hubs.push(again)
    expect(again.head('p1')).toBe(6)
    const resumed = reader(again, 4)
    const stale = reader(again, 1)
    await Bun.sleep(10)
    expect(ids(resumed.text)).toEqual([5, 6])
    expect(stale.text).toContain('event: reset\ndata: {"version":6}')
  })
})
