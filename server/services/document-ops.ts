// A change-request item as the resource services apply it (docs/change-requests.md §2): per resource and
// action, the body its direct route takes. The bodies are each kind's (kinds/: `items`), and the schemas
// that check an item's body when it is written (change-request-items.ts) are the ones its type is read from,
// so each service's steps get typed fields.
import type { Static, TSchema } from 'elysia'
import { KINDS, type AnyKind, type Bodies } from '../kinds'
import { agree, type SameKeys } from '../schemas/common'
import type { Db } from '../store'
import type { DocumentRow } from '../store/documents'
import type { ItemAction, ItemResourceType } from '../store/vocabulary/change-requests'
import type { RecordChange } from './change-runner'
import type { Actor } from './context'

type ItemBodies = { [K in AnyKind as K['type']]: K['items'] }
/** The body each (resource, action) takes: exactly the direct route's, from each kind's definition. */
export const ITEM_BODIES = Object.fromEntries(KINDS.map((k) => [k.type, k.items])) as ItemBodies
// Change requests carry every kind, and nothing else (store/vocabulary/ names the item types the table holds).
agree<SameKeys<ItemBodies, Record<ItemResourceType, unknown>>>()

type BodiesOf<T extends ItemResourceType> = ItemBodies[T]
type BodyOf<Schema> = Schema extends TSchema ? Static<Schema> : never
/** One change as a resource service applies it inside a running change (`xxxService().opIn`): the item's
 *  action on `key` with the body its direct route takes, at `ifMatch`. */
export type DocumentOp<T extends ItemResourceType> = {
  [A in keyof BodiesOf<T>]: { action: A; key: string; body: BodyOf<BodiesOf<T>[A]>; environment?: string; ifMatch?: number }
}[keyof BodiesOf<T>]

/** What the services give the change requests: each resource's step inside a running change. Answers the
 *  row after (null: deleted). */
export type ItemServices = {
  [T in ItemResourceType]: { opIn(tx: Db, record: RecordChange, actor: Actor, op: DocumentOp<T>): Promise<DocumentRow<Bodies[T]> | null> }
}

/** A stored item, as written: its body was checked against ITEM_BODIES[resource_type][action] then
 *  (checkItemShapes) and is stored as checked. */
export interface StoredItem {
  resource_type: ItemResourceType
  key: string
  action: ItemAction
  body?: Record<string, unknown>
  environment?: string
}

type StoredOp = { action: ItemAction; key: string; body: Record<string, unknown>; environment?: string; ifMatch?: number }

/** Runs one item through its resource's step. */
export function runItem(
  services: ItemServices,
  tx: Db,
  record: RecordChange,
  actor: Actor,
  item: StoredItem,
  ifMatch?: number,
): Promise<DocumentRow | null> {
  const op = { action: item.action, key: item.key, body: item.body ?? {}, environment: item.environment, ifMatch }
  // The one place a stored item's body is taken as its schema's type: the stored JSON (a column with no schema
  // of its own) is what checkItemShapes accepted against ITEM_BODIES[resource_type][action], and the service
  // is the item's resource's.
  const service = services[item.resource_type] as {
    opIn(tx: Db, record: RecordChange, actor: Actor, op: StoredOp): Promise<DocumentRow | null>
  }
  return service.opIn(tx, record, actor, op)
}
