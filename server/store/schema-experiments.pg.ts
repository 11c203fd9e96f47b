// PostgreSQL tables for experiments: column-for-column schema-experiments.sqlite.ts (times in epoch
// milliseconds as bigint, values as double precision).
import { pgTable, text, integer, bigint, doublePrecision, boolean, jsonb, primaryKey, index, uniqueIndex } from 'drizzle-orm/pg-core'
import type { ExperimentDefinition, ExperimentPhase, MetricDefinition, ExperimentDecision } from './vocabulary/experiments'

export const experimentMetrics = pgTable(
  'experiment_metrics',
  {
    projectId: text('project_id').notNull(),
    key: text('key').notNull(),
    body: jsonb('body').$type<MetricDefinition>().notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.key] })],
)

export const experiments = pgTable(
  'experiments',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    key: text('key').notNull(),
    flagKey: text('flag_key').notNull(),
    environment: text('environment').notNull(),
    state: text('state').notNull(),
    phase: integer('phase').notNull(),
    phases: jsonb('phases').$type<ExperimentPhase[]>().notNull(),
    body: jsonb('body').$type<ExperimentDefinition>().notNull(),
    decision: jsonb('decision').$type<ExperimentDecision | null>(),
    pendingChangeRequest: text('pending_change_request'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('experiments_project_key_idx').on(t.projectId, t.key),
    index('experiments_flag_idx').on(t.projectId, t.flagKey, t.environment, t.state),
  ],
)

export const trackEvents = pgTable(
  'track_events',
  {
    projectId: text('project_id').notNull(),
    key: text('key').notNull(),
    attribute: text('attribute').notNull(),
    unit: text('unit').notNull(),
    environment: text('environment').notNull(),
    at: bigint('at', { mode: 'number' }).notNull(),
    value: doublePrecision('value').notNull(),
  },
  (t) => [
    index('track_events_unit_idx').on(t.projectId, t.key, t.attribute, t.unit, t.at, t.environment, t.value),
    index('track_events_at_idx').on(t.at),
  ],
)

export const exposures = pgTable(
  'exposures',
  {
    experimentId: text('experiment_id').notNull(),
    phase: integer('phase').notNull(),
    unit: text('unit').notNull(),
    firstAt: bigint('first_at', { mode: 'number' }).notNull(),
    variant: text('variant').notNull(),
    multiple: boolean('multiple').notNull(),
  },
  (t) => [primaryKey({ columns: [t.experimentId, t.phase, t.unit] })],
)
