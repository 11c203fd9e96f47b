// Wire schemas of release plans (docs/experiments.md §7). Shapes only; the service checks
// meaning (step order, ranges, known metrics and environment) and names the field when refusing.
import { t } from 'elysia'
import { ON_REGRESSION, RELEASE_PLAN_STATES } from '../store/vocabulary/release-plans'
import { Timestamp } from './common'

const ReleaseStep = t.Object(
  {
    percentage: t.Number({ description: "the rollout percentage of this step, above the previous step's (at most 100)" }),
    hold_minutes: t.Number({ description: 'how long the step is held before it may advance (fractions allowed)' }),
  },
  { title: 'ReleaseStep' },
)
const ReleaseGuardrail = t.Object(
  {
    metric: t.String({ description: 'a metric key' }),
    max_degradation: t.Optional(t.Number({ description: 'how much worse the metric may get, a fraction of the control mean (default 0)' })),
  },
  { title: 'ReleaseGuardrail' },
)

export const ReleasePlanCreate = t.Object(
  {
    environment: t.String({ description: 'the environment whose own rules the plan writes' }),
    variant: t.Optional(t.String({ description: 'a flag with variants: the new variant, whose weight the steps raise (required there)' })),
    control_variant: t.Optional(t.String({ description: 'a flag with variants: the variant it replaces (default: the default variant)' })),
    steps: t.Array(ReleaseStep, { description: '2 to 20 steps, increasing percentages' }),
    guardrails: t.Optional(t.Array(ReleaseGuardrail, { description: 'at most 20 metrics that must not get worse' })),
    min_units: t.Optional(t.Number({ description: 'units per arm before a step may advance (default 100)' })),
    on_regression: t.Optional(t.String({ description: `${ON_REGRESSION.join(' or ')} (default rollback)` })),
  },
  { title: 'ReleasePlanCreate' },
)

const Interval = t.Nullable(
  t.Array(t.Number(), { description: '[low, high] of the relative change, oriented so that positive is good for the metric' }),
)

export const ReleasePlan = t.Object(
  {
    id: t.String(),
    flag: t.String(),
    environment: t.String(),
    state: t.UnionEnum([...RELEASE_PLAN_STATES]),
    steps: t.Array(ReleaseStep),
    guardrails: t.Array(t.Object({ metric: t.String(), max_degradation: t.Number() })),
    min_units: t.Integer(),
    on_regression: t.UnionEnum([...ON_REGRESSION]),
    attribute: t.String({ description: 'the context attribute the rollout buckets units by' }),
    variant: t.Optional(t.String()),
    control_variant: t.Optional(t.String()),
    current_step: t.Integer({ description: '1-based; 0 before the start' }),
    percentage: t.Number({ description: "the current step's percentage" }),
    step_started_at: t.Nullable(Timestamp),
    checked_at: t.Nullable(Timestamp),
    units: t.Object({ treatment: t.Integer(), control: t.Integer() }),
    srm_p_value: t.Nullable(t.Number()),
    guardrail_results: t.Array(
      t.Object({
        metric: t.String(),
        ci: Interval,
        lift: t.Nullable(t.Number()),
        control_mean: t.Nullable(t.Number()),
        treatment_mean: t.Nullable(t.Number()),
        regressed: t.Boolean(),
      }),
      { description: "each guardrail's latest reading in the current step" },
    ),
    reason: t.Nullable(t.String({ description: 'why it paused or rolled back: regression, srm, manual, flag_deleted, flag_archived' })),
    metric: t.Optional(t.String({ description: 'the guardrail that decided' })),
    approval: t.Nullable(
      t.Object(
        { id: t.String(), approvers: t.Array(t.String()) },
        { description: 'the approved change request its later steps apply under (protected environment)' },
      ),
    ),
    pending_change_request: t.Nullable(t.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'ReleasePlan' },
)
