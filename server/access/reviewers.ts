// Who may review a change request (docs/change-requests.md §3), from memory: a person with write rights in
// every environment the request affects (their project role and environment grants, or an instance role),
// and the project admin role when a policy asks for it. Bound into the change-request service at start.
import type { Snapshots } from '../cache/snapshots'
import type { Directory } from '../identity/directory'
import type { Affected } from './affected-environments'
import type { Access } from './authorize'

/** Who may review, from the people directory and roles (reviewersFrom below; bound at start); the
 *  change-request service (services/change-request-views.ts) asks it. */
export interface Reviewers {
  person(userId: string): { id: string; email: string; name: string } | undefined
  /** write rights in every `affected` environment of the project (and the admin role when `needAdmin`) */
  mayReview(userId: string, projectId: string, affected: Affected, needAdmin: boolean): boolean
}

export function reviewersFrom(directory: Directory, access: Access, snapshots: Snapshots): Reviewers {
  return {
    person(userId) {
      const p = directory.get(userId)
      return p && { id: p.user.id, email: p.user.email, name: p.user.name }
    },
    mayReview(userId, projectId, affected, needAdmin) {
      const person = directory.get(userId)
      const project = snapshots.project(projectId)?.project
      if (!person || person.user.disabled || !project) return false
      const grant = access.grantOf(person, projectId)
      if (!grant || (needAdmin && grant.role !== 'admin')) return false
      try {
        access.checkGrant(grant, 'write:flags', affected, project)
        return true
      } catch {
        return false
      }
    },
  }
}
