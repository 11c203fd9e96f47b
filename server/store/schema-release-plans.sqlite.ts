// SQLite table of release plans (docs/experiments.md §7): one row per plan, its monitor's
// lease (claimed_by / claimed_until: one instance checks a plan at a time). Mirrored column-for-column by
// schema-release-plans.pg.ts. A plan's exposures are rows of `exposures` under the plan's id, one phase per step.
import { sqliteTable, text, integer, index } from 'drizzle-orm/sqlite-core'
import type { ReleasePlanDefinition, ReleasePlanStatus } from './vocabulary/release-plans'

const json = <T>(name: string) => text(name, { mode: 'json' }).$type<T>()

export const releasePlans = sqliteTable(
  'release_plans',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    flagKey: text('flag_key').notNull(),
    environment: text('environment').notNull(),
    /** draft | awaiting_approval | running | paused | rolled_back | completed */
    state: text('state').notNull(),
    /** 1-based; 0 before the start */
    currentStep: integer('current_step').notNull(),
    /** the exposures' phase: a new one at each step and each resume (units are compared within one) */
    phase: integer('phase').notNull(),
    stepStartedAt: text('step_started_at'),
    body: json<ReleasePlanDefinition>('body').notNull(),
    status: json<ReleasePlanStatus>('status').notNull(),
    /** the start waiting for this change request (protected environment) */
    pendingChangeRequest: text('pending_change_request'),
    claimedBy: text('claimed_by'),
    claimedUntil: text('claimed_until'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('release_plans_flag_idx').on(t.projectId, t.flagKey, t.environment, t.state), index('release_plans_state_idx').on(t.state)],
)
