// The endpoints behind the experiment pages (docs/experiments.md): metrics, experiments with start and stop,
// and their results. Same client and errors as api.ts; the results' rows are server/stats' own types.
import { request, type PageParams, type ListPage } from './api'
import type { MetricResult, SrmResult } from '../../server/stats/types'

export type { MetricResult, VariantResult } from '../../server/stats/types'

export type MetricKind = 'proportion' | 'mean' | 'ratio'
export type Aggregation = 'count' | 'sum'

export interface MetricInput {
  key: string
  name: string
  description?: string
  kind: MetricKind
  event: string
  aggregation?: Aggregation
  denominator_event?: string
  denominator_aggregation?: Aggregation
  window_hours?: number
  cap?: number
  higher_is_better?: boolean
}
export type Metric = Required<Pick<MetricInput, 'key' | 'name' | 'kind' | 'event' | 'aggregation' | 'higher_is_better'>> &
  Omit<MetricInput, 'aggregation' | 'higher_is_better'> & { created_at: string; updated_at: string }

export type ExperimentState = 'draft' | 'running' | 'stopped'
export type Engine = 'bayesian' | 'frequentist'
export type Correction = 'none' | 'holm' | 'bh'
export type Decision = 'ship' | 'rollback' | 'inconclusive'

export interface ExperimentInput {
  key: string
  name: string
  hypothesis?: string
  flag: string
  environment: string
  control?: string
  unit?: string
  goal_metrics: string[]
  guardrail_metrics?: string[]
  secondary_metrics?: string[]
  engine?: Engine
  sequential?: boolean
  alpha?: number
  correction?: Correction
  cuped?: boolean
}

export interface Experiment extends Required<Omit<ExperimentInput, 'hypothesis'>> {
  hypothesis?: string
  state: ExperimentState
  phase: number
  phases: { number: number; started_at: string; ended_at: string | null; reason: string }[]
  decision: { decision: Decision; variant?: string; at: string; by: string } | null
  pending_change_request: string | null
  created_at: string
  updated_at: string
}

/** Cumulative units per variant at the end of each day of the phase (the units-over-time chart). */
export interface UnitsTimeline {
  /** ISO timestamps: the end of each day (the last one: when computed) */
  at: string[]
  units: Record<string, number[]>
}

export interface ExperimentResults {
  experiment: string
  phase: number
  computed_at: string
  units: Record<string, number>
  multiple_exposures: number
  srm: SrmResult
  metrics: MetricResult[]
}

export interface ExperimentUnits {
  experiment: string
  phase: number
  units: Record<string, number>
  multiple_exposures: number
  timeline?: UnitsTimeline
}

export type StopBody = { decision: 'ship'; variant: string } | { decision: 'rollback' } | { decision: 'inconclusive' }
export type StopAnswer = { success: true; experiment: Experiment; change_request?: { id: string; state: string; title: string } }

type Ok<T> = { success: true } & T
const enc = encodeURIComponent

export const experimentKeys = {
  all: ['experiments'] as const,
  page: (state: ExperimentState | undefined, p: PageParams) => ['experiments', 'page', state ?? 'all', p] as const,
  one: (key: string) => ['experiments', 'one', key] as const,
  results: (key: string, phase: number | undefined) => ['experiments', 'results', key, phase ?? 'current'] as const,
  units: (key: string, phase?: number, timeline = false) => ['experiments', 'units', key, phase ?? 'current', timeline] as const,
  metrics: ['metrics'] as const,
}

export const experimentsApi = {
  metrics: async (): Promise<Metric[]> => (await request<{ metrics: Metric[] }>('GET', '/metrics', { query: { limit: 1000 } })).metrics,
  createMetric: (m: MetricInput) => request<Ok<{ metric: Metric }>>('POST', '/metrics', { body: m }),
  deleteMetric: (key: string) => request<Ok<{ key: string }>>('DELETE', `/metrics/${enc(key)}`),

  experimentPage: async (state: ExperimentState | undefined, { limit, offset }: PageParams): Promise<ListPage<Experiment>> => {
    const body = await request<{ experiments: Experiment[]; total: number }>('GET', '/experiments', { query: { state, limit, offset } })
    return { items: body.experiments, total: body.total }
  },
  experiment: async (key: string): Promise<Experiment> =>
    (await request<{ experiment: Experiment }>('GET', `/experiments/${enc(key)}`)).experiment,
  createExperiment: (e: ExperimentInput) => request<Ok<{ experiment: Experiment }>>('POST', '/experiments', { body: e }),
  deleteExperiment: (key: string) => request<Ok<{ key: string }>>('DELETE', `/experiments/${enc(key)}`),
  start: (key: string) => request<Ok<{ experiment: Experiment }>>('POST', `/experiments/${enc(key)}/start`),
  stop: ({ key, body }: { key: string; body: StopBody }) => request<StopAnswer>('POST', `/experiments/${enc(key)}/stop`, { body }),
  /** a phase's units per variant, counted without the results (the list's column); `timeline`: with their
   *  cumulative count per day (the results page's chart) */
  units: (key: string, phase?: number, timeline = false) =>
    request<ExperimentUnits>('GET', `/experiments/${enc(key)}/units`, { query: { phase, timeline: timeline || undefined } }),
  results: (key: string, phase?: number, refresh = false) =>
    request<ExperimentResults>('GET', `/experiments/${enc(key)}/results`, { query: { phase, refresh: refresh || undefined } }),
}
