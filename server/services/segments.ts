// Segments: named condition lists referenced by flag rules (in_segment / not_in_segment); the
// versioned-document operations (versioned-documents.ts) plus their validation and the in-use check.
import { labelIssue, segmentKeysOf, validateConditions, type Condition, type FlagDefinition } from '../engine'
import type { Db } from '../store'
import type { DocumentRow } from '../store/documents'
import type { Actor, ServiceDeps } from './context'
import { AppError, validationError } from './errors'
import { versionedDocuments } from './versioned-documents'

interface SegmentBody {
  conditions: Condition[]
}

export function segmentView(row: DocumentRow) {
  return { conditions: (row.body.conditions ?? []) as Condition[], version: row.version, created_at: row.createdAt, updated_at: row.updatedAt }
}
export const segmentEventData = (row: DocumentRow) => ({ conditions: row.body.conditions, version: row.version })

/** Keys of the flags whose rules reference a segment. */
const flagsUsing = (flags: DocumentRow[], segmentKey: string): string[] =>
  flags.filter((f) => segmentKeysOf(f.body as unknown as FlagDefinition).includes(segmentKey)).map((f) => f.key)

export function segmentService({ store, changes }: Pick<ServiceDeps, 'store' | 'changes'>) {
  async function validate(tx: Db, projectId: string, conditions: unknown): Promise<void> {
    const segmentKeys = new Set((await store.segments.all(tx, projectId)).map((s) => s.key))
    const issues = validateConditions(conditions, 'conditions', segmentKeys).map(labelIssue)
    if (issues.length) throw validationError(issues)
  }
  const docs = versionedDocuments<SegmentBody>({ store, changes }, {
    type: 'segment', label: 'Segment', notFoundCode: 'SEGMENT_NOT_FOUND', repository: store.segments,
    view: segmentView, eventData: segmentEventData, validate: (tx, projectId, _key, body) => validate(tx, projectId, body.conditions),
  })

  return {
    page: docs.page,
    get: docs.get,

    create(actor: Actor, input: { key: string; conditions: unknown[] }) {
      return docs.create(actor, input.key, { conditions: input.conditions as Condition[] })
    },

    /** Replaces the conditions. */
    update(actor: Actor, key: string, input: { conditions?: unknown[] }, ifMatch: number | undefined) {
      return docs.update(actor, key, ifMatch, (stored) => ({ conditions: (input.conditions ?? stored.conditions) as Condition[] }))
    },

    /** 409 IN_USE while a flag rule references the segment, unless forced (those conditions then never match). */
    delete(actor: Actor, key: string, force: boolean) {
      return docs.delete(actor, key, async (tx) => {
        const users = flagsUsing(await store.flags.all(tx, actor.projectId), key)
        if (users.length && !force) throw new AppError(409, 'IN_USE', `Segment "${key}" is used by ${users.length} flag(s)`, { flags: users })
      })
    },
  }
}
export type SegmentService = ReturnType<typeof segmentService>
