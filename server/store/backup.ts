// `cli backup` / `cli restore` for the embedded SQLite store (docs/operations.md). A backup is VACUUM INTO:
// SQLite writes a consistent copy of the database as one transaction sees it, while the service keeps
// serving and writing (WAL), so no stop is needed. A restore needs the service stopped (refused while the
// service holds the database's lock, service-lock.ts): it checks the file is a sound Flagship database, then
// puts it in place, keeping what it replaces beside it.
// PostgreSQL has its own tools (pg_dump / pg_restore), which the CLI names instead.
import { Database } from 'bun:sqlite'
import { copyFileSync, existsSync, renameSync, rmSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { acquireServiceLock, serviceLockPath } from './service-lock'

export class BackupError extends Error {}

/** The file path of a `sqlite:` DATABASE_URL; undefined for PostgreSQL. */
export function sqlitePath(databaseUrl: string): string | undefined {
  return databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length) : undefined
}

/** A consistent copy of the live database at `to` (which must not exist yet). Returns its size in bytes. */
export function backupSqlite(path: string, to: string): number {
  if (!existsSync(path)) throw new BackupError(`no database at ${path} (check DATABASE_URL)`)
  if (existsSync(to)) throw new BackupError(`${to} already exists: choose a new file name (a backup never overwrites)`)
  if (!existsSync(dirname(resolve(to)))) throw new BackupError(`the folder of ${to} does not exist`)
  const db = new Database(path, { readonly: true })
  try {
    db.exec('PRAGMA busy_timeout = 5000')
    db.query('VACUUM INTO ?').run(resolve(to))
  } finally {
    db.close()
  }
  checkFlagshipDatabase(to)
  return Bun.file(to).size
}

/** Throws unless `file` is an intact SQLite database holding Flagship's tables. */
export function checkFlagshipDatabase(file: string): void {
  let db: Database
  try {
    db = new Database(file, { readonly: true })
  } catch (e) {
    throw new BackupError(`${file} is not a SQLite database (${(e as Error).message})`)
  }
  try {
    const integrity = db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').all()
    if (integrity.length !== 1 || integrity[0]!.integrity_check !== 'ok')
      throw new BackupError(`${file} is damaged: ${integrity.map((r) => r.integrity_check).join('; ')}`)
    const tables = new Set(
      db
        .query<{ name: string }, []>("select name from sqlite_master where type = 'table'")
        .all()
        .map((r) => r.name),
    )
    for (const needed of ['__drizzle_migrations', 'projects', 'flags', 'tokens']) {
      if (!tables.has(needed)) throw new BackupError(`${file} is not a Flagship database (it has no ${needed} table)`)
    }
  } catch (e) {
    if (e instanceof BackupError) throw e
    throw new BackupError(`${file} is not a SQLite database (${(e as Error).message})`)
  } finally {
    db.close()
  }
}

/** Puts the backup `from` in place of the database at `path` (the service must be stopped). What was there
 *  is kept as <path>.before-restore-<time> and returned; the restored database is migrated by the next start. */
export function restoreSqlite(from: string, path: string, now = new Date()): string | undefined {
  if (!existsSync(from)) throw new BackupError(`no backup at ${from}`)
  checkFlagshipDatabase(from)
  // The running service holds this lock (service-lock.ts): replacing the file under it would lose every
  // write it acknowledges from here on. Held through the restore, it also keeps a service from starting
  // on a half-restored file.
  if (!existsSync(dirname(resolve(path)))) throw new BackupError(`the folder of ${path} does not exist (check DATABASE_URL)`)
  const lock = acquireServiceLock(path)
  if (lock === undefined) {
    throw new BackupError(
      `a running Flagship service is using ${path} (it holds ${serviceLockPath(path)}); nothing was changed. ` +
        'Stop the service first (systemctl stop flagship, or Ctrl-C where it runs), then restore again',
    )
  }
  try {
    return replaceDatabase(from, path, now)
  } finally {
    lock.release()
  }
}

function replaceDatabase(from: string, path: string, now: Date): string | undefined {
  const staged = `${path}.restoring`
  copyFileSync(from, staged)
  let keptAs: string | undefined
  if (existsSync(path)) {
    keptAs = `${path}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`
    // The write-ahead log belongs to the database it sits beside: both move aside together.
    renameSync(path, keptAs)
    for (const suffix of ['-wal', '-shm']) if (existsSync(path + suffix)) renameSync(path + suffix, keptAs + suffix)
  }
  renameSync(staged, path)
  for (const suffix of ['-wal', '-shm']) rmSync(path + suffix, { force: true })
  return keptAs
}

export const PG_BACKUP_HINT =
  'PostgreSQL is backed up with its own tools: pg_dump --format=custom --file=flags.dump "$DATABASE_URL" ' +
  '(restore: pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" flags.dump); see docs/operations.md'
