// What allows a change through a protected environment (docs/change-requests.md). The request's states and
// items are store/vocabulary/change-requests.ts; how a service applies an item, document-ops.ts.

/** Why a change may touch a protected environment: a project admin's break glass, or an approved request. */
export type ChangeAuthority =
  | { kind: 'bypass'; reason: string }
  | { kind: 'change_request'; id: string; approvers: string[] }

export const BYPASS_HEADER = 'flagship-bypass-reason'
export const BYPASS_REASON_MIN = 10
export const BYPASS_REASON_MAX = 500

export const unsupportedAction = (resource: string, action: string) => ({ path: 'action', message: `a ${resource} has no "${action}" action` })
