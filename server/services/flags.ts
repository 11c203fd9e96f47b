// Flags: the versioned-document operations (versioned-documents.ts) plus what gives a flag's fields
// meaning: defaults on create, partial update (null clears an optional field), `value` mirroring the default
// variant, validation against the project's segments, environments and other flags (prerequisites), and
// per-environment overrides. Archive, restore, rollback and history are flag-lifecycle.ts.
import { segmentKeysOf, validateFlag, type Json } from '../engine'
import {
  FLAG_CLEARABLE_FIELDS,
  FLAG_FIELDS,
  type FlagCreateInput,
  type FlagOverride,
  type FlagPatchInput,
  type ScheduledOverrideInput,
} from '../schemas'
import type { Db } from '../store'
import type { BodyFilter, DocumentRow } from '../store/documents'
import { flagKind, type FlagBody } from '../kinds'
import type { Actor, ServiceDeps } from './context'
import { validationError, conflict } from '../errors'
import { touchedEnvironment } from '../access/affected-environments'
import { isArchived, storedOverrides } from './flag-body'
import { graphIssues, refuseIfRequired } from './flag-graph'
import { flagLifecycle } from './flag-lifecycle'
import { versionedDocuments, type NextBody } from './versioned-documents'
import type { RecordChange } from './change-runner'
import type { DocumentOp } from './document-ops'

export type { FlagBody } from '../kinds'
export { flagView, flagEventData } from '../kinds'
export type { FlagOverride } from '../schemas'

/** A change to a flag as its update routes take it: the fields of PUT /flags/:key, or one environment's
 *  override (scheduled changes carry one of these). */
export type FlagChange = FlagPatchInput | OverrideChange
export type OverrideChange = ScheduledOverrideInput
export const isOverrideChange = (change: FlagChange): change is OverrideChange => 'override' in change

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** A flag with variants serves its default variant: `value` mirrors it (so lists, events and old clients
 *  still see what it serves). A `value` sent with variants must be that value. */
function withMirroredValue(body: FlagBody, sentValue: unknown): FlagBody {
  const variants = body.variants
  if (!variants || typeof body.default_variant !== 'string' || !Object.hasOwn(variants, body.default_variant)) return body
  const value = variants[body.default_variant] as Json
  if (sentValue !== undefined && !sameJson(sentValue, value)) {
    throw validationError([
      { path: 'value', message: `a flag with variants serves default_variant ("${body.default_variant}"); set that instead of value` },
    ])
  }
  return { ...body, value }
}

/** PUT /flags/:key's merge: the given top-level fields over the stored body; null clears an optional field.
 *  Field by field, by the names the schema declares, so the merge is an open record; the service validates
 *  what it makes as a flag before anything is stored. */
export function mergeFlagFields(stored: FlagBody, input: FlagPatchInput): FlagBody {
  const body: Record<string, unknown> = { ...stored }
  for (const f of FLAG_FIELDS) {
    if (!(f in input) || input[f] === undefined) continue
    if (input[f] === null && FLAG_CLEARABLE_FIELDS.has(f)) delete body[f]
    else body[f] = f === 'environments' ? storedOverrides(input[f]) : input[f]
  }
  return withMirroredValue(body as FlagBody, input.value)
}

export const archivedError = (key: string) => conflict('FLAG_ARCHIVED', `Flag "${key}" is archived; restore it before changing it`)

