// Environment policies (docs/change-requests.md §1): whether changes to an environment need an approved
// change request, how many approvals, and from which role. A policy change is a project-settings change:
// audited (resource `project`, before/after `{ policy }`) with a `project.updated` event.
import type { Db } from '../store'
import type { PolicyRow } from '../store/policies'
import { by, type Actor, type ServiceDeps } from './context'
import { notFound, validationError } from '../errors'

export interface PolicyInput {
  protected: boolean
  required_approvals: number
  approver_role: 'editor' | 'admin'
}

export interface PolicyView extends PolicyInput {
  environment: string
  updated_at: string | null
}

export const policyView = (environment: string, row: PolicyRow | undefined): PolicyView => ({
  environment,
  protected: row?.protected ?? false,
  required_approvals: row?.requiredApprovals ?? 1,
  approver_role: row?.approverRole ?? 'editor',
  updated_at: row?.updatedAt ?? null,
})

export function policyService({ store, changes }: Pick<ServiceDeps, 'store' | 'changes'>) {
  async function environmentsOf(db: Db, projectId: string, environment: string): Promise<void> {
    const project = await store.projects.get(db, projectId)
    if (!project?.environments.includes(environment)) throw notFound('NOT_FOUND', `Environment "${environment}"`)
  }

  return {
    /** Every environment's policy (unprotected defaults for those without one). */
    async all(projectId: string, db: Db = store.db): Promise<PolicyView[]> {
      const project = await store.projects.get(db, projectId)
      const rows = new Map((await store.policies.byProject(db, projectId)).map((r) => [r.environment, r]))
      return (project?.environments ?? []).map((e) => policyView(e, rows.get(e)))
    },
    async get(projectId: string, environment: string): Promise<PolicyView> {
      await environmentsOf(store.db, projectId, environment)
      return policyView(environment, await store.policies.get(store.db, projectId, environment))
    },
    put(actor: Actor, environment: string, input: PolicyInput): Promise<PolicyView> {
      if (!Number.isInteger(input.required_approvals) || input.required_approvals < 1 || input.required_approvals > 5) {
        throw validationError([{ path: 'required_approvals', message: 'must be an integer from 1 to 5' }])
      }
      return changes.run(async (tx, record) => {
        await environmentsOf(tx, actor.projectId, environment)
        const before = policyView(environment, await store.policies.get(tx, actor.projectId, environment))
        const row: PolicyRow = {
          projectId: actor.projectId, environment, protected: input.protected, requiredApprovals: input.required_approvals,
          approverRole: input.approver_role, updatedAt: new Date().toISOString(),
        }
        await store.policies.put(tx, row)
        const after = policyView(environment, row)
        await record({
          projectId: actor.projectId, ...by(actor), action: 'update', resourceType: 'project', resourceKey: actor.projectId,
          before: { policy: before }, after: { policy: after },
          event: { kind: 'project.updated', environment, data: { policy: after } },
        })
        return after
      })
    },
  }
}
export type PolicyService = ReturnType<typeof policyService>
