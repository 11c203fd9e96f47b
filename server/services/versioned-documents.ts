// What flags, configs and segments share: one versioned JSON document per key. Reading it or 404,
// creating it (validated, refused when the key exists), changing it at the version it was read at
// (If-Match, version bump, 409 on a lost race) and deleting it, each as one change through the change
// runner (row + audit entry + webhook outbox + stream entry, one transaction). The resource services add
// only what gives their fields meaning: the body they build, its validation, their extra operations. What
// names and shows a kind is its definition (kinds/).
import { isObject } from '../engine/is-object'
import type { DocumentKind } from '../kinds'
import type { Db, Store } from '../store'
import type { DocumentRepository, DocumentRow, StoredBody } from '../store/documents'
import type { ChangeRunner, RecordChange } from './change-runner'
import type { Actor } from './context'
import { by } from './context'
import { notFound, versionConflict, alreadyExists } from '../errors'
import { eventKind, type Action, type DocumentType, type EventKind } from '../store/vocabulary/changes'
import { checkIfMatch, checkKey } from './keys'
import { touchedEnvironment } from '../access/affected-environments'

/** What the kind's service adds to its definition: where its rows are and what may be stored. */
export interface DocumentRules<Body extends StoredBody> {
  repository: DocumentRepository<Body>
  /** refuses a body that may not be stored under `key` (throws a validation error); `stored` is the body it replaces */
  validate(tx: Db, projectId: string, key: string, body: Body, stored: Body | undefined): Promise<void>
  /** refuses (throws) any change but a restore while the stored body says so (an archived flag) */
  editable?(body: Body, key: string): void
}

/** How an update is recorded: the environment it concerns (events, stream) and its audit action. */
export interface UpdateOptions {
  environment?: string
  action?: Exclude<Action, 'create' | 'delete'>
}

/** What an update makes of the stored body; may refuse (throw). */
export type NextBody<Body> = (body: Body, tx: Db) => Body | Promise<Body>

