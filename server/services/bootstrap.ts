// First start on an empty database: project `default`, its three environments and an admin token.
// Also the operator commands of the CLI (create project, create token, list projects).
import type { Store } from '../store'
import type { ProjectRow } from '../store/projects'
import { AppError, validationError } from './errors'
import { DEFAULT_ENVIRONMENTS } from './project'
import { ENV_PATTERN } from './keys'
import { insertToken } from './tokens'

export const CLI_ACTOR = 'cli'

/** Creates project `default` and its admin token when no project exists. Returns the plaintext token
 *  when one was generated (the caller prints it once), undefined otherwise. */
export async function bootstrap(store: Store, bootstrapToken: string | undefined): Promise<{ created: boolean; generatedToken?: string }> {
  if ((await store.projects.all(store.db)).length > 0) return { created: false }
  return store.transaction(async (tx) => {
    const now = new Date().toISOString()
    const project: ProjectRow = { id: 'default', name: 'Default', slug: 'default', environments: DEFAULT_ENVIRONMENTS, createdAt: now, updatedAt: now }
    await store.projects.insert(tx, project)
    const { token } = await insertToken({ store }, tx, { name: 'bootstrap admin', project_id: 'default', permissions: ['*'] }, bootstrapToken)
    await store.audit.insert(tx, {
      projectId: 'default', timestamp: now, actor: CLI_ACTOR, action: 'create', resourceType: 'project', resourceKey: 'default',
      before: null, after: { id: 'default', name: 'Default', slug: 'default', environments: DEFAULT_ENVIRONMENTS },
    })
    return { created: true, generatedToken: bootstrapToken ? undefined : token }
  })
}

function randomProjectId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'
  return Array.from(crypto.getRandomValues(new Uint8Array(10)), (b) => alphabet[b % 36]).join('')
}

export async function createProject(store: Store, input: { name: string; slug: string }): Promise<ProjectRow> {
  const issues: { path: string; message: string }[] = []
  if (!input.name || input.name.length > 200) issues.push({ path: 'name', message: 'must be 1 to 200 characters' })
  if (!ENV_PATTERN.test(input.slug ?? '')) issues.push({ path: 'slug', message: 'must match ^[a-z0-9][a-z0-9_-]{0,62}$' })
  if (issues.length) throw validationError(issues)
  return store.transaction(async (tx) => {
    if (await store.projects.bySlug(tx, input.slug)) throw new AppError(409, 'ALREADY_EXISTS', `Slug "${input.slug}" is taken`)
    const now = new Date().toISOString()
    const project: ProjectRow = { id: randomProjectId(), name: input.name, slug: input.slug, environments: DEFAULT_ENVIRONMENTS, createdAt: now, updatedAt: now }
    await store.projects.insert(tx, project)
    await store.audit.insert(tx, {
      projectId: project.id, timestamp: now, actor: CLI_ACTOR, action: 'create', resourceType: 'project', resourceKey: project.id,
      before: null, after: { id: project.id, name: project.name, slug: project.slug, environments: project.environments },
    })
    return project
  })
}
