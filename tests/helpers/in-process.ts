// The services wired as the composition root wires them (store, change bus, snapshots), over a fresh store of
// either dialect, for the suites that test services in process, without HTTP.
import { afterAll, beforeAll } from 'bun:test'
import { Snapshots } from '../../server/cache/snapshots'
import { createServices, type Services } from '../../server/services'
import { bootstrap } from '../../server/services/bootstrap'
import { AppError } from '../../server/errors'
import { ChangeBus, type ChangeNotice } from '../../server/notices/changes'
import { loadSettings } from '../../server/settings'
import { createStore, type Store } from '../../server/store'
import { openDatabase } from '../../server/store/database'
import { createTestDatabase, type TestDatabase } from './postgres'
import { tempSqliteUrl } from './temp'

export const DIALECTS = ['sqlite', 'postgres'] as const
export type Dialect = (typeof DIALECTS)[number]

/** The actor of the changes these suites make (the default project's admin token, by name). */
export const actor = { projectId: 'default', name: 'ff_defa_test' }

/** The AppError a call throws or rejects with (status and code); a failure if it succeeds. */
export async function refusal(call: () => unknown): Promise<{ status: number; code: string }> {
  try {
    await call()
  } catch (e) {
    if (e instanceof AppError) return { status: e.status, code: e.code }
    throw e
  }
  throw new Error('expected a refusal')
}

export interface InProcess {
  store: Store
  services: Services
  /** every change notice published, in order */
  notices: ChangeNotice[]
  /** how many audit entries the default project has */
  auditCount(): Promise<number>
}

/** Opens the store and services in the calling `describe`'s beforeAll and closes them in its afterAll; the
 *  fields of what it returns are set once beforeAll has run. */
export function inProcessServices(dialect: Dialect): InProcess {
  let pg: TestDatabase | undefined
  const fx = {
    notices: [] as ChangeNotice[],
    auditCount: async () => (await fx.store.audit.page(fx.store.db, 'default', {}, 1, 0)).total,
  } as InProcess
  beforeAll(async () => {
    pg = dialect === 'postgres' ? await createTestDatabase() : undefined
    fx.store = createStore(await openDatabase(pg?.url ?? tempSqliteUrl()))
    await bootstrap(fx.store, undefined)
    const bus = new ChangeBus()
    const snapshots = new Snapshots(fx.store)
    await snapshots.reconcile()
    bus.subscribe((n) => void fx.notices.push(n))
    fx.services = createServices(fx.store, bus, snapshots, loadSettings({}))
  })
  afterAll(async () => {
    await fx.store?.database.close()
    await pg?.drop()
  })
  return fx
}
