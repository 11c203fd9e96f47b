// The flag's wire schemas (and the conditions, rules and targeting inside it), its history and explain.
import { t, type Static, type TSchema } from 'elysia'
import { OPERATORS } from '../engine/types'
import type * as engine from '../engine/types'
import { agree, Dict, Json, OptionalTimestamp, readOnlyEcho, type SameKeys, Timestamp } from './common'

// Nested targeting shapes stay structural: the engine's validator checks operators, value shapes and
// ranges and reports exact paths (TypeBox reports any failure inside a nullable union at its root).
export const Condition = t.Object(
  {
    property: t.Optional(t.String({ description: 'the context attribute tested; omitted for in_segment / not_in_segment' })),
    operator: t.String({ description: `one of: ${OPERATORS.join(', ')}` }),
    value: t.Optional(Json),
  },
  { title: 'Condition' },
)

export const Rule = t.Object(
  {
    conditions: t.Array(Condition),
    value: t.Optional(Json),
    variant: t.Optional(t.String({ description: 'in a flag with variants, instead of `value`: the variant served' })),
  },
  { title: 'Rule' },
)
export const DistributionSlice = t.Object(
  { variant: t.String(), weight: t.Number({ description: '0 to 100, two decimals; the weights of a distribution sum to 100' }) },
  { title: 'DistributionSlice' },
)
export const Rollout = t.Object(
  {
    percentage: t.Optional(t.Number({ description: '0 to 100 (or `distribution`, in a flag with variants)' })),
    distribution: t.Optional(
      t.Array(DistributionSlice, { description: 'a weighted split over variants: buckets fall into the cumulative weights in list order' }),
    ),
    attribute: t.String({ description: 'context attribute to bucket on' }),
  },
  { title: 'Rollout' },
)
export const Targeting = t.Object(
  {
    rules: t.Optional(t.Array(Rule)),
    rollout: t.Optional(t.Nullable(Rollout)),
    overrides: t.Optional(Dict(Json, 'individual targeting: user_id -> value (in a flag with variants: user_id -> variant name)')),
  },
  { title: 'Targeting' },
)
export const FlagEnvironmentOverride = t.Object(
  {
    enabled: t.Boolean(),
    value: t.Optional(Json),
    variant: t.Optional(t.String({ description: 'in a flag with variants, instead of `value`' })),
    // A plain union (not t.Nullable, which adds OpenAPI's `nullable`): the document's JSON Schema stays standard.
    targeting: t.Optional(
      t.Union([Targeting, t.Null()], {
        description:
          "the environment's own rules: they replace the flag's targeting in this environment, whole " +
          "(absent: the flag's apply; null on PUT removes them)",
      }),
    ),
  },
  { title: 'FlagEnvironmentOverride' },
)
export const Prerequisite = t.Object(
  {
    key: t.String({ description: 'the flag required' }),
    variant: t.Optional(t.String({ description: 'the variant it must serve (a flag with variants)' })),
    value: t.Optional(t.Any({ description: 'or the value it must serve' })),
  },
  { title: 'Prerequisite' },
)

const flagFields = {
  enabled: t.Optional(t.Boolean()),
  value: t.Optional(Json),
  targeting: t.Optional(t.Nullable(Targeting)),
  environments: t.Optional(t.Nullable(Dict(FlagEnvironmentOverride))),
  active_from: OptionalTimestamp,
  active_until: OptionalTimestamp,
  variants: t.Optional(t.Nullable(Dict(Json, 'variant name -> value (at most 50, all of one type)'))),
  default_variant: t.Optional(
    t.Nullable(t.String({ description: 'with variants: the variant served by default; `value` then mirrors it' })),
  ),
  off_variant: t.Optional(t.Nullable(t.String({ description: 'with variants: the variant a disabled flag serves (else the off value)' }))),
  prerequisites: t.Optional(
    t.Nullable(
      t.Array(Prerequisite, {
        description: 'flags that must serve the given variant or value first, else the flag is off (reason prerequisite_failed)',
      }),
    ),
  ),
  description: t.Optional(t.Nullable(t.String({ description: 'at most 2,000 characters' }))),
  tags: t.Optional(t.Nullable(t.Array(t.String(), { description: 'at most 20, each like an environment name' }))),
  owner: t.Optional(t.Nullable(t.String({ description: 'at most 200 characters' }))),
  client_side: t.Optional(
    t.Nullable(
      t.Boolean({
        description: 'available to client keys (edge.md §1): only flags and configs marked true are visible to them; default false',
      }),
    ),
  ),
}
const isNullable = (schema: TSchema): boolean => Array.isArray(schema.anyOf) && schema.anyOf.some((s: TSchema) => s.type === 'null')
/** The flag's writable fields, and those a `null` clears on update (the nullable ones): what the flag
 *  service merges, read from the schema so a new field is declared once. */
