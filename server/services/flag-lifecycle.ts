// A flag over its life (docs/lifecycle.md §3-4): archive (no longer evaluated, not editable, key kept),
// restore, history (every version since the flag was created, read from its audit entries, which each
// change writes in its own transaction) and rollback (a new version equal to an earlier one).
import type { Db, Store } from '../store'
import type { ChangeRunner, RecordChange } from './change-runner'
import type { AuditRow } from '../store/audit'
import { actorNames } from './audit'
import type { Actor } from './context'
import { notFound, conflict } from '../errors'
import { isArchived, type FlagBody } from './flag-body'
import { refuseIfRequired } from './flag-graph'
import type { VersionedDocuments } from './versioned-documents'

import type { FlagVersion, FlagView } from '../schemas'

/** The stored body a wire form was made of: without the fields that are not the body. As the schema types
 *  it (an operator is any string there): the rollback validates it as a flag, as any write. */
function bodyOfView(view: FlagView): FlagBody {
  const {
    key: _key,
    version: _version,
    created_at: _created,
    updated_at: _updated,
    archived: _archived,
    archived_at: _archivedAt,
    ...body
  } = view
  return body as FlagBody
}

/** A flag's audit entry records its wire form (flagView) as `after`; none for a delete. */
const versionOf = (row: AuditRow): FlagVersion | undefined => {
  const after = row.after as FlagView | null
  if (!after || typeof after.version !== 'number') return undefined
  return { version: after.version, at: row.timestamp, actor: row.actor, actor_name: null, action: row.action, flag: after }
}

export function flagLifecycle(store: Store, changes: ChangeRunner, docs: VersionedDocuments<FlagBody>) {
  /** This life of the flag's audit entries (a flag deleted and created again starts a new history). */
  async function historyPage(projectId: string, key: string, limit: number, offset: number) {
    const current = await docs.get(projectId, key)
    const { rows, total } = await store.audit.page(
      store.db,
      projectId,
      { resourceType: 'flag', resourceKey: key, since: current.createdAt },
      limit,
      offset,
    )
    return { versions: rows.map(versionOf).filter((v): v is FlagVersion => v !== undefined), total }
  }

  async function findVersion(projectId: string, key: string, version: number): Promise<FlagVersion> {
    for (let offset = 0; ; offset += 500) {
      const { versions, total } = await historyPage(projectId, key, 500, offset)
      const hit = versions.find((v) => v.version === version)
      if (hit) return hit
      if (offset + 500 >= total) throw notFound('VERSION_NOT_FOUND', `Version ${version} of flag "${key}"`)
    }
  }

  function archiveIn(tx: Db, record: RecordChange, actor: Actor, key: string, ifMatch: number | undefined) {
    return docs.updateIn(
      tx,
      record,
      actor,
      key,
      ifMatch,
      async (body, tx) => {
        refuseIfRequired(await store.flags.all(tx, actor.projectId), key, 'archived')
        return { ...body, archived: true, archived_at: new Date().toISOString() }
      },
      { action: 'archive' },
    )
  }

  function restoreIn(tx: Db, record: RecordChange, actor: Actor, key: string, ifMatch: number | undefined) {
    return docs.updateIn(
      tx,
      record,
      actor,
      key,
      ifMatch,
      (body) => {
        if (!isArchived(body)) throw conflict('NOT_ARCHIVED', `Flag "${key}" is not archived`)
        const { archived: _a, archived_at: _at, ...rest } = body
        return rest
      },
      { action: 'restore' },
    )
  }

  /** `target`: from findVersion, read before the transaction. */
  function rollbackIn(tx: Db, record: RecordChange, actor: Actor, key: string, target: FlagVersion, ifMatch: number | undefined) {
    return docs.updateIn(tx, record, actor, key, ifMatch, () => bodyOfView(target.flag), { action: 'rollback' })
  }

  return {
    /** historyPage, each version with the name of the token that wrote it. */
    async history(projectId: string, key: string, limit: number, offset: number) {
      const { versions, total } = await historyPage(projectId, key, limit, offset)
      const names = await actorNames(
        store,
        projectId,
        versions.map((v) => v.actor),
      )
      return { versions: versions.map((v) => ({ ...v, actor_name: names.get(v.actor) ?? null })), total }
    },

    /** Not evaluated anywhere (404 FLAG_NOT_FOUND), not editable until restored; 409 IN_USE while others require it. */
    archive: (actor: Actor, key: string, ifMatch: number | undefined) =>
      changes.run((tx, record) => archiveIn(tx, record, actor, key, ifMatch)),
    restore: (actor: Actor, key: string, ifMatch: number | undefined) =>
      changes.run((tx, record) => restoreIn(tx, record, actor, key, ifMatch)),
    /** Writes a new version whose definition is that of `version` (validated as any write is now). */
    async rollback(actor: Actor, key: string, version: number, ifMatch: number | undefined) {
      const target = await findVersion(actor.projectId, key, version)
      return changes.run((tx, record) => rollbackIn(tx, record, actor, key, target, ifMatch))
    },
    archiveIn,
    restoreIn,
    rollbackIn,
    findVersion,
  }
}
