// The release plans' repository on both stores: the monitor's lease goes to one instance until it lapses
// (or is released), and a plan's row changes only from the state the writer read (compare-and-set), so a
// second writer from the same state changes nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { openDatabase } from '../../server/store/database'
import { createStore, type Store } from '../../server/store'
import type { ReleasePlanRow } from '../../server/store/release-plans'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'
import { requireServices } from '../helpers/requirements'
import { tempSqliteUrl } from '../helpers/temp'

const pgReady = await requireServices({ postgres: true })
const at = (ms: number) => new Date(Date.UTC(2026, 10, 28, 12, 0, 0, ms)).toISOString()

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe.skipIf(dialect === 'postgres' && !pgReady)(`release plans: ${dialect}`, () => {
    let store: Store
    let pg: TestDatabase | undefined
    const row: ReleasePlanRow = {
      id: 'rp1',
      projectId: 'p1',
      flagKey: 'f',
      environment: 'prod',
      state: 'running',
      currentStep: 1,
      phase: 1,
      stepStartedAt: at(0),
      body: {
        steps: [
          { percentage: 10, hold_minutes: 1 },
          { percentage: 100, hold_minutes: 1 },
        ],
        guardrails: [],
        min_units: 100,
        on_regression: 'rollback',
        attribute: 'user_id',
      },
      status: { checked_at: null, units: { treatment: 0, control: 0 }, srm_p_value: null, guardrails: [], reason: null },
      pendingChangeRequest: null,
      claimedBy: null,
      claimedUntil: null,
      createdAt: at(0),
      updatedAt: at(0),
    }
    beforeAll(async () => {
      pg = dialect === 'postgres' ? await createTestDatabase() : undefined
      store = createStore(await openDatabase(pg?.url ?? tempSqliteUrl()))
      await store.transaction((tx) => store.releasePlans.insert(tx, row))
    })
    afterAll(async () => {
      await store?.database.close()
      await pg?.drop()
    })

    test('the lease: one holder until it lapses; the holder renews it', async () => {
      const claim = (who: string, now: number, until: number) =>
        store.transaction((tx) => store.releasePlans.claim(tx, 'rp1', who, at(now), at(until)))
      expect((await claim('A', 0, 3000))?.claimedBy).toBe('A')
      expect(await claim('B', 1000, 4000)).toBeUndefined()
      expect((await store.releasePlans.claimable(store.db, 'B', at(1000))).map((r) => r.id)).toEqual([])
      expect((await claim('A', 2000, 5000))?.claimedUntil).toBe(at(5000))
      expect((await store.releasePlans.claimable(store.db, 'B', at(6000))).map((r) => r.id)).toEqual(['rp1'])
      expect((await claim('B', 6000, 9000))?.claimedBy).toBe('B')
      expect(await claim('A', 7000, 9000)).toBeUndefined()
    })

    test('compare-and-set: a second writer from the same state changes nothing', async () => {
      const before = (await store.releasePlans.get(store.db, 'p1', 'rp1'))!
      const advanced = { ...before, currentStep: 2, phase: 2, updatedAt: at(10_000) }
      expect(await store.transaction((tx) => store.releasePlans.replace(tx, before, advanced))).toBe(true)
      expect(
        await store.transaction((tx) => store.releasePlans.replace(tx, before, { ...before, state: 'paused', updatedAt: at(10_001) })),
      ).toBe(false)
      expect(await store.releasePlans.get(store.db, 'p1', 'rp1')).toMatchObject({ state: 'running', currentStep: 2 })
    })
  })
}
