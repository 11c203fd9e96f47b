// PostgreSQL schema: column-for-column the same as schema.sqlite.ts (same names, ISO text timestamps),
// so the repositories written against the SQLite types run unchanged on PostgreSQL.
import { pgTable, text, integer, bigint, serial, jsonb, primaryKey, index } from 'drizzle-orm/pg-core'
import type { Action, EventKind, ResourceType } from './vocabulary/changes'
import type { Permission } from './vocabulary/permissions'
import type { ScheduleStatus } from './vocabulary/schedule-statuses'

export const projects = pgTable('projects', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
  environments: jsonb('environments').$type<string[]>().notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
})

const keyedDocument = (name: string) =>
  pgTable(
    name,
    {
      projectId: text('project_id').notNull(),
      key: text('key').notNull(),
      body: jsonb('body').$type<Record<string, unknown>>().notNull(),
      version: integer('version').notNull(),
      createdAt: text('created_at').notNull(),
      updatedAt: text('updated_at').notNull(),
    },
    (t) => [primaryKey({ columns: [t.projectId, t.key] })],
  )

export const flags = keyedDocument('flags')
export const configs = keyedDocument('configs')
export const segments = keyedDocument('segments')

export const tokens = pgTable(
  'tokens',
  {
    hash: text('hash').primaryKey(),
    projectId: text('project_id').notNull(),
    name: text('name').notNull(),
    tokenPrefix: text('token_prefix').notNull(),
    permissions: jsonb('permissions').$type<Permission[]>().notNull(),
    expiresAt: text('expires_at'),
    createdAt: text('created_at').notNull(),
    lastUsedAt: text('last_used_at'),
    /** a personal access token's owner (teams): its rights are bounded by theirs at every request */
    ownerUserId: text('owner_user_id'),
    /** write permissions apply only to changes affecting these environments only (null: all) */
    environments: jsonb('environments').$type<string[] | null>(),
    /** the person who created it (four eyes: a machine token's requests are its creator's); null for
     *  bootstrap and command-line tokens */
    createdByUserId: text('created_by_user_id'),
    /** the one environment an environment, client or relay key is bound to (null: any; environments.md §2) */
    environment: text('environment'),
  },
  (t) => [index('tokens_project_idx').on(t.projectId), index('tokens_owner_idx').on(t.ownerUserId)],
)

export const webhooks = pgTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    url: text('url').notNull(),
    secret: text('secret'),
    events: jsonb('events').$type<(EventKind | '*')[]>().notNull(),
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

export const audit = pgTable(
  'audit',
  {
    id: serial('id').primaryKey(),
    projectId: text('project_id').notNull(),
    timestamp: text('timestamp').notNull(),
    actor: text('actor').notNull(),
    action: text('action').$type<Action>().notNull(),
    resourceType: text('resource_type').$type<ResourceType>().notNull(),
    resourceKey: text('resource_key').notNull(),
    /** `user`, `token`, `cli`, `schedule` or `change_request` (null on entries older than teams) */
    actorType: text('actor_type'),
    /** for a person: `session` or their personal token's prefix */
    credential: text('credential'),
    /** more about the change: an import's `change_set`; why a change to a protected environment was allowed
     *  (`bypass_reason`, or `change_request` and `approvers`) */
    details: jsonb('details').$type<Record<string, unknown>>(),
    before: jsonb('before'),
    after: jsonb('after'),
  },
  (t) => [index('audit_project_ts_idx').on(t.projectId, t.timestamp)],
)

export const deliveries = pgTable(
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

export const changeSequences = pgTable('change_sequences', {
  projectId: text('project_id').primaryKey(),
  seq: integer('seq').notNull(),
})

export const changes = pgTable(
  'changes',
  {
    projectId: text('project_id').notNull(),
    seq: integer('seq').notNull(),
    resourceType: text('resource_type').$type<ResourceType>().notNull(),
    resourceKey: text('resource_key').notNull(),
    action: text('action').$type<Action>().notNull(),
    version: integer('version'),
    environment: text('environment').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.seq] })],
)

export const serverKeys = pgTable('server_keys', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: text('created_at').notNull(),
})

export const schedules = pgTable(
  'schedules',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    flagKey: text('flag_key').notNull(),
    at: text('at').notNull(),
    change: jsonb('change').$type<Record<string, unknown>>().notNull(),
    note: text('note'),
    status: text('status').$type<ScheduleStatus>().notNull(),
    createdBy: text('created_by').notNull(),
    /** the hash of the token that scheduled it (revoking that token cancels it); null for the CLI */
    createdByToken: text('created_by_token'),
    createdAt: text('created_at').notNull(),
    finishedAt: text('finished_at'),
    cancelledBy: text('cancelled_by'),
    resultVersion: integer('result_version'),
    errorCode: text('error_code'),
    error: text('error'),
  },
  (t) => [index('schedules_due_idx').on(t.status, t.at), index('schedules_flag_idx').on(t.projectId, t.flagKey)],
)

export const flagUsage = pgTable(
  'flag_usage',
  {
    projectId: text('project_id').notNull(),
    flagKey: text('flag_key').notNull(),
    environment: text('environment').notNull(),
    variant: text('variant').notNull(),
    hour: text('hour').notNull(),
    // 64-bit: a bucket sums every instance's and SDK's counts (read as a JS number: exact below 2^53, where
    // the store's additions stop).
    count: bigint('count', { mode: 'number' }).notNull(),
    lastAt: text('last_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.flagKey, t.environment, t.variant, t.hour] }),
    index('flag_usage_project_hour_idx').on(t.projectId, t.hour),
  ],
)

export * from './schema-teams.pg'
export * from './schema-change-requests.pg'
export * from './schema-experiments.pg'
export * from './schema-release-plans.pg'

/** Forwarded batches a relay sent (docs/operations.md, Relays): each id is taken once, in the transaction
 *  that applies the batch, so a batch sent again after a lost answer changes nothing. */
export const relayBatches = pgTable('relay_batches', {
  id: text('id').primaryKey(),
  projectId: text('project_id').notNull(),
  receivedAt: text('received_at').notNull(),
})
