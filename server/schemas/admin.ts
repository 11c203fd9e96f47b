// The administrative resources: tokens, webhooks and their deliveries, the audit log, the project.
import { t, type Static } from 'elysia'
import { ACTIONS, EVENT_KINDS, RESOURCE_TYPES } from '../store/vocabulary/changes'
import { PERMISSIONS } from '../store/vocabulary/permissions'
import { Dict, OptionalTimestamp, Timestamp } from './common'

export const Permission = t.UnionEnum([...PERMISSIONS])
export const TokenCreate = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 200, description: '1 to 200 characters, no control characters' }),
    project_id: t.String(),
    permissions: t.Array(Permission, { minItems: 1 }),
    expires_at: OptionalTimestamp,
    environments: t.Optional(
      t.Array(t.String({ maxLength: 64 }), {
        maxItems: 100,
        description:
          'write permissions apply only to changes that affect these environments only (reads are unchanged); ' +
          "at most the creator's own scope",
      }),
    ),
    environment: t.Optional(
      t.String({
        maxLength: 64,
        description:
          'an environment key: every evaluation runs in this environment (a context naming another is 403 ENVIRONMENT_MISMATCH) ' +
          'and write permissions apply to this environment only; required with the `client` permission',
      }),
    ),
  },
  { title: 'TokenCreate' },
)
export const TokenMeta = t.Object(
  {
    hash: t.String({ description: 'lowercase hex SHA-256 of the token; identifies it for DELETE /tokens/:hash' }),
    name: t.String(),
    token_prefix: t.String(),
    project_id: t.String(),
    permissions: t.Array(Permission),
    expires_at: t.Optional(Timestamp),
    created_at: Timestamp,
    environments: t.Optional(t.Array(t.String(), { description: 'present when the token is limited to these environments' })),
    created_by: t.Optional(
      t.String({
        description:
          'the person who created it (user id): the author of the change requests it proposes; ' +
          'absent for bootstrap and command-line tokens',
      }),
    ),
    environment: t.Optional(t.String({ description: 'present for an environment key: the environment every evaluation runs in' })),
  },
  { title: 'TokenMeta' },
)
export const TokenEntry = t.Object(
  {
    hash: t.String(),
    name: t.String(),
    token_prefix: t.String(),
    project_id: t.String(),
    permissions: t.Array(Permission),
    expires_at: t.Nullable(Timestamp),
    created_at: Timestamp,
    last_used_at: t.Nullable(Timestamp),
    environments: t.Optional(t.Array(t.String(), { description: 'present when the token is limited to these environments' })),
    environment: t.Optional(t.String({ description: 'present for an environment key: the environment every evaluation runs in' })),
    owner: t.Optional(t.String({ description: "a personal token's owner (user id)" })),
    created_by: t.Optional(
      t.String({
        description:
          'the person who created it (user id): the author of the change requests it proposes; ' +
          'absent for bootstrap and command-line tokens',
      }),
    ),
  },
  { title: 'Token' },
)
export type Token = Static<typeof TokenEntry>

/** GET /api/v1/me: the calling token. */
export const Me = t.Object(
  {
    name: t.String(),
    token_prefix: t.String(),
    project_id: t.String(),
    permissions: t.Array(Permission),
    expires_at: t.Nullable(Timestamp),
  },
  { title: 'Me' },
)
export type Me = Static<typeof Me>

export const WebhookCreate = t.Object(
  {
    url: t.String(),
    events: t.Array(t.String(), { description: `event kinds (${EVENT_KINDS.join(', ')}) or ["*"]` }),
    secret: t.Optional(t.Nullable(t.String({ description: 'write-only; never returned' }))),
  },
  { title: 'WebhookCreate' },
)
const EventKind = t.UnionEnum([...EVENT_KINDS])
export const WebhookHealth = t.Object(
  {
    status: t.UnionEnum(['active', 'failing', 'paused'], {
      description: 'paused after failing without a success for WEBHOOK_PAUSE_AFTER_MS (24 h); POST …/resume ends it',
    }),
    consecutive_failures: t.Number({ description: 'failed attempts in a row' }),
    failing_since: t.Nullable(t.String({ description: 'first failure of the current streak' })),
    next_attempt_at: t.Nullable(t.String({ description: 'a failing webhook is not tried again before this (exponential backoff)' })),
    paused_at: t.Nullable(t.String()),
  },
  { title: 'WebhookHealth' },
)
export type WebhookHealth = Static<typeof WebhookHealth>
export const Webhook = t.Object(
  {
    id: t.String(),
    config: t.Object({ url: t.String(), has_secret: t.Boolean(), events: t.Array(t.UnionEnum([...EVENT_KINDS, '*'])) }),
    health: WebhookHealth,
  },
  { title: 'Webhook' },
)
export type Webhook = Static<typeof Webhook>

export const Delivery = t.Object(
  {
    id: t.String({ description: 'the X-Webhook-Delivery id, the same on every attempt' }),
    event: EventKind,
    status: t.UnionEnum(['pending', 'delivering', 'delivered', 'failed']),
    attempts: t.Integer({ description: 'attempts made so far (at most 3 per queueing)' }),
    last_status_code: t.Nullable(t.Number({ description: 'HTTP status of the last attempt; null before any answer' })),
    last_error: t.Nullable(t.String()),
    next_attempt_at: t.Nullable(t.String({ description: 'when a pending delivery is tried next' })),
    created_at: t.String(),
    updated_at: t.String(),
  },
  { title: 'WebhookDelivery' },
)
export type Delivery = Static<typeof Delivery>

export const AuditEntry = t.Object(
  {
    id: t.Integer(),
    timestamp: Timestamp,
    actor: t.String({ description: "a person's email, a token's prefix, `cli` or `schedule:{id}`" }),
    actor_name: t.Nullable(
      t.String({ description: "the token's name (kept after the token is deleted); null for actors that are no token" }),
    ),
    actor_type: t.String({ description: 'user, token, cli, schedule or change_request' }),
    credential: t.Nullable(t.String({ description: "a person's: `session` or their personal token's prefix" })),
    action: t.UnionEnum([...ACTIONS]),
    resource_type: t.UnionEnum([...RESOURCE_TYPES]),
    resource_key: t.String(),
    project_id: t.String(),
    before: t.Any({ description: 'the resource before the change; null for a create' }),
    after: t.Any({ description: 'the resource after the change; null for a delete' }),
    details: t.Optional(
      Dict(
        t.Any(),
        'more about the change: `change_set`, the id shared by every entry of one import or promotion; ' +
          'on a protected environment `bypass_reason`, or `change_request` and `approvers`',
      ),
    ),
  },
  { title: 'AuditEntry' },
)
export type AuditEntry = Static<typeof AuditEntry>

export const Project = t.Object(
  { id: t.String(), name: t.String(), slug: t.String(), environments: t.Array(t.String()) },
  { title: 'Project' },
)
export type Project = Static<typeof Project>
export const ProjectPatch = t.Object(
  { name: t.Optional(t.String({ minLength: 1, maxLength: 200 })), slug: t.Optional(t.String()) },
  { title: 'ProjectPatch' },
)
