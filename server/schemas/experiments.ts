// Wire schemas of experiments, their metrics, track events and results (docs/experiments.md). Shapes only;
// the services check meaning (known flag and metrics, ranges) and name the field when refusing.
import { t } from 'elysia'
import {
  AGGREGATIONS,
  CORRECTIONS,
  DECISIONS,
  EXPERIMENT_ENGINES,
  EXPERIMENT_STATES,
  METRIC_KINDS,
  METRIC_ROLES,
} from '../store/vocabulary/experiments'
import { Dict, Json, Timestamp } from './common'

const metricFields = {
  name: t.String({ description: '1 to 200 characters' }),
  description: t.Optional(t.String({ description: 'at most 2,000 characters' })),
  kind: t.String({
    description:
      `${METRIC_KINDS.join(', ')}: a unit with at least one event; per unit the count or sum of events; ` +
      'per-unit numerator over per-unit denominator',
  }),
  event: t.String({ description: 'the track event measured (an event key)' }),
  aggregation: t.Optional(
    t.String({ description: `${AGGREGATIONS.join(' or ')} (default count): per unit, how events add up (sum: of their values)` }),
  ),
  denominator_event: t.Optional(t.String({ description: "ratio only: the denominator's event" })),
  denominator_aggregation: t.Optional(t.String({ description: 'ratio only: count (default) or sum' })),
  window_hours: t.Optional(
    t.Number({
      description:
        'only events in [first exposure, first exposure + window) count (default: every event after the first exposure, up to now)',
    }),
  ),
  cap: t.Optional(t.Number({ description: 'a per-unit value above it counts as the cap' })),
  higher_is_better: t.Optional(t.Boolean({ description: 'default true' })),
}
export const MetricCreate = t.Object({ key: t.String(), ...metricFields }, { title: 'MetricCreate' })
export const MetricPatch = t.Object(
  Object.fromEntries(Object.entries(metricFields).map(([k, v]) => [k, t.Optional(t.Union([v, t.Null()]))])),
  { title: 'MetricPatch', description: 'the fields to change; null clears an optional one' },
)
export const Metric = t.Object(
  {
    key: t.String(),
    name: t.String(),
    description: t.Optional(t.String()),
    kind: t.UnionEnum([...METRIC_KINDS]),
    event: t.String(),
    aggregation: t.UnionEnum([...AGGREGATIONS]),
    denominator_event: t.Optional(t.String()),
    denominator_aggregation: t.Optional(t.UnionEnum([...AGGREGATIONS])),
    window_hours: t.Optional(t.Number()),
    cap: t.Optional(t.Number()),
    higher_is_better: t.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Metric' },
)

const experimentFields = {
  name: t.String({ description: '1 to 200 characters' }),
  hypothesis: t.Optional(t.String({ description: 'at most 2,000 characters' })),
  control: t.Optional(t.String({ description: 'the variant the others are compared with (default: the first of the split)' })),
  unit: t.Optional(t.String({ description: 'the context attribute that names a unit (default user_id)' })),
  goal_metrics: t.Array(t.String(), { description: 'metric keys, 1 to 20' }),
  guardrail_metrics: t.Optional(t.Array(t.String(), { description: 'metric keys, at most 20' })),
  secondary_metrics: t.Optional(t.Array(t.String(), { description: 'metric keys, at most 20' })),
  engine: t.Optional(t.String({ description: `${EXPERIMENT_ENGINES.join(' or ')} (default bayesian)` })),
  sequential: t.Optional(t.Boolean({ description: 'frequentist: always-valid sequential test (default true)' })),
  alpha: t.Optional(t.Number({ description: 'above 0, below 0.5 (default 0.05)' })),
  correction: t.Optional(t.String({ description: `${CORRECTIONS.join(', ')} (default none): over goal metrics × variants` })),
  cuped: t.Optional(t.Boolean({ description: 'CUPED variance reduction with the 14 days before first exposure (default true)' })),
}
export const ExperimentCreate = t.Object(
  {
    key: t.String(),
    flag: t.String({ description: 'a flag with variants and a distribution split in the environment' }),
    environment: t.String(),
    ...experimentFields,
  },
  { title: 'ExperimentCreate' },
)
export const ExperimentPatch = t.Object(
  {
    key: t.Optional(t.String({ description: 'cannot change' })),
    flag: t.Optional(t.String({ description: 'cannot change' })),
    environment: t.Optional(t.String({ description: 'cannot change' })),
    ...Object.fromEntries(Object.entries(experimentFields).map(([k, v]) => [k, t.Optional(v)])),
  },
  { title: 'ExperimentPatch', description: 'while draft any field; later only name, hypothesis and metrics' },
)
export const ExperimentPhase = t.Object(
  {
    number: t.Integer(),
    started_at: Timestamp,
    ended_at: t.Nullable(Timestamp),
    reason: t.String({ description: '`start`, or the flag change that opened it' }),
  },
  { title: 'ExperimentPhase' },
)
export const Experiment = t.Object(
  {
    key: t.String(),
    name: t.String(),
    hypothesis: t.Optional(t.String()),
    flag: t.String(),
    environment: t.String(),
    state: t.UnionEnum([...EXPERIMENT_STATES]),
    control: t.String(),
    unit: t.String(),
    goal_metrics: t.Array(t.String()),
    guardrail_metrics: t.Array(t.String()),
    secondary_metrics: t.Array(t.String()),
    engine: t.UnionEnum([...EXPERIMENT_ENGINES]),
    sequential: t.Boolean(),
    alpha: t.Number(),
    correction: t.UnionEnum([...CORRECTIONS]),
    cuped: t.Boolean(),
    phase: t.Integer({ description: 'the current phase (0 while draft)' }),
    phases: t.Array(ExperimentPhase),
    decision: t.Nullable(
      t.Object({ decision: t.UnionEnum([...DECISIONS]), variant: t.Optional(t.String()), at: Timestamp, by: t.String() }),
    ),
    pending_change_request: t.Nullable(t.String({ description: 'the change request a stop waits for (protected environment)' })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Experiment' },
)
export const ExperimentStop = t.Object(
  {
    decision: t.String({ description: `${DECISIONS.join(', ')}` }),
    variant: t.Optional(t.String({ description: 'ship: the variant every unit that reaches the split is served' })),
  },
  { title: 'ExperimentStop' },
)

export const TrackEvent = t.Object(
  {
    type: t.UnionEnum(['track']),
    key: t.String({ description: "the event's name (an event key)" }),
    context: Dict(Json, 'an evaluation context: the unit and its environment'),
    value: t.Optional(t.Number({ description: 'a finite number (default 1)' })),
    timestamp: t.Optional(t.String({ description: 'ISO 8601, at most 30 days old and 5 minutes ahead (default now)' })),
  },
  { title: 'TrackEvent' },
)
export const ExposureEvent = t.Object(
  {
    type: t.UnionEnum(['exposure']),
    flag: t.String(),
    variant: t.String(),
    context: Dict(Json, 'an evaluation context: the unit and its environment'),
    timestamp: t.Optional(t.String({ description: 'ISO 8601, at most 30 days old and 5 minutes ahead (default now)' })),
  },
  { title: 'ExposureEvent' },
)

const VariantResult = t.Object(
  {
    variant: t.String(),
    control: t.Boolean(),
    units: t.Integer(),
    mean: t.Number(),
    sum: t.Optional(t.Number()),
    denominator_sum: t.Optional(t.Number()),
    lift: t.Optional(t.Object({ relative: t.Number(), absolute: t.Number() })),
    ci: t.Optional(t.Array(t.Number(), { description: '[low, high] of the relative lift' })),
    p_value: t.Optional(t.Number({ description: 'frequentist (adjusted when a correction applies)' })),
    p_value_unadjusted: t.Optional(t.Number()),
    chance_to_win: t.Optional(t.Number({ description: 'bayesian' })),
    significant: t.Optional(t.Boolean()),
    direction: t.Optional(t.UnionEnum(['better', 'worse', 'none'])),
    error: t.Optional(t.String({ description: 'why no comparison could be made (zero_variance, baseline_zero)' })),
  },
  { title: 'VariantResult' },
)
export const ExperimentResults = t.Object(
  {
    experiment: t.String(),
    phase: t.Integer(),
    computed_at: Timestamp,
    units: Dict(t.Integer(), 'variant -> units seen only in it'),
    multiple_exposures: t.Integer({ description: 'units seen in more than one variant (left out)' }),
    srm: t.Object({ p_value: t.Number(), warning: t.Boolean({ description: 'p below 0.001: the split is not what was asked' }) }),
    metrics: t.Array(
      t.Object({
        metric: t.String(),
        role: t.UnionEnum([...METRIC_ROLES]),
        kind: t.UnionEnum([...METRIC_KINDS]),
        cuped_applied: t.Boolean(),
        variants: t.Array(VariantResult),
      }),
    ),
  },
  { title: 'ExperimentResults' },
)
