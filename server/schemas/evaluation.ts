// Evaluation contexts and answers; configs and segments.
import { t, type Static } from 'elysia'
import { REASONS } from '../engine/types'
import { agree, Dict, Json, readOnlyEcho, type SameKeys, Timestamp } from './common'
import { Condition } from './flag'
import type { ConfigDefinition } from '../engine/documents'
import type { SegmentDefinition } from '../engine/types'

export const EvaluationContext = t.Object(
  {
    user_id: t.Optional(t.String()),
    plan: t.Optional(t.String()),
    environment: t.Optional(t.String()),
    custom: t.Optional(Dict(Json)),
  },
  {
    title: 'EvaluationContext',
    additionalProperties: true,
    description: 'other top-level attributes are looked up before `custom`',
    example: { user_id: 'u-42', plan: 'free', custom: { country: 'nl' } },
  },
)
export const EvaluationResult = t.Object(
  {
    value: Json,
    type: t.UnionEnum(['boolean', 'string', 'number', 'object', 'array', 'null']),
    reason: t.UnionEnum([...REASONS]),
    variant: t.Optional(t.Nullable(t.String({ description: 'only for flags with variants: the variant served (null: the off value)' }))),
  },
  { title: 'EvaluationResult', example: { value: false, type: 'boolean', reason: 'rollout' } },
)

export const ConfigEnvironmentOverride = t.Object({ value: Json }, { title: 'ConfigEnvironmentOverride' })
const ClientSide = t.Optional(
  t.Nullable(
    t.Boolean({
      description: 'available to client keys (edge.md §1): only flags and configs marked true are visible to them; default false',
    }),
  ),
)
export const ConfigCreate = t.Object(
  {
    key: t.String(),
    value: Json,
    environments: t.Optional(Dict(ConfigEnvironmentOverride)),
    client_side: t.Optional(t.Boolean({ description: 'available to client keys (default false)' })),
  },
  { title: 'ConfigCreate' },
)
export const ConfigPatch = t.Object(
  {
    value: t.Optional(Json),
    environments: t.Optional(t.Nullable(Dict(ConfigEnvironmentOverride))),
    client_side: ClientSide,
    ...readOnlyEcho,
  },
  { title: 'ConfigPatch' },
)
export const Config = t.Object(
  {
    value: Json,
    environments: Dict(ConfigEnvironmentOverride),
    client_side: t.Optional(t.Boolean({ description: 'present when set: available to client keys' })),
    version: t.Integer(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Config' },
)

export const SegmentCreate = t.Object({ key: t.String(), conditions: t.Array(Condition) }, { title: 'SegmentCreate' })
export const SegmentPatch = t.Object({ conditions: t.Optional(t.Array(Condition)), ...readOnlyEcho }, { title: 'SegmentPatch' })
export const Segment = t.Object(
  { conditions: t.Array(Condition), version: t.Integer(), created_at: Timestamp, updated_at: Timestamp },
  { title: 'Segment' },
)

/** A stored config as the API answers it (its key beside it). */
export type ConfigView = Static<typeof Config>
/** A config as POST /configs takes it, and its fields as PUT /configs/:key takes them. */
export type ConfigCreateInput = Static<typeof ConfigCreate>
export type ConfigPatchInput = Static<typeof ConfigPatch>
/** A segment as POST /segments takes it, and its fields as PUT /segments/:key takes them. */
export type SegmentCreateInput = Static<typeof SegmentCreate>
export type SegmentPatchInput = Static<typeof SegmentPatch>

// The engine's config and segment shapes and these schemas are one shape (see flag.ts).
agree<SameKeys<Omit<Static<typeof ConfigCreate>, 'key'>, ConfigDefinition>>()
agree<SameKeys<Static<typeof SegmentCreate>, SegmentDefinition>>()
