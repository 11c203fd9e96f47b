// A change request's items (docs/change-requests.md §2): their shape (the body each direct route takes),
// the environments they affect, a dry run that validates them exactly as the direct writes would be (run
// through the same service steps in a transaction that is always rolled back, which also yields each
// item's before/after), and the base-version check made when applying.
import { Value } from '@sinclair/typebox/value'
import type { TSchema } from 'elysia'
import { affectedByChange, touchedEnvironment, unionAffected, type Affected } from '../access/affected-environments'
import { KIND, type DocumentKind } from '../kinds'
import type { Db, Store } from '../store'
import type { DocumentRepository, DocumentRow } from '../store/documents'
import {
  ITEM_ACTIONS,
  ITEM_RESOURCE_TYPES,
  type ChangeRequestItem,
  type ItemAction,
  type ItemResourceType,
} from '../store/vocabulary/change-requests'
import type { RecordChange } from './change-runner'
import type { Actor } from './context'
import { ITEM_BODIES, runItem, type ItemServices } from './document-ops'
import { AppError, validationError, invalid } from '../errors'
import { isObject } from '../engine/is-object'

export type { ItemServices } from './document-ops'

export const MAX_ITEMS = 100

/** ITEM_BODIES looked up by an item's resource and action as sent (checked to be known, not to be a pair). */
const BODIES: Record<ItemResourceType, Partial<Record<ItemAction, TSchema>>> = ITEM_BODIES
const PER_ENVIRONMENT = new Set<ItemAction>(['set_override', 'delete_override'])

/** An item's kind; its rows are held as the store's JSON objects here (an item's row is its kind's, read
 *  from that kind's repository: repositoryOf). */
const kindOf = (type: ItemResourceType): DocumentKind => KIND[type]

export const viewOf = (type: ItemResourceType, row: DocumentRow | null | undefined): unknown => (!row ? null : kindOf(type).view(row))

export const repositoryOf = (store: Store, type: ItemResourceType): DocumentRepository => store[KIND[type].plural]

/** The environments one item affects (teams.md §4). */
export const itemAffects = (
  item: Pick<ChangeRequestItem, 'resource_type' | 'environment'> & Partial<Pick<ChangeRequestItem, 'action' | 'before' | 'after'>>,
): Affected =>
  affectedByChange(
    item.resource_type,
    item.environment ?? (item.action === 'update' && item.resource_type !== 'segment' ? touchedEnvironment(item.before, item.after) : ''),
  )
export const itemsAffect = (
  items: (Pick<ChangeRequestItem, 'resource_type' | 'environment'> & Partial<Pick<ChangeRequestItem, 'action' | 'before' | 'after'>>)[],
): Affected => unionAffected(items.map(itemAffects))

/** The write permission an item needs, as its direct route. */
export const permissionOf = (item: Pick<ChangeRequestItem, 'resource_type'>) =>
  (item.resource_type === 'config' ? 'write:configs' : 'write:flags') as 'write:flags' | 'write:configs'

const itemError = (index: number, key: unknown, issues: { path: string; message: string }[]) =>
  validationError(issues.map((i) => ({ path: `items.${index}${i.path ? `.${i.path}` : ''}`, message: i.message })))

