// The console's view of change requests and environment policies (docs/change-requests.md): wire types from
// the server's schemas, calls and query keys.
import type { Static } from '@sinclair/typebox'
import type {
  ChangeRequest as ChangeRequestSchema,
  Policy as PolicySchema,
  PolicyInput as PolicyInputSchema,
  UnreviewedChange as UnreviewedSchema,
} from '../../server/schemas/change-requests'
import { request } from './api'

export type ChangeRequest = Static<typeof ChangeRequestSchema>
export type Policy = Static<typeof PolicySchema>
export type PolicyInput = Static<typeof PolicyInputSchema>
export type UnreviewedChange = Static<typeof UnreviewedSchema>
export interface ItemInput {
  resource_type: 'flag' | 'config' | 'segment'
  key: string
  action: string
  body?: Record<string, unknown>
  environment?: string
  base_version?: number | null
}
type Written = { success: true; change_request: ChangeRequest }
export type Inbox = 'awaiting' | 'mine' | 'scheduled' | 'recent'

export const crKeys = {
  all: ['change-requests'] as const,
  list: (inbox: Inbox) => ['change-requests', 'list', inbox] as const,
  one: (id: string) => ['change-requests', 'one', id] as const,
  awaitingCount: ['change-requests', 'awaiting-count'] as const,
  withoutReview: ['change-requests', 'without-review'] as const,
  policies: ['policies'] as const,
}

const INBOX_QUERY: Record<Inbox, Record<string, string>> = {
  awaiting: { awaiting: 'me' },
  mine: { author: 'me' },
  scheduled: { state: 'scheduled' },
  recent: {},
}

export const crApi = {
  list: (inbox: Inbox, limit = 50) =>
    request<{ change_requests: ChangeRequest[]; total: number }>('GET', '/change-requests', { query: { ...INBOX_QUERY[inbox], limit } }),
  get: async (id: string) =>
    (await request<{ change_request: ChangeRequest }>('GET', `/change-requests/${encodeURIComponent(id)}`)).change_request,
  create: async (input: { title: string; description?: string; items: ItemInput[]; apply_at?: string }) =>
    (await request<Written>('POST', '/change-requests', { body: input })).change_request,
  review: async (id: string, input: { decision: 'approve' | 'reject' | 'comment'; revision: number; comment?: string }) =>
    (await request<Written>('POST', `/change-requests/${encodeURIComponent(id)}/reviews`, { body: input })).change_request,
  apply: async (id: string, revision: number) =>
    (await request<Written>('POST', `/change-requests/${encodeURIComponent(id)}/apply`, { body: { revision } })).change_request,
  cancel: async (id: string) => (await request<Written>('POST', `/change-requests/${encodeURIComponent(id)}/cancel`)).change_request,
  withoutReview: async () => (await request<{ changes: UnreviewedChange[] }>('GET', '/change-requests/applied-without-review')).changes,
  policies: async () => (await request<{ policies: Policy[] }>('GET', '/project/policies')).policies,
  putPolicy: (environment: string, input: PolicyInput) =>
    request<Policy>('PUT', `/project/environments/${encodeURIComponent(environment)}/policy`, { body: input }),
}

const PLURAL = { flag: 'flags', config: 'configs', segment: 'segments' } as const

/** An item made directly, as its own route takes it (break glass: with the reason header). */
export function directWrite(item: ItemInput, reason: string): Promise<unknown> {
  const base = `/${PLURAL[item.resource_type]}/${encodeURIComponent(item.key)}`
  const opts = { headers: { 'flagship-bypass-reason': reason }, ...(item.base_version != null && { ifMatch: item.base_version }) }
  const env = `${base}/environments/${encodeURIComponent(item.environment ?? '')}`
  switch (item.action) {
    case 'create':
      return request('POST', `/${PLURAL[item.resource_type]}`, { body: item.body, headers: opts.headers })
    case 'update':
      return request('PUT', base, { ...opts, body: item.body })
    case 'delete':
      return request('DELETE', base, opts)
    case 'set_override':
      return request('PUT', env, { ...opts, body: item.body })
    case 'delete_override':
      return request('DELETE', env, opts)
    default:
      return request('POST', `${base}/${item.action}`, { ...opts, ...(item.body && { body: item.body }) })
  }
}

/** Items whose resource moved on since they were written (the stale banner). */
export const staleItemsOf = (cr: ChangeRequest) => cr.items.filter((i) => i.current_version !== i.base_version)
