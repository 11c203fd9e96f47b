// Configs: JSON values with per-environment overrides; the versioned-document operations
// (versioned-documents.ts) plus the config's own body rules.
import { checkJsonLimits, configValue as valueIn, labelIssue, typeOf, type Json } from '../engine'
import type { ConfigCreateInput, ConfigPatchInput } from '../schemas'
import type { Db } from '../store'
import type { DocumentRow } from '../store/documents'
import { configKind, type ConfigBody } from '../kinds'
import type { Actor, ServiceDeps } from './context'
import { validationError } from '../errors'
import { versionedDocuments } from './versioned-documents'
import type { RecordChange } from './change-runner'
import { unsupportedAction } from './change-request-types'
import type { DocumentOp } from './document-ops'

export { configView } from '../kinds'

/** The value a config has in one environment (the override's, else the base value). */
export const configValue = (row: DocumentRow<ConfigBody>, environment: string | undefined): Json => valueIn(row.body, environment)

export function configService({ store, changes }: Pick<ServiceDeps, 'store' | 'changes'>) {
  async function validate(tx: Db, projectId: string, body: ConfigBody): Promise<void> {
    const issues = checkJsonLimits(body.value, 'value')
    if (body.client_side !== undefined && typeof body.client_side !== 'boolean')
      issues.push({ path: 'client_side', message: 'must be true or false' })
    const envs = new Set((await store.projects.get(tx, projectId))?.environments ?? [])
    for (const [env, o] of Object.entries(body.environments ?? {})) {
      if (!envs.has(env)) issues.push({ path: `environments.${env}`, message: `unknown environment "${env}"` })
      else if (o === null || typeof o !== 'object' || !('value' in o))
        issues.push({ path: `environments.${env}`, message: 'must be an object { value }' })
      else {
        issues.push(...checkJsonLimits(o.value, `environments.${env}.value`))
        // An environment's value has the config's type, as a flag's do (null, the explicit "nothing",
        // goes anywhere): a client reading a number must not get a string in production.
        const type = typeOf(body.value)
        if (type !== 'null' && o.value !== null && typeOf(o.value) !== type) {
          issues.push(
            labelIssue({
              path: `environments.${env}.value`,
              message: `must be ${type === 'object' || type === 'array' ? 'an' : 'a'} ${type}, like the config's value`,
            }),
          )
        }
      }
    }
    if (issues.length) throw validationError(issues)
  }

  const docs = versionedDocuments({ store, changes }, configKind, {
    repository: store.configs,
    validate: (tx, projectId, _key, body) => validate(tx, projectId, body),
  })

  const updateStep =
    (input: ConfigPatchInput) =>
    (stored: ConfigBody): ConfigBody => {
      const body = { ...stored }
      if (input.value !== undefined) body.value = input.value
      if (input.environments === null) delete body.environments
      else if (input.environments !== undefined) body.environments = input.environments
      if (input.client_side === null) delete body.client_side
      else if (input.client_side !== undefined) body.client_side = input.client_side
      return body
    }
  const createBody = (input: ConfigCreateInput): ConfigBody => ({
    value: input.value,
    ...(input.environments ? { environments: input.environments } : {}),
    ...(input.client_side !== undefined && { client_side: input.client_side }),
  })
  const overrideStep =
    (environment: string, value: Json) =>
    (body: ConfigBody): ConfigBody => ({ ...body, environments: { ...(body.environments ?? {}), [environment]: { value } } })

  return {
    page: docs.page,
    /** A change request's item (services/change-requests.ts), inside its apply transaction. */
    async opIn(tx: Db, record: RecordChange, actor: Actor, op: DocumentOp<'config'>): Promise<DocumentRow<ConfigBody> | null> {
      const { key, ifMatch, action } = op
      switch (op.action) {
        case 'create':
          return docs.createIn(tx, record, actor, key, createBody(op.body))
        case 'update':
          return docs.updateIn(tx, record, actor, key, ifMatch, updateStep(op.body))
        case 'delete':
          await docs.deleteIn(tx, record, actor, key)
          return null
        case 'set_override':
          return docs.updateIn(tx, record, actor, key, ifMatch, overrideStep(op.environment!, op.body.value), {
            environment: op.environment!,
          })
        case 'delete_override':
          return docs.deleteOverrideIn(tx, record, actor, key, op.environment!, ifMatch)
        // Items are checked against the config's actions when written (change-request-items.ts).
        default:
          throw validationError([unsupportedAction('config', action)])
      }
    },
    get: docs.get,
    delete: (actor: Actor, key: string) => docs.delete(actor, key),
    deleteOverride: docs.deleteOverride,

    create(actor: Actor, input: ConfigCreateInput) {
      return docs.create(actor, input.key, createBody(input))
    },

    update(actor: Actor, key: string, input: ConfigPatchInput, ifMatch: number | undefined) {
      return docs.update(actor, key, ifMatch, updateStep(input))
    },

    putOverride(actor: Actor, key: string, environment: string, value: Json, ifMatch?: number) {
      return docs.update(actor, key, ifMatch, overrideStep(environment, value), { environment })
    },
  }
}
export type ConfigService = ReturnType<typeof configService>
