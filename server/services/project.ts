// Projects: creating one (the CLI; the first is made by bootstrap) and the caller's name, slug and environment list.
import type { Db } from '../store'
import type { DocumentRepository, DocumentRow, StoredBody } from '../store/documents'
import type { ProjectRow } from '../store/projects'
import type { RecordChange } from './change-runner'
import type { Actor, ServiceDeps } from './context'
import { by } from './context'
import { notFound, validationError, alreadyExists, limitReached, inUse, conflict, invalid } from '../errors'
import { displayNameIssue, ENV_PATTERN } from './keys'
import { configKind, flagKind, type DocumentKind } from '../kinds'
import { eventKind } from '../store/vocabulary/changes'
import { revokeToken } from './tokens'

const MAX_ENVIRONMENTS = 100
export const DEFAULT_ENVIRONMENTS = ['development', 'staging', 'production']

/** Project ids other than `default`: 10 random characters of [a-z0-9]. */
function randomProjectId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'
  return Array.from(crypto.getRandomValues(new Uint8Array(10)), (b) => alphabet[b % 36]).join('')
}

export const projectView = (p: ProjectRow) => ({ id: p.id, name: p.name, slug: p.slug, environments: p.environments })
const eventData = (p: ProjectRow) => ({ name: p.name, slug: p.slug, environments: p.environments })

/** The bodies with environment overrides (flags, configs). */
type Overridden = StoredBody & { environments?: Record<string, unknown> }

