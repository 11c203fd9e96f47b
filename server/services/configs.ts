// Configs: JSON values with per-environment overrides, versioned like flags.
import { checkJsonLimits, type Json } from '../engine'
import type { Db } from '../store'
import type { DocumentRow } from '../store/documents'
import type { RecordChange } from './change-runner'
import type { Actor, ServiceDeps } from './context'
import { AppError, notFound, validationError, versionConflict } from './errors'
import { checkIfMatch, checkKey } from './keys'

interface ConfigBody {
  value: Json
  environments?: Record<string, { value: Json }>
}

export function configView(row: DocumentRow) {
  const b = row.body as unknown as ConfigBody
  return { value: b.value, environments: b.environments ?? {}, version: row.version, created_at: row.createdAt, updated_at: row.updatedAt }
}
/** The `data` of this resource's webhook events. */
export const configEventData = (row: DocumentRow) => ({ value: (row.body as unknown as ConfigBody).value, version: row.version })

/** The value a config has in one environment (the override's, else the base value). */
export function configValue(row: DocumentRow, environment: string | undefined): Json {
  const b = row.body as unknown as ConfigBody
  // Own properties only: an environment named `constructor` must not find Object.prototype's.
  const o = environment !== undefined && b.environments && Object.hasOwn(b.environments, environment) ? b.environments[environment] : undefined
  return o ? o.value : b.value
}

export function configService({ store, changes }: ServiceDeps) {
  async function validate(tx: Db, projectId: string, body: ConfigBody): Promise<void> {
    const issues = checkJsonLimits(body.value, 'value')
    const envs = new Set((await store.projects.get(tx, projectId))?.environments ?? [])
    for (const [env, o] of Object.entries(body.environments ?? {})) {
      if (!envs.has(env)) issues.push({ path: `environments.${env}`, message: `unknown environment "${env}"` })
      else if (o === null || typeof o !== 'object' || !('value' in o)) issues.push({ path: `environments.${env}`, message: 'must be an object { value }' })
      else issues.push(...checkJsonLimits(o.value, `environments.${env}.value`))
    }
    if (issues.length) throw validationError(issues)
  }

  /** The stored row; inside a change's transaction it is locked until commit (see getForUpdate). */
  async function mustGet(tx: Db, projectId: string, key: string, forUpdate = true): Promise<DocumentRow> {
    const row = await (forUpdate ? store.configs.getForUpdate(tx, projectId, key) : store.configs.get(tx, projectId, key))
    if (!row) throw notFound('CONFIG_NOT_FOUND', `Config "${key}"`)
    return row
  }

  async function write(tx: Db, record: RecordChange, actor: Actor, current: DocumentRow, body: ConfigBody, environment: string) {
    await validate(tx, actor.projectId, body)
    const updated = await store.configs.update(tx, actor.projectId, current.key, body as unknown as DocumentRow['body'], current.version, new Date().toISOString())
    if (!updated) throw versionConflict((await mustGet(tx, actor.projectId, current.key)).version)
    await record({
      projectId: actor.projectId, actor: actor.name, action: 'update', resourceType: 'config', resourceKey: current.key,
      before: configView(current), after: configView(updated), event: { kind: 'config.updated', environment, data: configEventData(updated) },
    })
    return updated
  }

  return {
    page: (projectId: string, limit: number, offset: number) => store.configs.page(store.db, projectId, limit, offset),
    get: (projectId: string, key: string) => mustGet(store.db, projectId, key, false),

    create(actor: Actor, input: { key: string; value: Json; environments?: Record<string, { value: Json }> }) {
      const key = checkKey(input.key)
      const body: ConfigBody = { value: input.value, ...(input.environments ? { environments: input.environments } : {}) }
      return changes.run(async (tx, record) => {
        await validate(tx, actor.projectId, body)
        if (await store.configs.get(tx, actor.projectId, key)) throw new AppError(409, 'ALREADY_EXISTS', `Config "${key}" already exists`)
        const now = new Date().toISOString()
        const row: DocumentRow = { projectId: actor.projectId, key, body: body as unknown as DocumentRow['body'], version: 1, createdAt: now, updatedAt: now }
        await store.configs.insert(tx, row)
        await record({
          projectId: actor.projectId, actor: actor.name, action: 'create', resourceType: 'config', resourceKey: key,
          before: null, after: configView(row), event: { kind: 'config.created', environment: '', data: configEventData(row) },
        })
        return row
      })
    },

    update(actor: Actor, key: string, input: { value?: Json; environments?: Record<string, { value: Json }> | null }, ifMatch: number | undefined) {
      return changes.run(async (tx, record) => {
        const current = await mustGet(tx, actor.projectId, key)
        checkIfMatch(ifMatch, current.version)
        const body = { ...(current.body as unknown as ConfigBody) }
        if (input.value !== undefined) body.value = input.value
        if (input.environments === null) delete body.environments
        else if (input.environments !== undefined) body.environments = input.environments
        return write(tx, record, actor, current, body, '')
      })
    },

    delete(actor: Actor, key: string) {
      return changes.run(async (tx, record) => {
        const current = await mustGet(tx, actor.projectId, key)
        await store.configs.delete(tx, actor.projectId, key)
        await record({
          projectId: actor.projectId, actor: actor.name, action: 'delete', resourceType: 'config', resourceKey: key,
          before: configView(current), after: null, event: { kind: 'config.deleted', environment: '', data: configEventData(current) },
        })
      })
    },

    putOverride(actor: Actor, key: string, environment: string, value: Json, ifMatch?: number) {
      return changes.run(async (tx, record) => {
        const current = await mustGet(tx, actor.projectId, key)
        checkIfMatch(ifMatch, current.version)
        const body = current.body as unknown as ConfigBody
        return write(tx, record, actor, current, { ...body, environments: { ...(body.environments ?? {}), [environment]: { value } } }, environment)
      })
    },

    deleteOverride(actor: Actor, key: string, environment: string, ifMatch?: number) {
      return changes.run(async (tx, record) => {
        const current = await mustGet(tx, actor.projectId, key)
        checkIfMatch(ifMatch, current.version)
        const body = current.body as unknown as ConfigBody
        if (!body.environments || !Object.hasOwn(body.environments, environment)) throw notFound('NOT_FOUND', `Override for environment "${environment}" on config "${key}"`)
        const { [environment]: _removed, ...rest } = body.environments
        return write(tx, record, actor, current, { ...body, environments: rest }, environment)
      })
    },
  }
}
export type ConfigService = ReturnType<typeof configService>
