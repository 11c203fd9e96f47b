// SQLite schema. Mirrored column-for-column by schema.pg.ts so one set of repositories serves both
// dialects; timestamps are ISO-8601 text in both, JSON columns hold parsed values.
import { sqliteTable, text, integer, primaryKey, index } from 'drizzle-orm/sqlite-core'
import type { Action, EventKind, ResourceType } from '../services/events'
import type { Permission } from '../services/permissions'

const json = <T>(name: string) => text(name, { mode: 'json' }).$type<T>()

export const projects = sqliteTable('projects', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
  environments: json<string[]>('environments').notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
})

// Flags, configs and segments share one shape: a JSON body plus a version for If-Match.
const keyedDocument = (name: string) =>
  sqliteTable(
    name,
    {
      projectId: text('project_id').notNull(),
      key: text('key').notNull(),
      body: json<Record<string, unknown>>('body').notNull(),
      version: integer('version').notNull(),
      createdAt: text('created_at').notNull(),
      updatedAt: text('updated_at').notNull(),
    },
    (t) => [primaryKey({ columns: [t.projectId, t.key] })],
  )

export const flags = keyedDocument('flags')
export const configs = keyedDocument('configs')
export const segments = keyedDocument('segments')

export const tokens = sqliteTable(
  'tokens',
  {
    hash: text('hash').primaryKey(),
    projectId: text('project_id').notNull(),
    name: text('name').notNull(),
    tokenPrefix: text('token_prefix').notNull(),
    permissions: json<Permission[]>('permissions').notNull(),
    expiresAt: text('expires_at'),
    createdAt: text('created_at').notNull(),
    lastUsedAt: text('last_used_at'),
  },
  (t) => [index('tokens_project_idx').on(t.projectId)],
)

export const webhooks = sqliteTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    url: text('url').notNull(),
    secret: text('secret'),
    events: json<(EventKind | '*')[]>('events').notNull(),
    createdAt: text('created_at').notNull(),
    // Delivery health (webhooks/worker.ts): failures in a row, since when, when the next attempt may go
    // (exponential backoff), and when failing too long paused it (null: active).
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    failingSince: text('failing_since'),
    retryAt: text('retry_at'),
    pausedAt: text('paused_at'),
  },
  (t) => [index('webhooks_project_idx').on(t.projectId)],
)

export const audit = sqliteTable(
  'audit',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: text('project_id').notNull(),
    timestamp: text('timestamp').notNull(),
    actor: text('actor').notNull(),
    action: text('action').$type<Action>().notNull(),
    resourceType: text('resource_type').$type<ResourceType>().notNull(),
    resourceKey: text('resource_key').notNull(),
    before: json<unknown>('before'),
    after: json<unknown>('after'),
  },
  (t) => [index('audit_project_ts_idx').on(t.projectId, t.timestamp)],
)

// The webhook outbox: one row per (event, subscribed webhook), written in the change's transaction.
// status: pending -> delivering -> delivered | failed. claimed_by/claimed_until let one instance own a
// row at a time; an expired claim is picked up again by any instance.
export const deliveries = sqliteTable(
  'deliveries',
  {
    id: text('id').primaryKey(),
    webhookId: text('webhook_id').notNull(),
    projectId: text('project_id').notNull(),
    event: text('event').$type<EventKind>().notNull(),
    payload: text('payload').notNull(),
    status: text('status').notNull(),
    attempts: integer('attempts').notNull(),
    nextAttemptAt: text('next_attempt_at').notNull(),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    claimedBy: text('claimed_by'),
    claimedUntil: text('claimed_until'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('deliveries_due_idx').on(t.status, t.nextAttemptAt), index('deliveries_webhook_idx').on(t.webhookId, t.createdAt)],
)
