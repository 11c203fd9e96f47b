// Environment policies (docs/change-requests.md §1): whether changes to an environment need an approved
// change request, how many approvals, from which role, and whether a change that only stops serving may
// skip review (emergency off). A policy change is a project-settings change: audited (resource `project`,
// before/after `{ policy }`) with a `project.updated` and a `policy.updated` event. Lowering protection
// takes a project admin's session: a token (machine or personal) that could do it would let one person
// unprotect, write and protect again.
import type { Db } from '../store'
import type { PolicyRow } from '../store/policies'
import { by, type Actor, type ServiceDeps } from './context'
import { notFound, validationError, forbidden } from '../errors'
import { POLICY_UPDATED } from '../store/vocabulary/changes'

export interface PolicyInput {
  protected: boolean
  required_approvals: number
  approver_role: 'editor' | 'admin'
  /** absent: unchanged (true for an environment without a policy) */
  allow_emergency_off?: boolean
}

export interface PolicyView extends Required<PolicyInput> {
  environment: string
  updated_at: string | null
}

export const policyView = (environment: string, row: PolicyRow | undefined): PolicyView => ({
  environment,
  protected: row?.protected ?? false,
  required_approvals: row?.requiredApprovals ?? 1,
  approver_role: row?.approverRole ?? 'editor',
  allow_emergency_off: row?.allowEmergencyOff ?? true,
  updated_at: row?.updatedAt ?? null,
})

/** What `after` gives up against `before` (empty: nothing lowered). */
export function loweredBy(before: PolicyView, after: PolicyView): string[] {
  return [
    ...(before.protected && !after.protected ? ['protected'] : []),
    ...(after.required_approvals < before.required_approvals ? ['required_approvals'] : []),
    ...(before.approver_role === 'admin' && after.approver_role !== 'admin' ? ['approver_role'] : []),
    ...(!before.allow_emergency_off && after.allow_emergency_off ? ['allow_emergency_off'] : []),
  ]
}

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
    /** `session`: the caller is a person signed in (not a token): only then may protection be lowered. */
    put(actor: Actor, environment: string, input: PolicyInput, session: boolean): Promise<PolicyView> {
      if (!Number.isInteger(input.required_approvals) || input.required_approvals < 1 || input.required_approvals > 5) {
        throw validationError([{ path: 'required_approvals', message: 'must be an integer from 1 to 5' }])
      }
      return changes.run(async (tx, record) => {
        await environmentsOf(tx, actor.projectId, environment)
        const before = policyView(environment, await store.policies.get(tx, actor.projectId, environment))
        const row: PolicyRow = {
          projectId: actor.projectId,
          environment,
          protected: input.protected,
          requiredApprovals: input.required_approvals,
          approverRole: input.approver_role,
          allowEmergencyOff: input.allow_emergency_off ?? before.allow_emergency_off,
          updatedAt: new Date().toISOString(),
        }
        const after = policyView(environment, row)
        const lowered = loweredBy(before, after)
        if (lowered.length && !session) {
          throw forbidden(
            'FORBIDDEN',
            `Lowering protection (${lowered.join(', ')}) needs a project admin signed in to the console, not a token`,
            { required: 'session', lowered },
          )
        }
        await store.policies.put(tx, row)
        await record({
          projectId: actor.projectId,
          ...by(actor),
          action: 'update',
          resourceType: 'project',
          resourceKey: actor.projectId,
          before: { policy: before },
          after: { policy: after },
          event: { kind: 'project.updated', environment, data: { policy: after } },
          alsoEmit: [{ kind: POLICY_UPDATED, environment, data: { environment, policy: after, previous: before, lowered } }],
        })
        return after
      })
    },
  }
}
export type PolicyService = ReturnType<typeof policyService>
