// A change-request item as the resource services apply it (docs/change-requests.md §2): per resource and
// action, the body its direct route takes. The schemas that check an item's body when it is written
// (change-request-items.ts) are the ones its type is read from, so each service's steps get typed fields.
import { t, type Static, type TSchema } from 'elysia'
import * as S from '../schemas'
import type { Db } from '../store'
import type { DocumentRow } from '../store/documents'
import type { ItemAction, ItemResourceType } from '../store/vocabulary/change-requests'
import type { RecordChange } from './change-runner'
import type { Actor } from './context'

const Rollback = t.Object({ version: t.Integer({ minimum: 1 }) })
const Empty = t.Object({})
const SegmentDelete = t.Object({ force: t.Optional(t.Boolean()) })
/** The body each (resource, action) takes: exactly the direct route's. */
export const ITEM_BODIES = {
  flag: {
    create: S.FlagCreate,
    update: S.FlagPatch,
    delete: Empty,
    set_override: S.FlagEnvironmentOverride,
    delete_override: Empty,
    archive: Empty,
    restore: Empty,
    rollback: Rollback,
  },
  config: {
    create: S.ConfigCreate,
    update: S.ConfigPatch,
    delete: Empty,
    set_override: S.ConfigEnvironmentOverride,
    delete_override: Empty,
  },
  segment: { create: S.SegmentCreate, update: S.SegmentPatch, delete: SegmentDelete },
} satisfies Record<ItemResourceType, Partial<Record<ItemAction, TSchema>>>

type Bodies<T extends ItemResourceType> = (typeof ITEM_BODIES)[T]
type BodyOf<Schema> = Schema extends TSchema ? Static<Schema> : never
/** One change as a resource service applies it inside a running change (`xxxService().opIn`): the item's
 *  action on `key` with the body its direct route takes, at `ifMatch`. */
export type DocumentOp<T extends ItemResourceType> = {
  [A in keyof Bodies<T>]: { action: A; key: string; body: BodyOf<Bodies<T>[A]>; environment?: string; ifMatch?: number }
}[keyof Bodies<T>]

/** What the services give the change requests: each resource's step inside a running change. Answers the
 *  row after (null: deleted). */
export interface ItemServices {
  flag: { opIn(tx: Db, record: RecordChange, actor: Actor, op: DocumentOp<'flag'>): Promise<DocumentRow | null> }
  config: { opIn(tx: Db, record: RecordChange, actor: Actor, op: DocumentOp<'config'>): Promise<DocumentRow | null> }
  segment: { opIn(tx: Db, record: RecordChange, actor: Actor, op: DocumentOp<'segment'>): Promise<DocumentRow | null> }
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

/** Runs one item through its resource's step. The one place a stored item's body is taken as its schema's
 *  type: the stored JSON is what checkItemShapes accepted. */
export function runItem(
  services: ItemServices,
  tx: Db,
  record: RecordChange,
  actor: Actor,
  item: StoredItem,
  ifMatch?: number,
): Promise<DocumentRow | null> {
  const op = { action: item.action, key: item.key, body: item.body ?? {}, environment: item.environment, ifMatch }
  switch (item.resource_type) {
    case 'flag':
      return services.flag.opIn(tx, record, actor, op as DocumentOp<'flag'>)
    case 'config':
      return services.config.opIn(tx, record, actor, op as DocumentOp<'config'>)
    case 'segment':
      return services.segment.opIn(tx, record, actor, op as DocumentOp<'segment'>)
  }
}
