// What allows a change through a protected environment (docs/change-requests.md). The request's states and
// items are store/vocabulary/change-requests.ts; how a service applies an item, document-ops.ts.

// The authority a change carries is recorded with the change (notices/changes.ts), so its type is vocabulary.
export type { ChangeAuthority } from '../store/vocabulary/change-requests'

export const BYPASS_HEADER = 'flagship-bypass-reason'
export const BYPASS_REASON_MIN = 10
export const BYPASS_REASON_MAX = 500

export const unsupportedAction = (resource: string, action: string) => ({
  path: 'action',
  message: `a ${resource} has no "${action}" action`,
})