export const FLAG_FIELDS = Object.keys(flagFields) as (keyof typeof flagFields)[]
export type FlagField = (typeof FLAG_FIELDS)[number]
export const FLAG_CLEARABLE_FIELDS: ReadonlySet<FlagField> = new Set(FLAG_FIELDS.filter((f) => isNullable(flagFields[f])))
// The documented examples tell one story, which a test replays against a real server: this flag, evaluated
// for the EvaluationContext example, answers the EvaluationResult example.
export const FlagCreate = t.Object(
  { key: t.String(), ...flagFields },
  {
    title: 'FlagCreate',
    example: {
      key: 'new-checkout',
      enabled: true,
      value: true,
      targeting: {
        rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'enterprise' }], value: true }],
        rollout: { percentage: 25, attribute: 'user_id' },
      },
    },
  },
)
export const FlagPatch = t.Object({ ...flagFields, ...readOnlyEcho }, { title: 'FlagPatch' })
export const Flag = t.Object(
  {
    key: t.String(),
    ...flagFields,
    enabled: t.Boolean(),
    value: Json,
    environments: t.Optional(Dict(FlagEnvironmentOverride)),
    archived: t.Optional(t.Boolean({ description: 'true while archived: not evaluated, not editable until restored' })),
    archived_at: t.Optional(t.String({ description: 'when it was archived' })),
    version: t.Integer(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Flag' },
)

/** The wire form of a stored flag. */
export type FlagView = Static<typeof Flag>
/** A flag as POST /flags takes it. */
export type FlagCreateInput = Static<typeof FlagCreate>
/** The fields of a flag as PUT /flags/:key takes them (null clears an optional one); also a scheduled change
 *  of those fields and an explain draft. */
export type FlagPatchInput = Static<typeof FlagPatch>
/** One environment's override, as PUT /flags/:key/environments/:env takes it. */
export type FlagOverride = Static<typeof FlagEnvironmentOverride>
/** The flag's fields that evaluation does not read (the engine's FlagDefinition has the others): named once
 *  here for the services' stored body and the console's flag type. */
export type FlagMetadata = Pick<Static<typeof FlagCreate>, 'description' | 'tags' | 'owner' | 'client_side'>
/** What a stored flag carries while archived. */
export type ArchiveMark = Pick<FlagView, 'archived' | 'archived_at'>

/** One version of a flag (GET /flags/:key/history). */
export const FlagVersion = t.Object(
  {
    version: t.Integer(),
    at: Timestamp,
    actor: t.String({ description: 'who wrote it: a token prefix, or `cli`' }),
    actor_name: t.Nullable(t.String({ description: "the token's name; null for actors that are no token" })),
    action: t.String({ description: 'the change that wrote it: create, update, archive, restore or rollback' }),
    flag: Flag,
  },
  { title: 'FlagVersion' },
)
export type FlagVersion = Static<typeof FlagVersion>

export const ExplainRequest = t.Object(
  {
    context: t.Optional(t.Any({ description: 'the evaluation context (as POST /evaluate takes it)' })),
    flag: t.Optional(
      t.Any({ description: 'an unsaved definition to evaluate instead of the stored flag (validated like a write; nothing is stored)' }),
    ),
    at: t.Optional(
      t.String({ description: 'evaluate as of this instant (ISO 8601): the active window then, and the schedules due by then' }),
    ),
  },
  { title: 'ExplainRequest', example: { context: { user_id: 'u-42', plan: 'pro' } } },
)
export const TraceStep = t.Object(
  {
    step: t.String({
      description: 'environment_override, enabled, active_window, prerequisite, individual_override, rule, rollout or default',
    }),
    decided: t.Boolean({ description: 'true for the step that decided (the last one)' }),
  },
  {
    title: 'TraceStep',
    additionalProperties: true,
    description:
      'each step adds what it looked at: a rule its conditions (property, seen, operator, expected, result); ' +
      'a rollout its bucket and percentage or ranges',
  },
)
export const Explanation = t.Object(
  {
    result: t.Any({ description: 'the answer, as GET /flags/:key gives it' }),
    trace: t.Array(TraceStep),
    at: Timestamp,
    draft: t.Boolean(),
  },
  { title: 'Explanation' },
)
export type Explanation = Static<typeof Explanation>

// The engine keeps its own domain types (it is pure and shared with the SDK, so it cannot import these
// schemas); the compiler holds the two to one shape (common.ts `agree`).
/** Fields of the stored flag that evaluation does not read. */
agree<SameKeys<Omit<Static<typeof FlagCreate>, keyof FlagMetadata>, engine.FlagDefinition>>()
agree<SameKeys<Static<typeof Condition>, engine.Condition>>()
agree<SameKeys<Static<typeof Rule>, engine.Rule>>()
agree<SameKeys<Static<typeof Rollout>, engine.Rollout>>()
agree<SameKeys<Static<typeof DistributionSlice>, engine.DistributionSlice>>()
agree<SameKeys<Static<typeof Targeting>, engine.Targeting>>()
agree<SameKeys<Static<typeof FlagEnvironmentOverride>, engine.EnvironmentOverride>>()
agree<SameKeys<Static<typeof Prerequisite>, engine.Prerequisite>>()
