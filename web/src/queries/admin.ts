// The reads of the session, the project and the admin pages as TanStack Query `queryOptions` factories.
import { queryOptions } from '@tanstack/react-query'
import { api, keys, type AuditFilter } from '../api'

export const sessionQueries = {
  /** who the token is (checked at sign-in with the token given) */
  me: () => queryOptions({ queryKey: keys.me, queryFn: () => api.me(), staleTime: 60_000 }),
  project: () => queryOptions({ queryKey: keys.project, queryFn: api.project }),
}

export const adminQueries = {
  tokens: () => queryOptions({ queryKey: keys.tokens, queryFn: api.tokens }),
  webhooks: () => queryOptions({ queryKey: keys.webhooks, queryFn: api.webhooks }),
  deliveries: (webhookId: string) => queryOptions({ queryKey: keys.deliveries(webhookId), queryFn: () => api.deliveries(webhookId) }),
  audit: (filter: AuditFilter) => queryOptions({ queryKey: keys.auditPage(filter), queryFn: () => api.audit(filter) }),
}