/** Checks the items' shape; answers them with `base_version` as sent (undefined: take the current one). */
export function checkItemShapes(
  raw: unknown,
): (Omit<ChangeRequestItem, 'base_version' | 'before' | 'after'> & { base_version?: number | null })[] {
  if (!Array.isArray(raw) || raw.length < 1 || raw.length > MAX_ITEMS)
    throw validationError([{ path: 'items', message: `must be a list of 1 to ${MAX_ITEMS} items` }])
  return raw.map((item, i) => {
    if (!isObject(item)) throw itemError(i, undefined, [{ path: '', message: 'must be an object' }])
    const { resource_type: type, key, action, body, environment, base_version: base, ...rest } = item
    const issues: { path: string; message: string }[] = Object.keys(rest).map((k) => ({ path: k, message: 'is not a field of an item' }))
    if (!ITEM_RESOURCE_TYPES.includes(type as ItemResourceType))
      issues.push({ path: 'resource_type', message: `must be one of ${ITEM_RESOURCE_TYPES.join(', ')}` })
    if (typeof key !== 'string' || key.length < 1 || key.length > 200) issues.push({ path: 'key', message: 'must be a key' })
    if (!ITEM_ACTIONS.includes(action as ItemAction)) issues.push({ path: 'action', message: `must be one of ${ITEM_ACTIONS.join(', ')}` })
    if (base !== undefined && base !== null && !(Number.isInteger(base) && (base as number) >= 1))
      issues.push({ path: 'base_version', message: 'must be a version (a positive integer)' })
    if (issues.length) throw itemError(i, key, issues)
    const schema = BODIES[type as ItemResourceType][action as ItemAction]
    if (!schema) throw itemError(i, key, [{ path: 'action', message: `a ${type} has no "${action}" action` }])
    if (PER_ENVIRONMENT.has(action as ItemAction) !== (environment !== undefined)) {
      throw itemError(i, key, [
        {
          path: 'environment',
          message: PER_ENVIRONMENT.has(action as ItemAction)
            ? 'is required for this action'
            : 'is only for set_override and delete_override',
        },
      ])
    }
    if (environment !== undefined && (typeof environment !== 'string' || !environment))
      throw itemError(i, key, [{ path: 'environment', message: 'must be an environment name' }])
    if (body !== undefined && !isObject(body)) throw itemError(i, key, [{ path: 'body', message: 'must be an object' }])
    const sent = body ?? {}
    // A create's key is the item's (the direct route has it in its body).
    const checked = action === 'create' ? { ...sent, key } : sent
    const first = Value.Errors(schema, checked).First()
    if (first) throw itemError(i, key, [{ path: `body${first.path.replaceAll('/', '.')}`, message: first.message }])
    return {
      resource_type: type as ItemResourceType,
      key: key as string,
      action: action as ItemAction,
      body: checked,
      ...(environment !== undefined && { environment: environment as string }),
      ...(base !== undefined && { base_version: base as number | null }),
    }
  })
}

const ROLLBACK = Symbol('dry run')

/**
 * Runs the items, in order, through the services' own steps inside a transaction that is then rolled back:
 * each is refused (400 naming the item) exactly as its direct write would be now. Answers the items with
 * their base version (the current one unless sent) and their before/after.
 */
export async function dryRun(
  store: Store,
  services: ItemServices,
  actor: Actor,
  items: ReturnType<typeof checkItemShapes>,
): Promise<ChangeRequestItem[]> {
  let out: ChangeRequestItem[] = []
  const noRecord: RecordChange = async () => {}
  try {
    await store.transaction(async (tx) => {
      // A resource several items change: every item carries the version it had before the request.
      const bases = new Map<string, number | null>()
      for (const [i, item] of items.entries()) {
        const current = await repositoryOf(store, item.resource_type).get(tx, actor.projectId, item.key)
        const id = `${item.resource_type}:${item.key}`
        if (!bases.has(id)) bases.set(id, item.base_version !== undefined ? item.base_version : (current?.version ?? null))
        let after: DocumentRow | null
        try {
          after = await runItem(services, tx, noRecord, actor, item)
        } catch (e) {
          if (!(e instanceof AppError)) throw e
          const issues = (e.details?.issues as { path: string; message: string }[] | undefined) ?? [
            { path: '', message: `${e.code}: ${e.message}` },
          ]
          throw invalid('INVALID_ITEM', `Item ${i} (${item.resource_type} "${item.key}", ${item.action}) would be refused: ${e.message}`, {
            item: i,
            key: item.key,
            code: e.code,
            issues: issues.map((x) => ({ path: `items.${i}${x.path ? `.body.${x.path}` : ''}`, message: x.message })),
          })
        }
        out.push({
          ...item,
          body: item.body ?? {},
          base_version: bases.get(id)!,
          before: viewOf(item.resource_type, current),
          after: viewOf(item.resource_type, after),
        })
      }
      throw ROLLBACK
    })
  } catch (e) {
    if (e !== ROLLBACK) {
      out = []
      throw e
    }
  }
  return out
}

/** Items whose resource is no longer at `base_version` (read locked, inside the apply transaction); each
 *  resource once, at its first item. */
export async function staleItems(store: Store, tx: Db, projectId: string, items: ChangeRequestItem[]) {
  const stale: {
    index: number
    resource_type: ItemResourceType
    key: string
    base_version: number | null
    current_version: number | null
  }[] = []
  const seen = new Set<string>()
  for (const [index, item] of items.entries()) {
    if (seen.has(`${item.resource_type}:${item.key}`)) continue
    seen.add(`${item.resource_type}:${item.key}`)
    const row = await repositoryOf(store, item.resource_type).getForUpdate(tx, projectId, item.key)
    const current = row?.version ?? null
    if (current !== item.base_version)
      stale.push({ index, resource_type: item.resource_type, key: item.key, base_version: item.base_version, current_version: current })
  }
  return stale
}
