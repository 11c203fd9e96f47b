// Reading the audit log (writing happens in change-runner, inside each change's transaction).
import type { AuditFilter, AuditRow } from '../store/audit'
import type { ServiceDeps } from './context'

export const auditView = (r: AuditRow) => ({
  id: r.id, timestamp: r.timestamp, actor: r.actor, action: r.action, resource_type: r.resourceType,
  resource_key: r.resourceKey, project_id: r.projectId, before: r.before, after: r.after,
  ...(r.details && { details: r.details }),
})

export function auditService({ store }: ServiceDeps) {
  return {
    page: (projectId: string, filter: AuditFilter, limit: number, offset: number) => store.audit.page(store.db, projectId, filter, limit, offset),
  }
}
export type AuditService = ReturnType<typeof auditService>