export function flagService({ store, changes }: Pick<ServiceDeps, 'store' | 'changes'>) {
  /** `stored`: the flag as it is now. Segment references it already holds stay acceptable even when the
   *  segment was force-deleted (they never match), so such a flag can still be changed, e.g. switched off. */
  async function validate(tx: Db, projectId: string, key: string, body: FlagBody, stored: FlagBody | undefined): Promise<void> {
    const project = await store.projects.get(tx, projectId)
    const segmentKeys = new Set([...(await store.segments.all(tx, projectId)).map((s) => s.key), ...(stored ? segmentKeysOf(stored) : [])])
    const issues = validateFlag({ key, ...body }, { segmentKeys, environments: new Set(project?.environments ?? []) })
    // The project's prerequisite graph only when the flag is part of it (it requires, or is required by, others).
    if (!issues.length && (body.prerequisites?.length || stored?.variants)) {
      await store.lockFlagGraph(tx, projectId)
      issues.push(...graphIssues(key, body, await store.flags.all(tx, projectId)))
    }
    if (issues.length) throw validationError(issues)
  }

  /** PUT /flags/:key's step: merges the given top-level fields; null clears an optional field. Field by
   *  field, by the names the schema declares, so the merge is an open record; validate() checks what it
   *  makes as a flag before anything is stored. */
  const mergeFields =
    (input: FlagPatchInput): NextBody<FlagBody> =>
    (stored) =>
      mergeFlagFields(stored, input)

  /** PUT /flags/:key/environments/:env's step: the environment must be one of the project's. */
  const setOverride =
    (actor: Actor, environment: string, override: FlagOverride): NextBody<FlagBody> =>
    async (body, tx) => {
      const project = await store.projects.get(tx, actor.projectId)
      if (!project?.environments.includes(environment)) {
        throw validationError([
          { path: 'environment', message: `unknown environment "${environment}"; the project has: ${project?.environments.join(', ')}` },
        ])
      }
      // `targeting: null` removes the environment's own rules (the override then uses the flag's).
      return { ...body, environments: storedOverrides({ ...(body.environments ?? {}), [environment]: override }) }
    }

  const stepOf = (actor: Actor, change: FlagChange): { next: NextBody<FlagBody>; environment: string } =>
    isOverrideChange(change)
      ? { next: setOverride(actor, change.environment, change.override), environment: change.environment }
      : { next: mergeFields(change), environment: '' }

  /** POST /flags's body (and an explain draft's): defaults for what was not sent; an explicit `value: null`
   *  is a value (off value null), not "absent". The optional fields by name, as in mergeFields. */
  function createBody(input: FlagPatchInput): FlagBody {
    const body: Record<string, unknown> = { enabled: input.enabled ?? false, value: input.value === undefined ? true : input.value }
    for (const f of FLAG_CLEARABLE_FIELDS)
      if (input[f] !== undefined && input[f] !== null) body[f] = f === 'environments' ? storedOverrides(input[f]) : input[f]
    return withMirroredValue(body as FlagBody, input.value)
  }

  const docs = versionedDocuments({ store, changes }, flagKind, {
    repository: store.flags,
    validate,
    editable: (body, key) => {
      if (isArchived(body)) throw archivedError(key)
    },
  })

  const lifecycle = flagLifecycle(store, changes, docs)

  return {
    page: docs.page,
    /** One page of the flags in an archived state (or either) with some tags, filtered in the store. */
    pageWhere: (projectId: string, filter: BodyFilter, limit: number, offset: number) =>
      store.flags.pageWhereBody(store.db, projectId, filter, limit, offset),
    all: docs.all,
    get: docs.get,
    history: lifecycle.history,
    archive: lifecycle.archive,
    restore: lifecycle.restore,
    rollback: lifecycle.rollback,

    /** 409 IN_USE while other flags require it. */
    delete: (actor: Actor, key: string) =>
      docs.delete(actor, key, async (tx) => refuseIfRequired(await store.flags.all(tx, actor.projectId), key, 'deleted')),
    deleteOverride: (actor: Actor, key: string, environment: string, ifMatch: number | undefined) =>
      docs.deleteOverride(actor, key, environment, ifMatch),

    create(actor: Actor, input: FlagCreateInput) {
      return docs.create(actor, input.key, createBody(input))
    },

    /** Merges the given top-level fields; null clears an optional field. `onlyEnvironment`: the caller was
     *  allowed this change as one to that environment's override only (teams.md §4); refused (409) should
     *  the flag have changed since so that it would touch more. */
    update(actor: Actor, key: string, input: FlagPatchInput, ifMatch: number | undefined, onlyEnvironment?: string) {
      return docs.update(actor, key, ifMatch, (stored) => {
        const next = mergeFlagFields(stored, input)
        if (onlyEnvironment !== undefined && touchedEnvironment(stored, next) !== onlyEnvironment) {
          throw conflict(
            'CONFLICT',
            `Flag "${key}" changed meanwhile: this change would no longer touch ${onlyEnvironment} only; read it again`,
            { environment: onlyEnvironment },
          )
        }
        return next
      })
    },

    /** The emergency stop (docs/flag-switches.md): the main switch and every environment's own switch off,
     *  in one change (one version, one audit entry), so every environment serves the off value. Undo is a
     *  rollback to the version before. */
    turnOffEverywhere(actor: Actor, key: string, ifMatch: number | undefined) {
      return docs.update(actor, key, ifMatch, (body) => {
        const next: FlagBody = { ...body, enabled: false }
        if (body.environments) {
          next.environments = Object.fromEntries(
            Object.entries(body.environments).map(([name, o]) => [name, { ...o, enabled: false }] as const),
          )
        }
        return next
      })
    },

    async putOverride(actor: Actor, key: string, environment: string, override: FlagOverride, ifMatch?: number) {
      const row = await docs.update(actor, key, ifMatch, setOverride(actor, environment, override), { environment })
      return { row, override: row.body.environments![environment] }
    },

    /** A scheduled change, applied inside a running change (the schedule's own bookkeeping shares its
     *  transaction): the same step as update or putOverride, unconditionally. */
    applyIn(tx: Db, record: RecordChange, actor: Actor, key: string, change: FlagChange) {
      const step = stepOf(actor, change)
      return docs.updateIn(tx, record, actor, key, undefined, step.next, { environment: step.environment })
    },
    /** A change request's item (services/change-requests.ts), inside its apply transaction, through the
     *  same steps as the direct routes. */
    async opIn(tx: Db, record: RecordChange, actor: Actor, op: DocumentOp<'flag'>): Promise<DocumentRow<FlagBody> | null> {
      const { key, ifMatch } = op
      switch (op.action) {
        case 'create':
          return docs.createIn(tx, record, actor, key, createBody(op.body))
        case 'update':
          return docs.updateIn(tx, record, actor, key, ifMatch, mergeFields(op.body))
        case 'delete':
          await docs.deleteIn(tx, record, actor, key, async (tx) =>
            refuseIfRequired(await store.flags.all(tx, actor.projectId), key, 'deleted'),
          )
          return null
        case 'set_override':
          return docs.updateIn(tx, record, actor, key, ifMatch, setOverride(actor, op.environment!, op.body), {
            environment: op.environment!,
          })
        case 'delete_override':
          return docs.deleteOverrideIn(tx, record, actor, key, op.environment!, ifMatch)
        case 'archive':
          return lifecycle.archiveIn(tx, record, actor, key, ifMatch)
        case 'restore':
          return lifecycle.restoreIn(tx, record, actor, key, ifMatch)
        case 'rollback':
          return lifecycle.rollbackIn(tx, record, actor, key, await lifecycle.findVersion(actor.projectId, key, op.body.version), ifMatch)
      }
    },
    /** An unsaved definition (explain's `flag`), with create's defaults, validated as a write of `key`
     *  would be; nothing is stored. */
    async draft(projectId: string, key: string, input: FlagPatchInput): Promise<FlagBody> {
      const body = createBody(input)
      const stored = await store.flags.get(store.db, projectId, key)
      await validate(store.db, projectId, key, body, stored?.body)
      return body
    },
    /** What a scheduled `change` makes of `body` (explain's `at`), without storing anything. */
    preview(actor: Actor, body: FlagBody, change: FlagChange): Promise<FlagBody> {
      return Promise.resolve(stepOf(actor, change).next(body, store.db))
    },
    /** Refuses (throws) a change exactly as applyIn would now; writes nothing. */
    checkChange(tx: Db, actor: Actor, key: string, change: FlagChange) {
      return docs.check(tx, actor, key, stepOf(actor, change).next)
    },
  }
}
export type FlagService = ReturnType<typeof flagService>
