// The wire form of a change request (docs/change-requests.md §2) and how its approvals are counted (§3):
// distinct people who approved at the current revision, never the author, each still allowed to review
// every environment it affects (counted again at apply).
import { affectedNames, type Affected } from '../access/affected-environments'
import type { ChangeRequestRow, ReviewRow } from '../store/change-requests'
import type { PolicyRow } from '../store/policies'
import { itemsAffect } from './change-request-items'
import type { Reviewers } from '../access/reviewers'
export type { Reviewers } from '../access/reviewers'

export interface PersonView {
  id: string | null
  email: string | null
  name: string
}

/** The policy a request answers to: the protected environments it affects and what they ask. */
export interface RequestPolicy {
  affected: Affected
  environments: string[]
  required: number
  needAdmin: boolean
}

export function requestPolicy(row: Pick<ChangeRequestRow, 'items'>, projectEnvironments: string[], policies: PolicyRow[]): RequestPolicy {
  const affected = itemsAffect(row.items)
  const names = affectedNames(affected, projectEnvironments)
  const hit = policies.filter((p) => p.protected && names.includes(p.environment))
  return {
    affected,
    environments: hit.map((p) => p.environment),
    required: Math.max(1, ...hit.map((p) => p.requiredApprovals)),
    needAdmin: hit.some((p) => p.approverRole === 'admin'),
  }
}

/** The user ids whose approvals count now. */
export function countedApprovers(row: ChangeRequestRow, reviews: ReviewRow[], policy: RequestPolicy, reviewers: Reviewers): string[] {
  const ids = new Set(
    reviews
      .filter((r) => r.decision === 'approve' && r.revision === row.revision && r.reviewerUserId !== row.authorUserId)
      .map((r) => r.reviewerUserId),
  )
  return [...ids].filter((id) => reviewers.mayReview(id, row.projectId, policy.affected, policy.needAdmin))
}

export function personView(reviewers: Reviewers, userId: string | null, name: string): PersonView {
  const p = userId === null ? undefined : reviewers.person(userId)
  return p ? { id: p.id, email: p.email, name: p.name } : { id: userId, email: null, name }
}

/** `data` of its webhook events. */
export const eventData = (row: ChangeRequestRow, reviewers: Reviewers, environments: string[]) => ({
  title: row.title,
  state: row.state,
  author: personView(reviewers, row.authorUserId, row.authorName),
  environments,
})

/** What its audit entries hold (no item bodies: those are in the request itself). */
export const auditView = (row: ChangeRequestRow) => ({
  id: row.id,
  title: row.title,
  state: row.state,
  revision: row.revision,
  apply_at: row.applyAt,
  items: row.items.length,
})

export function changeRequestView(
  row: ChangeRequestRow,
  reviews: ReviewRow[],
  policy: RequestPolicy,
  reviewers: Reviewers,
  currentVersions: (number | null)[],
) {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    author: personView(reviewers, row.authorUserId, row.authorName),
    state: row.state,
    revision: row.revision,
    items: row.items.map((item, i) => ({ ...item, current_version: currentVersions[i] ?? null })),
    reviews: reviews.map((r) => ({
      reviewer: personView(reviewers, r.reviewerUserId, ''),
      decision: r.decision,
      revision: r.revision,
      comment: r.comment,
      at: r.at,
    })),
    approvals_required: policy.required,
    approvals: countedApprovers(row, reviews, policy, reviewers).length,
    environments: policy.environments,
    apply_at: row.applyAt,
    applied_at: row.appliedAt,
    approvers: row.appliedApprovers ? row.appliedApprovers.map((id) => personView(reviewers, id, '')) : null,
    error: row.error,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  }
}
export type ChangeRequestView = ReturnType<typeof changeRequestView>
