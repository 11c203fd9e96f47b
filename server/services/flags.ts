// Flags: create, partial update with optimistic concurrency, delete, environment overrides.
import { validateFlag, type FlagDefinition } from '../engine'
import type { Db } from '../store'
import type { DocumentRow } from '../store/documents'
import type { RecordChange } from './change-runner'
import type { Actor, ServiceDeps } from './context'
import { AppError, notFound, validationError, versionConflict } from './errors'
import { checkIfMatch, checkKey } from './keys'

/** The stored body of a flag: everything but key, version and timestamps. */
type FlagBody = Omit<FlagDefinition, 'key'>
const OPTIONAL_FIELDS = ['targeting', 'environments', 'active_from', 'active_until'] as const
const FIELDS = ['enabled', 'value', ...OPTIONAL_FIELDS] as const

/** The wire form of a stored flag. */
export function flagView(row: DocumentRow) {
  return { key: row.key, ...(row.body as FlagBody), version: row.version, created_at: row.createdAt, updated_at: row.updatedAt }
}
/** The `data` of this resource's webhook events. */
export const flagEventData = (row: DocumentRow) => {
  const b = row.body as FlagBody
  return { enabled: b.enabled, value: b.value, version: row.version }
}

/** The segment keys a flag's rules reference. */
export function segmentReferences(flag: FlagBody | undefined): string[] {
  return (flag?.targeting?.rules ?? []).flatMap((r) =>
    (r.conditions ?? []).filter((c) => (c.operator === 'in_segment' || c.operator === 'not_in_segment') && typeof c.value === 'string').map((c) => c.value as string))
}

export function flagService({ store, changes }: ServiceDeps) {
  /** `stored`: the flag as it is now. Segment references it already holds stay acceptable even when the
   *  segment was force-deleted (they never match), so such a flag can still be changed, e.g. switched off. */
  async function validate(tx: Db, projectId: string, body: FlagBody, stored?: FlagBody): Promise<void> {
    const project = await store.projects.get(tx, projectId)
    const segmentKeys = new Set([...(await store.segments.all(tx, projectId)).map((s) => s.key), ...segmentReferences(stored)])
    const issues = validateFlag({ key: 'x', ...body }, { segmentKeys, environments: new Set(project?.environments ?? []) })
    if (issues.length) throw validationError(issues)
  }

  /** The stored row; inside a change's transaction it is locked until commit (see getForUpdate). */
  async function mustGet(tx: Db, projectId: string, key: string, forUpdate = true): Promise<DocumentRow> {
    const row = await (forUpdate ? store.flags.getForUpdate(tx, projectId, key) : store.flags.get(tx, projectId, key))
    if (!row) throw notFound('FLAG_NOT_FOUND', `Flag "${key}"`)
    return row
  }

  /** Writes a new body for an existing flag at the version it was read at; records the change. */
  async function write(tx: Db, record: RecordChange, actor: Actor, current: DocumentRow, body: FlagBody, environment: string) {
    await validate(tx, actor.projectId, body, current.body as FlagBody)
    const updated = await store.flags.update(tx, actor.projectId, current.key, body as DocumentRow['body'], current.version, new Date().toISOString())
    if (!updated) throw versionConflict((await mustGet(tx, actor.projectId, current.key)).version)
    await record({
      projectId: actor.projectId, actor: actor.name, action: 'update', resourceType: 'flag', resourceKey: current.key,
      before: flagView(current), after: flagView(updated),
      event: { kind: 'flag.updated', environment, data: flagEventData(updated) },
    })
    return updated
  }

  return {
    page: (projectId: string, limit: number, offset: number) => store.flags.page(store.db, projectId, limit, offset),
    get: (projectId: string, key: string) => mustGet(store.db, projectId, key, false),

    create(actor: Actor, input: Record<string, unknown>) {
      const key = checkKey(input.key)
      // Defaults for what was not sent; an explicit `value: null` is a value (off value null), not "absent".
      const body: FlagBody = { enabled: (input.enabled as boolean | undefined) ?? false, value: input.value === undefined ? true : (input.value as FlagBody['value']) }
      for (const f of OPTIONAL_FIELDS) if (input[f] !== undefined && input[f] !== null) (body as Record<string, unknown>)[f] = input[f]
      return changes.run(async (tx, record) => {
        await validate(tx, actor.projectId, body)
        if (await store.flags.get(tx, actor.projectId, key)) throw new AppError(409, 'ALREADY_EXISTS', `Flag "${key}" already exists`)
        const now = new Date().toISOString()
        const row: DocumentRow = { projectId: actor.projectId, key, body: body as DocumentRow['body'], version: 1, createdAt: now, updatedAt: now }
        await store.flags.insert(tx, row)
        await record({
          projectId: actor.projectId, actor: actor.name, action: 'create', resourceType: 'flag', resourceKey: key,
          before: null, after: flagView(row), event: { kind: 'flag.created', environment: '', data: flagEventData(row) },
        })
        return row
      })
    },

    /** Merges the given top-level fields; null clears an optional field. */
    update(actor: Actor, key: string, input: Record<string, unknown>, ifMatch: number | undefined) {
      return changes.run(async (tx, record) => {
        const current = await mustGet(tx, actor.projectId, key)
        checkIfMatch(ifMatch, current.version)
        const body = { ...(current.body as FlagBody) } as Record<string, unknown>
        for (const f of FIELDS) {
          if (!(f in input) || input[f] === undefined) continue
          if (input[f] === null && (OPTIONAL_FIELDS as readonly string[]).includes(f)) delete body[f]
          else body[f] = input[f]
        }
        return write(tx, record, actor, current, body as FlagBody, '')
      })
    },

    delete(actor: Actor, key: string) {
      return changes.run(async (tx, record) => {
        const current = await mustGet(tx, actor.projectId, key)
        await store.flags.delete(tx, actor.projectId, key)
        await record({
          projectId: actor.projectId, actor: actor.name, action: 'delete', resourceType: 'flag', resourceKey: key,
          before: flagView(current), after: null, event: { kind: 'flag.deleted', environment: '', data: flagEventData(current) },
        })
      })
    },

    putOverride(actor: Actor, key: string, environment: string, override: { enabled: boolean; value?: unknown }, ifMatch?: number) {
      return changes.run(async (tx, record) => {
        const current = await mustGet(tx, actor.projectId, key)
        checkIfMatch(ifMatch, current.version)
        const project = await store.projects.get(tx, actor.projectId)
        if (!project?.environments.includes(environment)) {
          throw validationError([{ path: 'environment', message: `unknown environment "${environment}"; the project has: ${project?.environments.join(', ')}` }])
        }
        const body = current.body as FlagBody
        const next: FlagBody = { ...body, environments: { ...(body.environments ?? {}), [environment]: override as never } }
        const updated = await write(tx, record, actor, current, next, environment)
        return { row: updated, override: (updated.body as FlagBody).environments![environment] }
      })
    },

    deleteOverride(actor: Actor, key: string, environment: string, ifMatch?: number) {
      return changes.run(async (tx, record) => {
        const current = await mustGet(tx, actor.projectId, key)
        checkIfMatch(ifMatch, current.version)
        const body = current.body as FlagBody
        if (!body.environments || !Object.hasOwn(body.environments, environment)) throw notFound('NOT_FOUND', `Override for environment "${environment}" on flag "${key}"`)
        const { [environment]: _removed, ...rest } = body.environments
        return write(tx, record, actor, current, { ...body, environments: rest }, environment)
      })
    },
  }
}
export type FlagService = ReturnType<typeof flagService>
