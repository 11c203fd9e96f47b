// Operator commands for when the API cannot help (no admin token left, a new project):
//   npm run cli -- projects list
//   npm run cli -- projects create --name "Shop" --slug shop
//   npm run cli -- tokens create --project <id> --name ops --permissions '*' [--expires-at 2027-01-01T00:00:00Z]
// Uses DATABASE_URL like the server. A running server picks new tokens up on first use.
import { parseArgs } from 'node:util'
import { loadSettings } from './settings'
import { openDatabase } from './store/database'
import { createStore } from './store'
import { bootstrap, CLI_ACTOR, createProject } from './services/bootstrap'
import { AppError } from './services/errors'
import { insertToken } from './services/tokens'

const USAGE = `usage:
  cli projects list
  cli projects create --name <name> --slug <slug>
  cli tokens create --project <project id> --name <name> --permissions <p1,p2,...> [--expires-at <ISO 8601>]
permissions: read:flags, read:configs, write:flags, write:configs, *`

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { name: { type: 'string' }, slug: { type: 'string' }, project: { type: 'string' }, permissions: { type: 'string' }, 'expires-at': { type: 'string' }, help: { type: 'boolean' } },
  })
  const [resource, verb] = positionals
  if (values.help || !resource) {
    console.log(USAGE)
    return values.help ? 0 : 2
  }
  const settings = loadSettings()
  const database = await openDatabase(settings.databaseUrl)
  const store = createStore(database)
  try {
    await bootstrap(store, settings.bootstrapToken)
    if (resource === 'projects' && verb === 'list') {
      for (const p of await store.projects.all(store.db)) console.log(`${p.id}\t${p.slug}\t${p.name}\t${p.environments.join(',')}`)
      return 0
    }
    if (resource === 'projects' && verb === 'create') {
      const p = await createProject(store, { name: values.name ?? '', slug: values.slug ?? '' })
      console.log(`created project ${p.id} (slug ${p.slug})`)
      return 0
    }
    if (resource === 'tokens' && verb === 'create') {
      const projectId = values.project ?? ''
      if (!(await store.projects.get(store.db, projectId))) throw new AppError(404, 'NOT_FOUND', `no project with id "${projectId}" (see: cli projects list)`)
      const { token, row } = await store.transaction(async (tx) => {
        const created = await insertToken({ store }, tx, {
          name: values.name ?? '', project_id: projectId,
          permissions: (values.permissions ?? '').split(',').map((p) => p.trim()).filter(Boolean),
          expires_at: values['expires-at'] ?? null,
        })
        await store.audit.insert(tx, {
          projectId, timestamp: new Date().toISOString(), actor: CLI_ACTOR, action: 'create', resourceType: 'token', resourceKey: created.row.tokenPrefix,
          before: null, after: { name: created.row.name, token_prefix: created.row.tokenPrefix, project_id: projectId, permissions: created.row.permissions, expires_at: created.row.expiresAt, created_at: created.row.createdAt },
        })
        return created
      })
      console.log(`token (shown once, store it now): ${token}\nprefix: ${row.tokenPrefix}\nhash: ${row.hash}`)
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

process.exit(await main(process.argv.slice(2)))
