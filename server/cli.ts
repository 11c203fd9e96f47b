// Operator commands for when the API cannot help (no admin token left, a new project):
//   npm run cli -- projects list
//   npm run cli -- projects create --name "Shop" --slug shop
//   npm run cli -- tokens create --project <id or slug> --name ops --permissions '*'
//                    [--expires-at 2027-01-01T00:00:00Z] [--environment production]
//   npm run cli -- users create --email ops@example.com --name Ops --owner   (a lost owner: prints a one-time link)
//   npm run cli -- backup --to <file>     (a consistent copy of the live SQLite database)
//   npm run cli -- restore --from <file>  (with the service stopped)
// Uses DATABASE_URL like the server, and changes state only through the services, as the API does: one
// transaction per change with its audit entry (actor `cli`) and webhook deliveries (docs/behaviour.md §8).
// Running servers pick a new token up on its first use, see other changes at their next reconcile, and
// their webhook worker sends the deliveries queued here.
import { parseArgs } from 'node:util'
import { Snapshots } from './cache/snapshots'
import { loadSettings } from './settings'
import { openDatabase } from './store/database'
import { createStore } from './store'
import { createServices } from './services'
import { bootstrap, CLI_ACTOR } from './services/bootstrap'
import { AppError } from './errors'
import { ChangeBus } from './notices/changes'
import { backupSqlite, BackupError, PG_BACKUP_HINT, restoreSqlite, sqlitePath } from './store/backup'
import { StartupError } from './startup-errors'
import { createUserFromCli } from './identity/cli-users'

const USAGE = `usage:
  cli projects list
  cli projects create --name <name> --slug <slug>
  cli tokens create --project <project id or slug> --name <name> --permissions <p1,p2,...> [--expires-at <ISO 8601>] [--environment <name>]
  cli users create --email <email> --name <name> [--owner | --admin] [--password-stdin]
  cli backup --to <file>       a consistent copy of the SQLite database, while the service runs
  cli restore --from <file>    put a backup in place (refused while the service runs; the old file is kept)
permissions: read:flags, read:configs, write:flags, write:configs, *
users create: without --password-stdin, prints a one-time link (24 h) where the user sets a password`

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      to: { type: 'string' },
      from: { type: 'string' },
      name: { type: 'string' },
      slug: { type: 'string' },
      project: { type: 'string' },
      permissions: { type: 'string' },
      'expires-at': { type: 'string' },
      environment: { type: 'string' },
      email: { type: 'string' },
      owner: { type: 'boolean' },
      admin: { type: 'boolean' },
      'password-stdin': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  })
  const [resource, verb] = positionals
  if (values.help || !resource) {
    console.log(USAGE)
    return values.help ? 0 : 2
  }
  const settings = loadSettings()
  if (resource === 'backup' || resource === 'restore') return backupOrRestore(resource, settings.databaseUrl, values)
  const database = await openDatabase(settings.databaseUrl)
  const store = createStore(database)
  const services = createServices(store, new ChangeBus(), new Snapshots(store), settings)
  try {
    await bootstrap(store, settings.bootstrapToken)
    if (resource === 'projects' && verb === 'list') {
      for (const p of await store.projects.all(store.db)) console.log(`${p.id}\t${p.slug}\t${p.name}\t${p.environments.join(',')}`)
      return 0
    }
    if (resource === 'projects' && verb === 'create') {
      const p = await services.project.create(CLI_ACTOR, { name: values.name ?? '', slug: values.slug ?? '' })
      console.log(`created project ${p.id} (slug ${p.slug})`)
      return 0
    }
    if (resource === 'tokens' && verb === 'create') {
      // --project takes the project's id or its slug.
      const given = values.project ?? ''
      const project = (await store.projects.get(store.db, given)) ?? (await store.projects.bySlug(store.db, given))
      if (!project) throw new AppError(404, 'NOT_FOUND', `no project with id or slug "${given}" (see: cli projects list)`)
      const projectId = project.id
      const { token, row } = await services.tokens.create(
        { projectId, name: CLI_ACTOR },
        {
          name: values.name ?? '',
          project_id: projectId,
          permissions: (values.permissions ?? '')
            .split(',')
            .map((p) => p.trim())
            .filter(Boolean),
          expires_at: values['expires-at'] ?? null,
          // an environment key (docs/teams.md); a client key needs one
          environment: values.environment ?? null,
        },
      )
      console.log(`token (shown once, store it now): ${token}\nprefix: ${row.tokenPrefix}\nhash: ${row.hash}`)
      return 0
    }
    if (resource === 'users' && verb === 'create') {
      const password = values['password-stdin'] ? (await Bun.stdin.text()).replace(/\r?\n$/, '') : undefined
      const created = await createUserFromCli(store, settings, {
        email: values.email ?? '',
        name: values.name ?? '',
        instanceRole: values.owner ? 'owner' : values.admin ? 'admin' : 'member',
        password,
      })
      console.log(`created user ${created.email} (${created.instanceRole}, id ${created.id})`)
      if (created.resetUrl) console.log(`set a password within 24 hours (shown once, store it now): ${created.resetUrl}`)
      return 0
    }
    console.error(USAGE)
    return 2
  } catch (e) {
    if (e instanceof AppError) {
      console.error(`error: ${e.message}`)
      return 1
    }
    throw e
  } finally {
    await database.close()
  }
}

/** Backups work on the database file itself, not through the services: no change, no audit entry. */
function backupOrRestore(command: 'backup' | 'restore', databaseUrl: string, values: { to?: string; from?: string }): number {
  const path = sqlitePath(databaseUrl)
  if (!path) {
    console.error(`error: ${PG_BACKUP_HINT}`)
    return 2
  }
  const file = command === 'backup' ? values.to : values.from
  if (!file) {
    console.error(`error: ${command} needs ${command === 'backup' ? '--to' : '--from'} <file>\n${USAGE}`)
    return 2
  }
  try {
    if (command === 'backup') {
      const bytes = backupSqlite(path, file)
      console.log(`backed up ${path} to ${file} (${bytes} bytes)`)
    } else {
      const keptAs = restoreSqlite(file, path)
      console.log(
        `restored ${file} to ${path}${keptAs ? `; the database it replaced is kept as ${keptAs}` : ''}. ` +
          `Start the service: it migrates the restored database if it is older.`,
      )
    }
    return 0
  } catch (e) {
    if (!(e instanceof BackupError)) throw e
    console.error(`error: ${e.message}`)
    return 1
  }
}

try {
  process.exit(await main(process.argv.slice(2)))
} catch (e) {
  // The database could not be opened: the same one line the service prints (startup-errors.ts).
  if (!(e instanceof StartupError)) throw e
  console.error(`error: ${e.message}`)
  process.exit(1)
}
