// Segments: named condition lists referenced by flag rules (in_segment / not_in_segment).
import { labelIssue, validateConditions, type Condition } from '../engine'
import type { Db } from '../store'
import type { DocumentRow } from '../store/documents'
import type { Actor, ServiceDeps } from './context'
import { AppError, notFound, validationError, versionConflict } from './errors'
import { checkIfMatch, checkKey } from './keys'
import { segmentReferences } from './flags'

export function segmentView(row: DocumentRow) {
  return { conditions: (row.body.conditions ?? []) as Condition[], version: row.version, created_at: row.createdAt, updated_at: row.updatedAt }
}
const eventData = (row: DocumentRow) => ({ conditions: row.body.conditions, version: row.version })

/** Keys of the flags whose rules reference a segment. */
const flagsUsing = (flags: DocumentRow[], segmentKey: string): string[] =>
  flags.filter((f) => segmentReferences(f.body as never).includes(segmentKey)).map((f) => f.key)

export function segmentService({ store, changes }: ServiceDeps) {
  async function validate(tx: Db, projectId: string, conditions: unknown): Promise<void> {
    const segmentKeys = new Set((await store.segments.all(tx, projectId)).map((s) => s.key))
    const issues = validateConditions(conditions, 'conditions', segmentKeys).map(labelIssue)
    if (issues.length) throw validationError(issues)
  }
  /** The stored row; inside a change's transaction it is locked until commit (see getForUpdate). */
  async function mustGet(tx: Db, projectId: string, key: string, forUpdate = true): Promise<DocumentRow> {
    const row = await (forUpdate ? store.segments.getForUpdate(tx, projectId, key) : store.segments.get(tx, projectId, key))
    if (!row) throw notFound('SEGMENT_NOT_FOUND', `Segment "${key}"`)
    return row
  }

  return {
    page: (projectId: string, limit: number, offset: number) => store.segments.page(store.db, projectId, limit, offset),
    get: (projectId: string, key: string) => mustGet(store.db, projectId, key, false),

    create(actor: Actor, input: { key: string; conditions: unknown[] }) {
      const key = checkKey(input.key)
      return changes.run(async (tx, record) => {
        await validate(tx, actor.projectId, input.conditions)
        if (await store.segments.get(tx, actor.projectId, key)) throw new AppError(409, 'ALREADY_EXISTS', `Segment "${key}" already exists`)
        const now = new Date().toISOString()
        const row: DocumentRow = { projectId: actor.projectId, key, body: { conditions: input.conditions as Condition[] }, version: 1, createdAt: now, updatedAt: now }
        await store.segments.insert(tx, row)
        await record({
          projectId: actor.projectId, actor: actor.name, action: 'create', resourceType: 'segment', resourceKey: key,
          before: null, after: segmentView(row), event: { kind: 'segment.created', environment: '', data: eventData(row) },
        })
        return row
      })
    },

    /** Replaces the conditions. */
    update(actor: Actor, key: string, input: { conditions?: unknown[] }, ifMatch: number | undefined) {
      return changes.run(async (tx, record) => {
        const current = await mustGet(tx, actor.projectId, key)
        checkIfMatch(ifMatch, current.version)
        const conditions = (input.conditions ?? current.body.conditions) as Condition[]
        await validate(tx, actor.projectId, conditions)
        const updated = await store.segments.update(tx, actor.projectId, key, { conditions }, current.version, new Date().toISOString())
        if (!updated) throw versionConflict((await mustGet(tx, actor.projectId, key)).version)
        await record({
          projectId: actor.projectId, actor: actor.name, action: 'update', resourceType: 'segment', resourceKey: key,
          before: segmentView(current), after: segmentView(updated), event: { kind: 'segment.updated', environment: '', data: eventData(updated) },
        })
        return updated
      })
    },

    /** 409 IN_USE while a flag rule references the segment, unless forced (those conditions then never match). */
    delete(actor: Actor, key: string, force: boolean) {
      return changes.run(async (tx, record) => {
        const current = await mustGet(tx, actor.projectId, key)
        const users = flagsUsing(await store.flags.all(tx, actor.projectId), key)
        if (users.length && !force) throw new AppError(409, 'IN_USE', `Segment "${key}" is used by ${users.length} flag(s)`, { flags: users })
        await store.segments.delete(tx, actor.projectId, key)
        await record({
          projectId: actor.projectId, actor: actor.name, action: 'delete', resourceType: 'segment', resourceKey: key,
          before: segmentView(current), after: null, event: { kind: 'segment.deleted', environment: '', data: eventData(current) },
        })
      })
    },
  }
}
export type SegmentService = ReturnType<typeof segmentService>
