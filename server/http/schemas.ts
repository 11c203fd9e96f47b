// Wire schemas: the one source for request validation, response shapes, the OpenAPI document and (as
// `Static` types) the console's view of the API. Pure: imports only Elysia's schema builder and pure modules,
// so the console's TypeScript project (web/tsconfig.json) can read it.
import { t, type Static, type TSchema } from 'elysia'
import { OPERATORS, REASONS } from '../engine/types'
import { ACTIONS, EVENT_KINDS, RESOURCE_TYPES } from '../services/events'
import { PERMISSIONS } from '../services/permissions'

const Json = t.Any({ description: 'any JSON value' })
/** A string-keyed map. Spelled with additionalProperties (not t.Record's patternProperties) for OpenAPI 3.0. */
export const Dict = <T extends TSchema>(value: T, description?: string) => t.Object({}, { additionalProperties: value, ...(description && { description }) })
const Timestamp = t.String({ description: 'ISO 8601 timestamp' })
const OptionalTimestamp = t.Optional(t.Nullable(Timestamp))

/** `success: true` on every write (a boolean: OpenAPI 3.0 has no `const`). */
export const Success = t.Boolean({ description: 'always true' })

export const ErrorBody = t.Object({
  error: t.String(),
  code: t.String(),
  details: t.Optional(Dict(t.Any())),
}, { title: 'Error', example: { error: 'Flag "new-chekout" not found', code: 'FLAG_NOT_FOUND' } })

// Nested targeting shapes stay structural: the engine's validator checks operators, value shapes and
// ranges and reports exact paths (TypeBox reports any failure inside a nullable union at its root).
export const Condition = t.Object({
  property: t.Optional(t.String({ description: 'the context attribute tested; omitted for in_segment / not_in_segment' })),
  operator: t.String({ description: `one of: ${OPERATORS.join(', ')}` }),
  value: t.Optional(Json),
}, { title: 'Condition' })

export const Rule = t.Object({ conditions: t.Array(Condition), value: Json }, { title: 'Rule' })
export const Rollout = t.Object({ percentage: t.Number({ description: '0 to 100' }), attribute: t.String({ description: 'context attribute to bucket on' }) }, { title: 'Rollout' })
export const Targeting = t.Object({
  rules: t.Optional(t.Array(Rule)),
  rollout: t.Optional(t.Nullable(Rollout)),
  overrides: t.Optional(Dict(Json, 'individual targeting: user_id -> value')),
}, { title: 'Targeting' })
export const FlagEnvironmentOverride = t.Object({ enabled: t.Boolean(), value: t.Optional(Json) }, { title: 'FlagEnvironmentOverride' })

