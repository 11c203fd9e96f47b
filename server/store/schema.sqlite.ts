// SQLite schema. Mirrored column-for-column by schema.pg.ts so one set of repositories serves both
// dialects; timestamps are ISO-8601 text in both, JSON columns hold parsed values.
import { sqliteTable, text, integer, primaryKey, index } from 'drizzle-orm/sqlite-core'
import type { Action, EventKind, ResourceType } from './vocabulary/changes'
import type { Permission } from './vocabulary/permissions'
import type { ScheduleStatus } from './vocabulary/schedule-statuses'

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
    /** a personal access token's owner (teams): its rights are bounded by theirs at every request */
    ownerUserId: text('owner_user_id'),
    /** write permissions apply only to changes affecting these environments only (null: all) */
    environments: json<string[] | null>('environments'),
    /** the person who created it (four eyes: a machine token's requests are its creator's); null for
     *  bootstrap and command-line tokens */
    createdByUserId: text('created_by_user_id'),
    /** the one environment an environment, client or relay key is bound to (null: any; environments.md §2) */
    environment: text('environment'),
  },
  (t) => [index('tokens_project_idx').on(t.projectId), index('tokens_owner_idx').on(t.ownerUserId)],
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
    /** `user`, `token`, `cli`, `schedule` or `change_request` (null on entries older than teams) */
    actorType: text('actor_type'),
    /** for a person: `session` or their personal token's prefix */
    credential: text('credential'),
    /** more about the change: an import's `change_set`; why a change to a protected environment was allowed
     *  (`bypass_reason`, or `change_request` and `approvers`) */
    details: json<Record<string, unknown>>('details'),
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

// The change stream (streams/hub.ts): each project's committed changes numbered 1, 2, 3 … in commit order.
// change_sequences holds the last number handed out; taking the next one locks that row until commit,
// so numbers are assigned in commit order even across instances. changes keeps the most recent ones
// (STREAM_REPLAY_LIMIT per project) for replay to clients resuming with Last-Event-ID.
export const changeSequences = sqliteTable('change_sequences', {
  projectId: text('project_id').primaryKey(),
  seq: integer('seq').notNull(),
})

export const changes = sqliteTable(
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

// Secrets the instances share, created on first use (e.g. the key that signs stream tickets).
export const serverKeys = sqliteTable('server_keys', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: text('created_at').notNull(),
})

// Scheduled changes (services/schedules.ts, schedules/worker.ts): a flag update or one environment's
// override, applied once at `at`. status: pending -> applied | failed | cancelled; a row leaves `pending`
// only in the transaction that applies it, records its failure or cancels it.
export const schedules = sqliteTable(
  'schedules',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    flagKey: text('flag_key').notNull(),
    at: text('at').notNull(),
    change: json<Record<string, unknown>>('change').notNull(),
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

// Evaluation counts per flag, environment, variant and hour (server/usage/): added to at every flush, by
// every instance (count = count + new), so the hourly buckets are the sum over instances and SDK reports.
export const flagUsage = sqliteTable(
  'flag_usage',
  {
    projectId: text('project_id').notNull(),
    flagKey: text('flag_key').notNull(),
    environment: text('environment').notNull(),
    variant: text('variant').notNull(),
    /** the hour's start, ISO 8601 (2026-11-24T10:00:00.000Z) */
    hour: text('hour').notNull(),
    /** SQLite's INTEGER is already 64-bit (the PostgreSQL column is bigint) */
    count: integer('count', { mode: 'number' }).notNull(),
    /** the latest evaluation counted in this bucket */
    lastAt: text('last_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.flagKey, t.environment, t.variant, t.hour] }),
    index('flag_usage_project_hour_idx').on(t.projectId, t.hour),
  ],
)

export * from './schema-teams.sqlite'
export * from './schema-change-requests.sqlite'
export * from './schema-experiments.sqlite'
export * from './schema-release-plans.sqlite'

/** Forwarded batches a relay sent (docs/operations.md, Relays): each id is taken once, in the transaction
 *  that applies the batch, so a batch sent again after a lost answer changes nothing. */
export const relayBatches = sqliteTable('relay_batches', {
  id: text('id').primaryKey(),
  projectId: text('project_id').notNull(),
  receivedAt: text('received_at').notNull(),
})
