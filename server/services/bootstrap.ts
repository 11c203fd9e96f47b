// First start on an empty database: project `default`, its three environments and an admin token.
import type { Store } from '../store'
import type { ProjectRow } from '../store/projects'
import { DEFAULT_ENVIRONMENTS } from './project'
import { insertToken } from './tokens'

export const CLI_ACTOR = 'cli'

/** Creates project `default` and its admin token when no project exists. Returns the plaintext token
 *  when one was generated (the caller prints it once), undefined otherwise. */
export async function bootstrap(store: Store, bootstrapToken: string | undefined): Promise<{ created: boolean; generatedToken?: string }> {
  if ((await store.projects.all(store.db)).length > 0) return { created: false }
  return store.transaction(async (tx) => {
    const now = new Date().toISOString()
    const project: ProjectRow = {
      id: 'default',
      name: 'Default',
      slug: 'default',
      environments: DEFAULT_ENVIRONMENTS,
      createdAt: now,
      updatedAt: now,
    }
    await store.projects.insert(tx, project)
    const { token } = await insertToken(
      { store },
      tx,
      { name: 'bootstrap admin', project_id: 'default', permissions: ['*'] },
      bootstrapToken,
    )
    await store.audit.insert(tx, {
      projectId: 'default',
      timestamp: now,
      actor: CLI_ACTOR,
      action: 'create',
      resourceType: 'project',
      resourceKey: 'default',
      before: null,
      after: { id: 'default', name: 'Default', slug: 'default', environments: DEFAULT_ENVIRONMENTS },
    })
    return { created: true, generatedToken: bootstrapToken ? undefined : token }
  })
}
