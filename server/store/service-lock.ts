// Which process owns a SQLite database: the running service holds an exclusive lock on `<database>.lock`
// (a small SQLite file of its own, in a write transaction left open) for as long as it runs. The operating
// system drops the lock when the process ends, however it ends (a crash or SIGKILL leave nothing stale), so
// "held" always means "a live process holds it". `restore` takes the same lock (refusing while the service
// runs: the service would keep writing to the file it replaced, and acknowledged writes would be gone after
// the next start), and a second service on the same file is refused at start.
import { Database } from 'bun:sqlite'
import { StartupError } from '../startup-errors'

export const serviceLockPath = (databasePath: string): string => `${databasePath}.lock`

export interface ServiceLock {
  release(): void
}

/** Takes the lock of the SQLite database at `databasePath`; undefined when a live process holds it. */
export function acquireServiceLock(databasePath: string): ServiceLock | undefined {
  const db = new Database(serviceLockPath(databasePath), { create: true })
  try {
    db.run('PRAGMA busy_timeout = 0')
    db.run('CREATE TABLE IF NOT EXISTS holder (since TEXT)')
    // An exclusive write transaction never committed: no other connection can read or write the file.
    db.run('BEGIN EXCLUSIVE')
    db.run('INSERT INTO holder VALUES (?)', [new Date().toISOString()])
  } catch (e) {
    db.close()
    if ((e as { code?: string }).code === 'SQLITE_BUSY' || /locked/.test((e as Error).message)) return undefined
    throw e
  }
  return {
    release() {
      try {
        db.run('ROLLBACK')
      } finally {
        db.close()
      }
    },
  }
}

/** The service's lock for DATABASE_URL (none for PostgreSQL or an in-memory database); a StartupError when
 *  another live process holds it. */
export function lockServiceDatabase(databaseUrl: string): ServiceLock | undefined {
  if (!databaseUrl.startsWith('sqlite:')) return undefined
  const path = databaseUrl.slice('sqlite:'.length)
  if (path === ':memory:' || path === '') return undefined
  let lock: ServiceLock | undefined
  try {
    lock = acquireServiceLock(path)
  } catch {
    return undefined // the folder is not writable: openDatabase explains that in its own words
  }
  if (lock === undefined)
    throw new StartupError(
      `another Flagship process (a running service, or a restore) is using the SQLite database ${path} ` +
        `(it holds ${serviceLockPath(path)}): stop it first, or point DATABASE_URL at another file`,
    )
  return lock
}