/** `Body`: the kind's stored body, an object type the store's JSON column holds as it is. */
export function versionedDocuments<Body extends StoredBody>(
  deps: { store: Store; changes: ChangeRunner },
  kind: DocumentKind<DocumentType, Body>,
  rules: DocumentRules<Body>,
) {
  const { store, changes } = deps
  const repo = rules.repository
  type Row = DocumentRow<Body>

  /** The stored row; inside a change's transaction it is locked until commit (see getForUpdate). */
  async function mustGet(tx: Db, projectId: string, key: string, forUpdate = true): Promise<Row> {
    const row = await (forUpdate ? repo.getForUpdate(tx, projectId, key) : repo.get(tx, projectId, key))
    if (!row) throw notFound(kind.notFoundCode, `${kind.label} "${key}"`)
    return row
  }

  const recordChange = (
    record: RecordChange,
    actor: Actor,
    action: Action,
    key: string,
    before: Row | null,
    after: Row | null,
    environment = '',
  ) =>
    record({
      projectId: actor.projectId,
      ...by(actor),
      action,
      resourceType: kind.type,
      resourceKey: key,
      authority: actor.authority,
      before: before && kind.view(before),
      after: after && kind.view(after),
      // Only flags are archived, restored or rolled back (the flag service is the one caller that asks).
      event: { kind: eventKind(kind.type, action) as EventKind, environment, data: kind.eventData((after ?? before)!) },
    })

  /** Inside a running change: validates and writes `body` over `current` at the version it was read at. */
  async function writeIn(tx: Db, record: RecordChange, actor: Actor, current: Row, body: Body, opts: UpdateOptions): Promise<Row> {
    await rules.validate(tx, actor.projectId, current.key, body, current.body)
    const updated = await repo.update(tx, actor.projectId, current.key, body, current.version, new Date().toISOString())
    if (!updated) throw versionConflict((await mustGet(tx, actor.projectId, current.key)).version)
    // An update that changes only one environment's override affects that environment only (teams.md §4).
    const environment =
      opts.environment ?? (opts.action === undefined || opts.action === 'update' ? touchedEnvironment(current.body, body) : '')
    await recordChange(record, actor, opts.action ?? 'update', current.key, current, updated, environment)
    return updated
  }

  /** Inside a running change: reads the document (locked), checks If-Match, and stores what `next` makes
   *  of its body. `next` may refuse (throw) after looking at the stored body or anything else in the
   *  transaction. */
  async function updateIn(
    tx: Db,
    record: RecordChange,
    actor: Actor,
    key: string,
    ifMatch: number | undefined,
    next: NextBody<Body>,
    opts: UpdateOptions = {},
  ): Promise<Row> {
    const current = await mustGet(tx, actor.projectId, key)
    checkIfMatch(ifMatch, current.version)
    if (opts.action !== 'restore') rules.editable?.(current.body, key)
    return writeIn(tx, record, actor, current, await next(current.body, tx), opts)
  }

  /** updateIn as one change of its own. */
  function update(actor: Actor, key: string, ifMatch: number | undefined, next: NextBody<Body>, opts: UpdateOptions = {}): Promise<Row> {
    return changes.run((tx, record) => updateIn(tx, record, actor, key, ifMatch, next, opts))
  }

  /** A dry run of update: refuses (throws) exactly as it would now, and writes nothing. */
  async function check(tx: Db, actor: Actor, key: string, next: NextBody<Body>): Promise<void> {
    const current = await mustGet(tx, actor.projectId, key, false)
    rules.editable?.(current.body, key)
    await rules.validate(tx, actor.projectId, key, await next(current.body, tx), current.body)
  }

  /** Inside a running change: validates and inserts a new document (409 when the key exists). */
  async function createIn(tx: Db, record: RecordChange, actor: Actor, rawKey: unknown, body: Body): Promise<Row> {
    const key = checkKey(rawKey)
    await rules.validate(tx, actor.projectId, key, body, undefined)
    if (await repo.get(tx, actor.projectId, key)) throw alreadyExists(`${kind.label} "${key}" already exists`)
    const now = new Date().toISOString()
    const row: Row = { projectId: actor.projectId, key, body, version: 1, createdAt: now, updatedAt: now }
    await repo.insert(tx, row)
    await recordChange(record, actor, 'create', key, null, row)
    return row
  }

  /** Inside a running change: deletes the document; `guard` may refuse first (e.g. 409 IN_USE). */
  async function deleteIn(
    tx: Db,
    record: RecordChange,
    actor: Actor,
    key: string,
    guard?: (tx: Db, current: Row, record: RecordChange) => Promise<void>,
  ): Promise<void> {
    const current = await mustGet(tx, actor.projectId, key)
    await guard?.(tx, current, record)
    await repo.delete(tx, actor.projectId, key)
    await recordChange(record, actor, 'delete', key, current, null)
  }

  /** Inside a running change: removes one environment's override (404 when there is none). */
  function deleteOverrideIn(
    tx: Db,
    record: RecordChange,
    actor: Actor,
    key: string,
    environment: string,
    ifMatch: number | undefined,
  ): Promise<Row> {
    return updateIn(
      tx,
      record,
      actor,
      key,
      ifMatch,
      (body) => {
        // Only the kinds with overrides (flags, configs) have routes and items that remove one.
        const envs = body.environments
        if (!isObject(envs) || !Object.hasOwn(envs, environment))
          throw notFound('NOT_FOUND', `Override for environment "${environment}" on ${kind.type} "${key}"`)
        const { [environment]: _removed, ...rest } = envs
        return { ...body, environments: rest }
      },
      { environment },
    )
  }

  return {
    mustGet,
    update,
    updateIn,
    check,
    page: (projectId: string, limit: number, offset: number) => repo.page(store.db, projectId, limit, offset),
    all: (projectId: string) => repo.all(store.db, projectId),
    get: (projectId: string, key: string) => mustGet(store.db, projectId, key, false),
    createIn,
    create: (actor: Actor, rawKey: unknown, body: Body): Promise<Row> =>
      changes.run((tx, record) => createIn(tx, record, actor, rawKey, body)),
    deleteIn,
    /** Deletes the document; `guard` may refuse first (e.g. 409 IN_USE), or make changes of its own in the
     *  same transaction (`record` audits them). */
    delete: (actor: Actor, key: string, guard?: (tx: Db, current: Row, record: RecordChange) => Promise<void>): Promise<void> =>
      changes.run((tx, record) => deleteIn(tx, record, actor, key, guard)),
    deleteOverrideIn,
    /** Removes one environment's override (404 when there is none), at the version read (If-Match). */
    deleteOverride: (actor: Actor, key: string, environment: string, ifMatch: number | undefined): Promise<Row> =>
      changes.run((tx, record) => deleteOverrideIn(tx, record, actor, key, environment, ifMatch)),
  }
}
export type VersionedDocuments<Body extends StoredBody> = ReturnType<typeof versionedDocuments<Body>>
