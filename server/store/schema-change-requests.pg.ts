// PostgreSQL tables for change requests (docs/change-requests.md): each environment's policy, the requests and
// their reviews. Mirrored column-for-column by schema-change-requests.sqlite.ts.
import { pgTable, text, integer, boolean, jsonb, primaryKey, index } from 'drizzle-orm/pg-core'
import type { ChangeRequestItem, ChangeRequestState } from './vocabulary/change-requests'

const json = <T>(name: string) => jsonb(name).$type<T>()

export const environmentPolicies = pgTable(
  'environment_policies',
  {
    projectId: text('project_id').notNull(),
    environment: text('environment').notNull(),
    protected: boolean('protected').notNull(),
    requiredApprovals: integer('required_approvals').notNull(),
    approverRole: text('approver_role').$type<'editor' | 'admin'>().notNull(),
    /** a change that only stops serving applies without review (docs/change-requests.md §1) */
    allowEmergencyOff: boolean('allow_emergency_off').notNull().default(true),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.environment] })],
)

export const changeRequests = pgTable(
  'change_requests',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    title: text('title').notNull(),
    description: text('description').notNull(),
    /** the person behind the credential that proposed it: a session's user, a personal token's owner, a
     *  machine token's creator (null for a machine token without one) */
    authorUserId: text('author_user_id'),
    /** the name audit entries carry: the person's email, or the token's prefix */
    authorName: text('author_name').notNull(),
    /** the hash of the machine token that proposed it (null for a person's session or personal token) */
    authorTokenHash: text('author_token_hash'),
    state: text('state').$type<ChangeRequestState>().notNull(),
    revision: integer('revision').notNull(),
    items: json<ChangeRequestItem[]>('items').notNull(),
    applyAt: text('apply_at'),
    appliedAt: text('applied_at'),
    /** the approvers counted when it was applied */
    appliedApprovers: json<string[]>('applied_approvers'),
    error: json<{ code: string; message: string }>('error'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('change_requests_project_idx').on(t.projectId, t.updatedAt), index('change_requests_due_idx').on(t.state, t.applyAt)],
)

export const changeRequestReviews = pgTable(
  'change_request_reviews',
  {
    id: text('id').primaryKey(),
    changeRequestId: text('change_request_id').notNull(),
    reviewerUserId: text('reviewer_user_id').notNull(),
    decision: text('decision').$type<'approve' | 'reject' | 'comment'>().notNull(),
    revision: integer('revision').notNull(),
    comment: text('comment'),
    at: text('at').notNull(),
  },
  (t) => [index('change_request_reviews_request_idx').on(t.changeRequestId, t.at)],
)