const flagFields = {
  enabled: t.Optional(t.Boolean()),
  value: t.Optional(Json),
  targeting: t.Optional(t.Nullable(Targeting)),
  environments: t.Optional(t.Nullable(Dict(FlagEnvironmentOverride))),
  active_from: OptionalTimestamp,
  active_until: OptionalTimestamp,
}
/** Read-only fields a client may echo back in an update (e.g. PUT of what it read): accepted, ignored. */
const readOnlyEcho = {
  key: t.Optional(t.Any({ description: 'ignored on update' })),
  version: t.Optional(t.Any({ description: 'ignored on update; use If-Match' })),
  created_at: t.Optional(t.Any({ description: 'ignored' })),
  updated_at: t.Optional(t.Any({ description: 'ignored' })),
}
// The documented examples tell one story, which a test replays against a real server: this flag, evaluated
// for the EvaluationContext example, answers the EvaluationResult example.
export const FlagCreate = t.Object({ key: t.String(), ...flagFields }, {
  title: 'FlagCreate',
  example: {
    key: 'new-checkout', enabled: true, value: true,
    targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'enterprise' }], value: true }], rollout: { percentage: 25, attribute: 'user_id' } },
  },
})
export const FlagPatch = t.Object({ ...flagFields, ...readOnlyEcho }, { title: 'FlagPatch' })
export const Flag = t.Object({
  key: t.String(),
  enabled: t.Boolean(),
  value: Json,
  targeting: t.Optional(t.Nullable(Targeting)),
  environments: t.Optional(Dict(FlagEnvironmentOverride)),
  active_from: OptionalTimestamp,
  active_until: OptionalTimestamp,
  version: t.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { title: 'Flag' })

export const EvaluationContext = t.Object({
  user_id: t.Optional(t.String()),
  plan: t.Optional(t.String()),
  environment: t.Optional(t.String()),
  custom: t.Optional(Dict(Json)),
}, { title: 'EvaluationContext', additionalProperties: true, description: 'other top-level attributes are looked up before `custom`', example: { user_id: 'u-42', plan: 'free', custom: { country: 'nl' } } })
export const EvaluationResult = t.Object({
  value: Json,
  type: t.UnionEnum(['boolean', 'string', 'number', 'object', 'array', 'null']),
  reason: t.UnionEnum([...REASONS]),
}, { title: 'EvaluationResult', example: { value: false, type: 'boolean', reason: 'rollout' } })

export const ConfigEnvironmentOverride = t.Object({ value: Json }, { title: 'ConfigEnvironmentOverride' })
export const ConfigCreate = t.Object({ key: t.String(), value: Json, environments: t.Optional(Dict(ConfigEnvironmentOverride)) }, { title: 'ConfigCreate' })
export const ConfigPatch = t.Object({ value: t.Optional(Json), environments: t.Optional(t.Nullable(Dict(ConfigEnvironmentOverride))), ...readOnlyEcho }, { title: 'ConfigPatch' })
export const Config = t.Object({
  value: Json,
  environments: Dict(ConfigEnvironmentOverride),
  version: t.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { title: 'Config' })

export const SegmentCreate = t.Object({ key: t.String(), conditions: t.Array(Condition) }, { title: 'SegmentCreate' })
export const SegmentPatch = t.Object({ conditions: t.Optional(t.Array(Condition)), ...readOnlyEcho }, { title: 'SegmentPatch' })
export const Segment = t.Object({ conditions: t.Array(Condition), version: t.Integer(), created_at: Timestamp, updated_at: Timestamp }, { title: 'Segment' })

export const Permission = t.UnionEnum([...PERMISSIONS])
export const TokenCreate = t.Object({
  name: t.String({ minLength: 1, maxLength: 200, description: '1 to 200 characters, no control characters' }),
  project_id: t.String(),
  permissions: t.Array(Permission, { minItems: 1 }),
  expires_at: OptionalTimestamp,
}, { title: 'TokenCreate' })
export const TokenMeta = t.Object({
  hash: t.String({ description: 'lowercase hex SHA-256 of the token; identifies it for DELETE /tokens/:hash' }),
  name: t.String(),
  token_prefix: t.String(),
  project_id: t.String(),
  permissions: t.Array(Permission),
  expires_at: t.Optional(Timestamp),
  created_at: Timestamp,
}, { title: 'TokenMeta' })
export const TokenEntry = t.Object({
  hash: t.String(),
  name: t.String(),
  token_prefix: t.String(),
  project_id: t.String(),
  permissions: t.Array(Permission),
  expires_at: t.Nullable(Timestamp),
  created_at: Timestamp,
  last_used_at: t.Nullable(Timestamp),
}, { title: 'Token' })
export type Token = Static<typeof TokenEntry>

/** GET /api/v1/me: the calling token. */
export const Me = t.Object({ name: t.String(), token_prefix: t.String(), project_id: t.String(), permissions: t.Array(Permission), expires_at: t.Nullable(Timestamp) }, { title: 'Me' })
export type Me = Static<typeof Me>

export const WebhookCreate = t.Object({
  url: t.String(),
  events: t.Array(t.String(), { description: `event kinds (${EVENT_KINDS.join(', ')}) or ["*"]` }),
  secret: t.Optional(t.Nullable(t.String({ description: 'write-only; never returned' }))),
}, { title: 'WebhookCreate' })
const EventKind = t.UnionEnum([...EVENT_KINDS])
export const WebhookHealth = t.Object({
  status: t.UnionEnum(['active', 'failing', 'paused'], { description: 'paused after failing without a success for WEBHOOK_PAUSE_AFTER_MS (24 h); POST …/resume ends it' }),
  consecutive_failures: t.Number({ description: 'failed attempts in a row' }),
  failing_since: t.Nullable(t.String({ description: 'first failure of the current streak' })),
  next_attempt_at: t.Nullable(t.String({ description: 'a failing webhook is not tried again before this (exponential backoff)' })),
  paused_at: t.Nullable(t.String()),
}, { title: 'WebhookHealth' })
export type WebhookHealth = Static<typeof WebhookHealth>
export const Webhook = t.Object({
  id: t.String(),
  config: t.Object({ url: t.String(), has_secret: t.Boolean(), events: t.Array(t.UnionEnum([...EVENT_KINDS, '*'])) }),
  health: WebhookHealth,
}, { title: 'Webhook' })
export type Webhook = Static<typeof Webhook>

export const Delivery = t.Object({
  id: t.String({ description: 'the X-Webhook-Delivery id, the same on every attempt' }),
  event: EventKind,
  status: t.UnionEnum(['pending', 'delivering', 'delivered', 'failed']),
  attempts: t.Integer({ description: 'attempts made so far (at most 3 per queueing)' }),
  last_status_code: t.Nullable(t.Number({ description: 'HTTP status of the last attempt; null before any answer' })),
  last_error: t.Nullable(t.String()),
  next_attempt_at: t.Nullable(t.String({ description: 'when a pending delivery is tried next' })),
  created_at: t.String(),
  updated_at: t.String(),
}, { title: 'WebhookDelivery' })
export type Delivery = Static<typeof Delivery>

export const AuditEntry = t.Object({
  id: t.Integer(),
  timestamp: Timestamp,
  actor: t.String(),
  action: t.UnionEnum([...ACTIONS]),
  resource_type: t.UnionEnum([...RESOURCE_TYPES]),
  resource_key: t.String(),
  project_id: t.String(),
  before: t.Any({ description: 'the resource before the change; null for a create' }),
  after: t.Any({ description: 'the resource after the change; null for a delete' }),
}, { title: 'AuditEntry' })
export type AuditEntry = Static<typeof AuditEntry>

export const Project = t.Object({ id: t.String(), name: t.String(), slug: t.String(), environments: t.Array(t.String()) }, { title: 'Project' })
export type Project = Static<typeof Project>
export const ProjectPatch = t.Object({ name: t.Optional(t.String({ minLength: 1, maxLength: 200 })), slug: t.Optional(t.String()) }, { title: 'ProjectPatch' })

export const Page = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  offset: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 })),
})
export const KeyParam = t.Object({ key: t.String() })
export const KeyEnvParams = t.Object({ key: t.String(), env: t.String() })
export const IfMatch = t.Object({ 'if-match': t.Optional(t.String({ description: 'apply only at this version: the version in double quotes, e.g. "3"' })) })
export const Force = t.Object({ force: t.Optional(t.BooleanString()) })

export const Deleted = t.Object({ success: Success, key: t.String() })
export const DeletedOverride = t.Object({ success: Success, key: t.String(), environment: t.String() })

/** The error statuses a route may answer, for its OpenAPI responses. */
export const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, ErrorBody]))
