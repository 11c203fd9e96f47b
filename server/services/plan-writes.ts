// The writes of an import's plan (services/imports.ts), each recorded like the same write through the
// resource's own service. A plan may hold thousands of steps, so the store sees few statements: the rows
// the updates and deletes start from are read (and locked until commit) a few hundred keys per read, and
// consecutive creates, updates or deletes of one kind are written a few hundred per statement. Steps are
// still checked and recorded in the plan's order, and written in it.
import type { Kind } from '../documents/model'
import type { Step } from '../documents/plan'
import { perKind, type DocumentKind } from '../kinds'
import type { Db, Store } from '../store'
import type { DocumentRepository, DocumentRow } from '../store/documents'
import { eventKind, type Action, type DocumentType } from '../store/vocabulary/changes'
import { conflict } from '../errors'
import type { RecordChange } from './change-runner'
import type { Actor } from './context'
import { touchedEnvironment } from '../access/affected-environments'

/** A kind and its rows. A plan's bodies are the document's, each validated as its kind's when the plan was
 *  made (documents/validate.ts), so the rows here are held as the store's JSON objects, not as a kind's body. */
export interface KindOps {
  kind: DocumentKind
  repo: DocumentRepository
}

/** Every kind with its repository (the store names them by plural). */
export const kindOps = (store: Store): Record<Kind, KindOps> => perKind((kind) => ({ kind, repo: store[kind.plural] }))

type Write = 'insert' | 'update' | 'delete'

/** Writes not made yet: one kind of write to one kind of document at a time, in step order. Each holds the
 *  row as it is once written (as it was, for a delete). */
function pendingWrites(tx: Db, projectId: string, now: string) {
  let pending: { write: Write; ops: KindOps; rows: DocumentRow[] } | undefined
  const flush = async () => {
    const p = pending
    pending = undefined
    if (p?.write === 'insert') await p.ops.repo.insertMany(tx, p.rows)
    if (p?.write === 'delete')
      await p.ops.repo.deleteMany(
        tx,
        projectId,
        p.rows.map((r) => r.key),
      )
    if (p?.write === 'update') {
      const written = await p.ops.repo.updateMany(
        tx,
        projectId,
        p.rows.map((r) => ({ key: r.key, body: r.body, fromVersion: r.version - 1 })),
        now,
      )
      // The rows were read locked at these versions, so this is only a guard.
      const done = new Set(written.map((r) => r.key))
      const lost = p.rows.find((r) => !done.has(r.key))
      if (lost) throw outdated(p.ops.kind.type, lost.key)
    }
  }
  return {
    async add(write: Write, ops: KindOps, row: DocumentRow): Promise<void> {
      if (pending && (pending.write !== write || pending.ops !== ops)) await flush()
      pending ??= { write, ops, rows: [] }
      pending.rows.push(row)
    },
    flush,
  }
}

const outdated = (type: DocumentType, key: string) =>
  conflict('PLAN_OUTDATED', `${type} "${key}" changed while the import ran; plan again`, { resource_type: type, key })

/** The stored rows the plan's updates and deletes start from, locked until commit (getForUpdate). */
async function lockedRows(
  tx: Db,
  projectId: string,
  steps: readonly Step[],
  ops: Record<Kind, KindOps>,
): Promise<Map<Kind, Map<string, DocumentRow>>> {
  const locked = new Map<Kind, Map<string, DocumentRow>>()
  for (const kind of Object.keys(ops) as Kind[]) {
    const keys = steps.filter((s) => s.kind === kind && s.action !== 'create').map((s) => s.key)
    if (keys.length) locked.set(kind, new Map((await ops[kind].repo.getManyForUpdate(tx, projectId, keys)).map((r) => [r.key, r])))
  }
  return locked
}

/** Performs `steps` inside the running change, recording each with `record`; `now` stamps them all. */
export async function writePlan(
  tx: Db,
  record: RecordChange,
  actor: Actor,
  steps: readonly Step[],
  ops: Record<Kind, KindOps>,
  now: string,
): Promise<void> {
  const locked = await lockedRows(tx, actor.projectId, steps, ops)
  const pending = pendingWrites(tx, actor.projectId, now)
  for (const step of steps) {
    const { type, view, eventData } = ops[step.kind].kind
    const note = (action: Action, before: DocumentRow | null, after: DocumentRow | null) =>
      record({
        projectId: actor.projectId,
        actor: actor.name,
        action,
        resourceType: type,
        resourceKey: step.key,
        before: before && view(before),
        after: after && view(after),
        // An update of one environment's override only (a promotion's, typically) affects that one (teams.md §4).
        event: {
          kind: eventKind(type, action) as never,
          environment: before && after ? touchedEnvironment(before.body, after.body) : '',
          data: eventData((after ?? before)!),
        },
        // a project admin's break glass reaches the gate for an import or a promotion too
        authority: actor.authority,
      })
    if (step.action === 'create') {
      const row: DocumentRow = { projectId: actor.projectId, key: step.key, body: step.body!, version: 1, createdAt: now, updatedAt: now }
      if (step.kind === 'flags' && row.body.archived === true) row.body = { ...row.body, archived_at: now }
      await pending.add('insert', ops[step.kind], row)
      await note('create', null, row)
      continue
    }
    const before = locked.get(step.kind)?.get(step.key)
    if (!before || before.version !== step.fromVersion) throw outdated(type, step.key)
    if (step.action === 'delete') {
      await pending.add('delete', ops[step.kind], before)
      await note('delete', before, null)
      continue
    }
    let body = step.body!
    let action: Action = 'update'
    if (step.kind === 'flags') {
      const was = before.body.archived === true
      const is = body.archived === true
      if (is && !was) (body = { ...body, archived_at: now }), (action = 'archive')
      if (!is && was) action = 'restore'
    }
    // The row as the update writes it (what update() would return).
    const after: DocumentRow = { ...before, body, version: before.version + 1, updatedAt: now }
    await pending.add('update', ops[step.kind], after)
    await note(action, before, after)
  }
  await pending.flush()
}
