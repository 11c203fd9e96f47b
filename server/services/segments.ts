// Segments: named condition lists referenced by flag rules (in_segment / not_in_segment); the
// versioned-document operations (versioned-documents.ts) plus their validation and the in-use check.
import { labelIssue, segmentKeysOf, validateConditions, type Condition } from '../engine'
import type { SegmentCreateInput, SegmentPatchInput } from '../schemas'
import type { Db } from '../store'
import type { DocumentRow } from '../store/documents'
import { flagEventData, flagView, segmentKind, type FlagBody, type SegmentBody } from '../kinds'
import { by, type Actor, type ServiceDeps } from './context'
import { validationError, inUse } from '../errors'
import { versionedDocuments } from './versioned-documents'
import type { RecordChange } from './change-runner'
import { unsupportedAction } from './change-request-types'
import type { DocumentOp } from './document-ops'

export { segmentView } from '../kinds'

/** A flag's body without any reference to segment `key`, answering as it did while the segment was gone:
 *  a rule that needs membership (in_segment) could never match and goes; a not_in_segment condition always
 *  held and goes (its rule stays). */
export function withoutSegment(body: FlagBody, key: string): FlagBody {
  const refers = (c: Condition, op: string) => c.operator === op && c.value === key
  const cleaned = <T extends FlagBody['targeting']>(targeting: T): T => {
    if (!targeting || !Array.isArray(targeting.rules)) return targeting
    const rules = targeting.rules
      .filter((r) => !r.conditions.some((c) => refers(c, 'in_segment')))
      .map((r) => ({ ...r, conditions: r.conditions.filter((c) => !refers(c, 'not_in_segment')) }))
    return { ...targeting, rules }
  }
  // Environments' own rules too (docs/behaviour.md §4).
  const environments =
    body.environments && Object.values(body.environments).some((o) => o.targeting)
      ? Object.fromEntries(
          Object.entries(body.environments).map(([name, o]) => [name, o.targeting ? { ...o, targeting: cleaned(o.targeting) } : o]),
        )
      : body.environments
  if ((!body.targeting || !Array.isArray(body.targeting.rules)) && environments === body.environments) return body
  return {
    ...body,
    ...(body.targeting && { targeting: cleaned(body.targeting) }),
    ...(environments !== body.environments && { environments }),
  }
}

/** Keys of the flags whose rules reference a segment. */
const flagsUsing = (flags: DocumentRow<FlagBody>[], segmentKey: string): string[] =>
  flags.filter((f) => segmentKeysOf(f.body).includes(segmentKey)).map((f) => f.key)

export function segmentService({ store, changes }: Pick<ServiceDeps, 'store' | 'changes'>) {
  async function validate(tx: Db, projectId: string, conditions: unknown): Promise<void> {
    const segmentKeys = new Set((await store.segments.all(tx, projectId)).map((s) => s.key))
    const issues = validateConditions(conditions, 'conditions', segmentKeys).map(labelIssue)
    if (issues.length) throw validationError(issues)
  }
  async function unreference(tx: Db, record: RecordChange, actor: Actor, flagKey: string, segmentKey: string): Promise<void> {
    const current = await store.flags.getForUpdate(tx, actor.projectId, flagKey)
    if (!current) return
    const updated = await store.flags.update(
      tx,
      actor.projectId,
      flagKey,
      withoutSegment(current.body, segmentKey),
      current.version,
      new Date().toISOString(),
    )
    if (!updated) return
    await record({
      projectId: actor.projectId,
      ...by(actor),
      action: 'update',
      resourceType: 'flag',
      resourceKey: flagKey,
      before: flagView(current),
      after: flagView(updated),
      event: { kind: 'flag.updated', environment: '', data: flagEventData(updated) },
    })
  }

  // The schema's conditions, as the engine's: validate() checks each operator and value before anything is stored.
  const createBody = (input: SegmentCreateInput): SegmentBody => ({ conditions: input.conditions as Condition[] })
  const updateStep =
    (input: SegmentPatchInput) =>
    (stored: SegmentBody): SegmentBody => ({ conditions: (input.conditions ?? stored.conditions) as Condition[] })

  const docs = versionedDocuments({ store, changes }, segmentKind, {
    repository: store.segments,
    validate: (tx, projectId, _key, body) => validate(tx, projectId, body.conditions),
  })

  /** Refuses (409 IN_USE) to delete a segment flags use, unless forced: then each of those flags drops its
   *  references in the same transaction (audited), so a later segment of the same key revives nothing. */
  const inUseGuard = (actor: Actor, key: string, force: boolean) => async (tx: Db, _current: unknown, record: RecordChange) => {
    const users = flagsUsing(await store.flags.all(tx, actor.projectId), key)
    if (users.length && !force) throw inUse(`Segment "${key}" is used by ${users.length} flag(s)`, { flags: users })
    for (const flagKey of users) await unreference(tx, record, actor, flagKey, key)
  }

  return {
    page: docs.page,
    /** A change request's item (services/change-requests.ts), inside its apply transaction. */
    async opIn(tx: Db, record: RecordChange, actor: Actor, op: DocumentOp<'segment'>): Promise<DocumentRow<SegmentBody> | null> {
      const { key, ifMatch, action } = op
      switch (op.action) {
        case 'create':
          return docs.createIn(tx, record, actor, key, createBody(op.body))
        case 'update':
          return docs.updateIn(tx, record, actor, key, ifMatch, updateStep(op.body))
        case 'delete':
          await docs.deleteIn(tx, record, actor, key, inUseGuard(actor, key, op.body.force === true))
          return null
        // Items are checked against the segment's actions when written (change-request-items.ts).
        default:
          throw validationError([unsupportedAction('segment', action)])
      }
    },
    get: docs.get,

    create(actor: Actor, input: SegmentCreateInput) {
      return docs.create(actor, input.key, createBody(input))
    },

    /** Replaces the conditions. */
    update(actor: Actor, key: string, input: SegmentPatchInput, ifMatch: number | undefined) {
      return docs.update(actor, key, ifMatch, updateStep(input))
    },

    /** 409 IN_USE while a flag rule references the segment, unless forced: then every reference is taken
     *  out of those flags (withoutSegment), each a new version with its audit entry, in the same transaction,
     *  so a later segment of the same key cannot bring old rules back to life. */
    delete(actor: Actor, key: string, force: boolean) {
      return docs.delete(actor, key, inUseGuard(actor, key, force))
    },
  }
}
export type SegmentService = ReturnType<typeof segmentService>
