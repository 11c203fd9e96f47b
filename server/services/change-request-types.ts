// What allows a change through a protected environment, and how a service applies a request's item
// (docs/change-requests.md). The request's states and items themselves are store/vocabulary/change-requests.ts.
import type { ItemAction } from '../store/vocabulary/change-requests'

/** Why a change may touch a protected environment: a project admin's break glass, or an approved request. */
export type ChangeAuthority =
  | { kind: 'bypass'; reason: string }
  | { kind: 'change_request'; id: string; approvers: string[] }

export const BYPASS_HEADER = 'flagship-bypass-reason'
export const BYPASS_REASON_MIN = 10
export const BYPASS_REASON_MAX = 500

/** One change as a resource service applies it inside a running change (`xxxService().opIn`): the item's
 *  action on `key` with the body its direct route takes, at `ifMatch`. Answers the row after (null: deleted). */
export interface DocumentOp {
  action: ItemAction
  key: string
  body: Record<string, unknown>
  environment?: string
  ifMatch?: number
}

export const unsupportedAction = (resource: string, action: string) => ({ path: 'action', message: `a ${resource} has no "${action}" action` })
