// Configs: JSON values with per-environment overrides; the versioned-document operations
// (versioned-documents.ts) plus the config's own body rules.
import { checkJsonLimits, configValue as valueIn, labelIssue, typeOf, type ConfigDefinition, type Json } from '../engine'
import type { Db } from '../store'
import type { DocumentRow } from '../store/documents'
import type { Actor, ServiceDeps } from './context'
import { validationError } from '../errors'
import { versionedDocuments } from './versioned-documents'
import type { RecordChange } from './change-runner'
import { unsupportedAction, type DocumentOp } from './change-request-types'

type ConfigBody = ConfigDefinition

export function configView(row: DocumentRow) {
  const b = row.body as unknown as ConfigBody
  return { value: b.value, environments: b.environments ?? {}, version: row.version, created_at: row.createdAt, updated_at: row.updatedAt }
}
/** The `data` of this resource's webhook events. */
export const configEventData = (row: DocumentRow) => ({ value: (row.body as unknown as ConfigBody).value, version: row.version })

/** The value a config has in one environment (the override's, else the base value). */
export const configValue = (row: DocumentRow, environment: string | undefined): Json => valueIn(row.body as unknown as ConfigBody, environment)

export function configService({ store, changes }: Pick<ServiceDeps, 'store' | 'changes'>) {
  async function validate(tx: Db, projectId: string, body: ConfigBody): Promise<void> {
    const issues = checkJsonLimits(body.value, 'value')
    const envs = new Set((await store.projects.get(tx, projectId))?.environments ?? [])
    for (const [env, o] of Object.entries(body.environments ?? {})) {
      if (!envs.has(env)) issues.push({ path: `environments.${env}`, message: `unknown environment "${env}"` })
      else if (o === null || typeof o !== 'object' || !('value' in o)) issues.push({ path: `environments.${env}`, message: 'must be an object { value }' })
      else {
        issues.push(...checkJsonLimits(o.value, `environments.${env}.value`))
        // An environment's value has the config's type, as a flag's do (null, the explicit "nothing",
        // goes anywhere): a client reading a number must not get a string in production.
        const type = typeOf(body.value)
        if (type !== 'null' && o.value !== null && typeOf(o.value) !== type) {
          issues.push(labelIssue({ path: `environments.${env}.value`, message: `must be ${type === 'object' || type === 'array' ? 'an' : 'a'} ${type}, like the config's value` }))
        }
      }
    }
    if (issues.length) throw validationError(issues)
  }

  const docs = versionedDocuments<ConfigBody>({ store, changes }, {
    type: 'config', label: 'Config', notFoundCode: 'CONFIG_NOT_FOUND', repository: store.configs,
    view: configView, eventData: configEventData, validate: (tx, projectId, _key, body) => validate(tx, projectId, body),
  })

  const updateStep = (input: { value?: Json; environments?: Record<string, { value: Json }> | null }) => (stored: ConfigBody): ConfigBody => {
    const body = { ...stored }
    if (input.value !== undefined) body.value = input.value
    if (input.environments === null) delete body.environments
    else if (input.environments !== undefined) body.environments = input.environments
    return body
  }
  const createBody = (input: { value: Json; environments?: Record<string, { value: Json }> }): ConfigBody =>
    ({ value: input.value, ...(input.environments ? { environments: input.environments } : {}) })
  const overrideStep = (environment: string, value: Json) => (body: ConfigBody): ConfigBody => ({ ...body, environments: { ...(body.environments ?? {}), [environment]: { value } } })

  return {
    page: docs.page,
    /** A change request's item (services/change-requests.ts), inside its apply transaction. */
    async opIn(tx: Db, record: RecordChange, actor: Actor, op: DocumentOp): Promise<DocumentRow | null> {
      const { key, body, ifMatch } = op
      switch (op.action) {
        case 'create': return docs.createIn(tx, record, actor, key, createBody(body as { value: Json }))
        case 'update': return docs.updateIn(tx, record, actor, key, ifMatch, updateStep(body))
        case 'delete':
          await docs.deleteIn(tx, record, actor, key)
          return null
        case 'set_override': return docs.updateIn(tx, record, actor, key, ifMatch, overrideStep(op.environment!, body.value as Json), { environment: op.environment! })
        case 'delete_override': return docs.deleteOverrideIn(tx, record, actor, key, op.environment!, ifMatch)
        default: throw validationError([unsupportedAction('config', op.action)])
      }
    },
    get: docs.get,
    delete: (actor: Actor, key: string) => docs.delete(actor, key),
    deleteOverride: docs.deleteOverride,

    create(actor: Actor, input: { key: string; value: Json; environments?: Record<string, { value: Json }> }) {
      return docs.create(actor, input.key, createBody(input))
    },

    update(actor: Actor, key: string, input: { value?: Json; environments?: Record<string, { value: Json }> | null }, ifMatch: number | undefined) {
      return docs.update(actor, key, ifMatch, updateStep(input))
    },

    putOverride(actor: Actor, key: string, environment: string, value: Json, ifMatch?: number) {
      return docs.update(actor, key, ifMatch, overrideStep(environment, value), { environment })
    },
  }
}
export type ConfigService = ReturnType<typeof configService>
