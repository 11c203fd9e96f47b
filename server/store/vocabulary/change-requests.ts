// The states and items of a change request (docs/change-requests.md): the store's tables hold them, the
// services and the HTTP schemas speak them. Pure types and constants.
import { DOCUMENT_TYPES } from './changes'

export const CHANGE_REQUEST_STATES = ['open', 'approved', 'scheduled', 'applied', 'rejected', 'cancelled', 'failed'] as const
export type ChangeRequestState = (typeof CHANGE_REQUEST_STATES)[number]

/** A change request carries changes to the versioned documents. */
export const ITEM_RESOURCE_TYPES = DOCUMENT_TYPES
export type ItemResourceType = (typeof ITEM_RESOURCE_TYPES)[number]
export const ITEM_ACTIONS = ['create', 'update', 'delete', 'set_override', 'delete_override', 'archive', 'restore', 'rollback'] as const
export type ItemAction = (typeof ITEM_ACTIONS)[number]

/** One change a request makes, as stored: `body` is what the direct route takes; `before`/`after` are the
 *  resource's wire form when the item was last validated (the diff the console shows). */
export interface ChangeRequestItem {
  resource_type: ItemResourceType
  key: string
  action: ItemAction
  body?: Record<string, unknown>
  environment?: string
  /** the resource's version the item was written against; null: the resource must not exist (create) */
  base_version: number | null
  before: unknown
  after: unknown
}

/** Why a change may touch a protected environment: a project admin's break glass, or an approved request. */
export type ChangeAuthority = { kind: 'bypass'; reason: string } | { kind: 'change_request'; id: string; approvers: string[] }