export function projectService({ store, changes }: ServiceDeps) {
  async function mustGet(tx: Db, id: string): Promise<ProjectRow> {
    const p = await store.projects.get(tx, id)
    if (!p) throw notFound('NOT_FOUND', 'Project')
    return p
  }

  async function save(tx: Db, record: RecordChange, actor: Actor, before: ProjectRow, changes_: Partial<ProjectRow>): Promise<ProjectRow> {
    const after: ProjectRow = { ...before, ...changes_, updatedAt: new Date().toISOString() }
    await store.projects.update(tx, before.id, {
      name: after.name,
      slug: after.slug,
      environments: after.environments,
      updatedAt: after.updatedAt,
    })
    await record({
      projectId: actor.projectId,
      ...by(actor),
      action: 'update',
      resourceType: 'project',
      resourceKey: before.id,
      before: projectView(before),
      after: projectView(after),
      event: { kind: 'project.updated', environment: '', data: eventData(after) },
    })
    return after
  }

  /** Drops one environment's override from a flag or config, as a normal versioned, audited update. */
  async function dropOverride<Body extends Overridden>(
    tx: Db,
    record: RecordChange,
    actor: Actor,
    { type: kind, view, eventData: data }: DocumentKind<'flag' | 'config', Body>,
    repo: DocumentRepository<Body>,
    row: DocumentRow<Body>,
    env: string,
  ) {
    const { [env]: _gone, ...rest } = row.body.environments ?? {}
    const updated = await repo.update(
      tx,
      actor.projectId,
      row.key,
      { ...row.body, environments: rest },
      row.version,
      new Date().toISOString(),
    )
    if (!updated) throw conflict('CONFLICT', `${kind} "${row.key}" changed concurrently; retry`)
    await record({
      projectId: actor.projectId,
      ...by(actor),
      action: 'update',
      resourceType: kind,
      resourceKey: row.key,
      before: view(row),
      after: view(updated),
      event: { kind: eventKind(kind, 'update'), environment: env, data: data(updated) },
    })
  }

  return {
    get: (id: string) => mustGet(store.db, id),

    /** A new project with the default environments (operators, through the CLI); audited in the new project. */
    /** A new project (operators through the CLI, instance admins through the API); audited in the new
     *  project, and by `alsoInTx` (the instance audit) in the same transaction. */
    create(
      actorName: string,
      input: { name: string; slug: string; environments?: string[] },
      alsoInTx?: (tx: Db, project: ProjectRow) => Promise<void>,
    ): Promise<ProjectRow> {
      const issues = [displayNameIssue(input.name)].filter((i) => i !== undefined)
      if (typeof input.slug !== 'string' || !ENV_PATTERN.test(input.slug))
        issues.push({ path: 'slug', message: 'must match ^[a-z0-9][a-z0-9_-]{0,62}$' })
      const environments = input.environments ?? DEFAULT_ENVIRONMENTS
      if (!Array.isArray(environments) || environments.length > 50)
        issues.push({ path: 'environments', message: 'must be a list of at most 50 names' })
      else
        environments.forEach((e, i) => {
          if (typeof e !== 'string' || !ENV_PATTERN.test(e))
            issues.push({ path: `environments[${i}]`, message: 'must match ^[a-z0-9][a-z0-9_-]{0,62}$' })
        })
      if (issues.length) throw validationError(issues)
      return changes.run(async (tx, record) => {
        if (await store.projects.bySlug(tx, input.slug)) throw alreadyExists(`Slug "${input.slug}" is taken`)
        const now = new Date().toISOString()
        const project: ProjectRow = {
          id: randomProjectId(),
          name: input.name,
          slug: input.slug,
          environments: [...new Set(environments)],
          createdAt: now,
          updatedAt: now,
        }
        await store.projects.insert(tx, project)
        await record({
          projectId: project.id,
          actor: actorName,
          action: 'create',
          resourceType: 'project',
          resourceKey: project.id,
          before: null,
          after: projectView(project),
        })
        await alsoInTx?.(tx, project)
        return project
      })
    },

    /** Deletes a project and everything in it; `confirm` must be its slug. Its own audit log goes with it,
     *  so `alsoInTx` records the deletion elsewhere (the instance audit). */
    delete(
      actorName: string,
      id: string,
      confirm: string | undefined,
      alsoInTx: (tx: Db, project: ProjectRow) => Promise<void>,
    ): Promise<ProjectRow> {
      return changes.run(async (tx, record) => {
        const project = await store.projects.get(tx, id)
        if (!project) throw notFound('PROJECT_NOT_FOUND', 'Project')
        if (confirm !== project.slug)
          throw invalid('CONFIRMATION_REQUIRED', `Send ?confirm=${project.slug} to delete this project and everything in it`, {
            slug: project.slug,
          })
        await store.projects.deleteEverything(tx, id)
        await alsoInTx(tx, project)
        // Its notice (every instance reloads the project, finds it gone and drops it with its tokens) is
        // published after commit; this one entry is all that stays of the project's log.
        await record({
          projectId: id,
          actor: actorName,
          action: 'delete',
          resourceType: 'project',
          resourceKey: id,
          before: projectView(project),
          after: null,
        })
        return project
      })
    },

    update(actor: Actor, input: { name?: string; slug?: string }) {
      const issues: { path: string; message: string }[] = []
      const nameIssue = input.name === undefined ? undefined : displayNameIssue(input.name)
      if (nameIssue) issues.push(nameIssue)
      if (input.slug !== undefined && (typeof input.slug !== 'string' || !ENV_PATTERN.test(input.slug)))
        issues.push({ path: 'slug', message: 'must match ^[a-z0-9][a-z0-9_-]{0,62}$' })
      if (issues.length) throw validationError(issues)
      return changes.run(async (tx, record) => {
        const before = await mustGet(tx, actor.projectId)
        if (input.slug !== undefined && input.slug !== before.slug) {
          const other = await store.projects.bySlug(tx, input.slug)
          if (other) throw alreadyExists(`Slug "${input.slug}" is taken`)
        }
        return save(tx, record, actor, before, {
          ...(input.name !== undefined && { name: input.name }),
          ...(input.slug !== undefined && { slug: input.slug }),
        })
      })
    },

    addEnvironment(actor: Actor, name: string) {
      if (typeof name !== 'string' || !ENV_PATTERN.test(name))
        throw validationError([{ path: 'name', message: 'must match ^[a-z0-9][a-z0-9_-]{0,62}$' }])
      return changes.run(async (tx, record) => {
        const before = await mustGet(tx, actor.projectId)
        if (before.environments.includes(name)) throw alreadyExists(`Environment "${name}" already exists`)
        if (before.environments.length >= MAX_ENVIRONMENTS) throw limitReached(`A project holds at most ${MAX_ENVIRONMENTS} environments`)
        return save(tx, record, actor, before, { environments: [...before.environments, name] })
      })
    },

    /** 409 IN_USE while flag or config overrides use the environment, or keys are bound to it; with force
     *  the overrides are removed and those keys revoked first, in the same transaction. */
    removeEnvironment(actor: Actor, name: string, force: boolean) {
      return changes.run(async (tx, record) => {
        const before = await mustGet(tx, actor.projectId)
        if (!before.environments.includes(name)) throw notFound('NOT_FOUND', `Environment "${name}"`)
        const flags = (await store.flags.all(tx, actor.projectId)).filter((r) => r.body.environments?.[name] !== undefined)
        const configs = (await store.configs.all(tx, actor.projectId)).filter((r) => r.body.environments?.[name] !== undefined)
        const keys = (await store.tokens.byProject(tx, actor.projectId)).filter((t) => t.environment === name)
        if ((flags.length || configs.length || keys.length) && !force) {
          throw inUse(`Environment "${name}" has overrides or keys bound to it; remove them or pass ?force=true`, {
            flags: flags.map((f) => f.key),
            configs: configs.map((c) => c.key),
            tokens: keys.map((k) => ({ name: k.name, token_prefix: k.tokenPrefix })),
          })
        }
        for (const k of keys) await revokeToken({ store }, tx, record, actor, k, `environment "${name}" removed`)
        for (const f of flags) await dropOverride(tx, record, actor, flagKind, store.flags, f, name)
        for (const c of configs) await dropOverride(tx, record, actor, configKind, store.configs, c, name)
        return save(tx, record, actor, before, { environments: before.environments.filter((e) => e !== name) })
      })
    },
  }
}
export type ProjectService = ReturnType<typeof projectService>
