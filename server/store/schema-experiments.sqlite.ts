// SQLite tables for experiments (docs/experiments.md): metric definitions, experiments, the track events
// applications send, and one exposure row per (experiment, phase, unit). Mirrored column-for-column by
// schema-experiments.pg.ts. Event and exposure times are epoch milliseconds (integers), so the results'
// windows are integer arithmetic in SQL on both stores.
import { sqliteTable, text, integer, real, primaryKey, index, uniqueIndex } from 'drizzle-orm/sqlite-core'
import type { ExperimentDefinition, ExperimentPhase, MetricDefinition, ExperimentDecision } from './vocabulary/experiments'

const json = <T>(name: string) => text(name, { mode: 'json' }).$type<T>()

export const experimentMetrics = sqliteTable(
  'experiment_metrics',
  {
    projectId: text('project_id').notNull(),
    key: text('key').notNull(),
    body: json<MetricDefinition>('body').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.key] })],
)

export const experiments = sqliteTable(
  'experiments',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    key: text('key').notNull(),
    flagKey: text('flag_key').notNull(),
    environment: text('environment').notNull(),
    /** draft | running | stopped */
    state: text('state').notNull(),
    /** the current phase (0 while draft) */
    phase: integer('phase').notNull(),
    phases: json<ExperimentPhase[]>('phases').notNull(),
    body: json<ExperimentDefinition>('body').notNull(),
    decision: json<ExperimentDecision | null>('decision'),
    /** a stop waiting for this change request (protected environment) */
    pendingChangeRequest: text('pending_change_request'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('experiments_project_key_idx').on(t.projectId, t.key),
    index('experiments_flag_idx').on(t.projectId, t.flagKey, t.environment, t.state),
  ],
)

export const trackEvents = sqliteTable(
  'track_events',
  {
    projectId: text('project_id').notNull(),
    key: text('key').notNull(),
    /** the context attribute that names the unit (user_id unless an experiment counts by another) */
    attribute: text('attribute').notNull(),
    unit: text('unit').notNull(),
    /** the context's environment, '' for none (counts for every experiment) */
    environment: text('environment').notNull(),
    /** epoch milliseconds */
    at: integer('at', { mode: 'number' }).notNull(),
    value: real('value').notNull(),
  },
  // (project, key, attribute, unit, at) finds a unit's events; environment and value make the index cover the
  // results' join, so no table row is read per event
  (t) => [
    index('track_events_unit_idx').on(t.projectId, t.key, t.attribute, t.unit, t.at, t.environment, t.value),
    index('track_events_at_idx').on(t.at),
  ],
)

export const exposures = sqliteTable(
  'exposures',
  {
    experimentId: text('experiment_id').notNull(),
    phase: integer('phase').notNull(),
    unit: text('unit').notNull(),
    /** the earliest exposure, epoch milliseconds */
    firstAt: integer('first_at', { mode: 'number' }).notNull(),
    /** the variant of that first exposure */
    variant: text('variant').notNull(),
    /** also seen in another variant: left out of the results */
    multiple: integer('multiple', { mode: 'boolean' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.experimentId, t.phase, t.unit] })],
)
