// Metrics experiments measure (docs/experiments.md §3): what a unit did after its first exposure, defined
// once and named by experiments. Every change is one transaction with its audit entry and `metric.*` event.
import type { MetricRow } from '../store/experiments'
import { AGGREGATIONS, METRIC_KINDS, type MetricDefinition } from '../store/vocabulary/experiments'
import { by, type Actor, type ServiceDeps } from './context'
import { notFound, validationError, limitReached, conflict, inUse } from '../errors'
import { KEY_PATTERN, displayNameIssue } from './keys'

export interface MetricInput {
  key?: unknown
  name?: unknown
  description?: unknown
  kind?: unknown
  event?: unknown
  aggregation?: unknown
  denominator_event?: unknown
  denominator_aggregation?: unknown
  window_hours?: unknown
  cap?: unknown
  higher_is_better?: unknown
}

/** A project holds at most this many metrics. */
export const MAX_METRICS = 1_000
const MAX_WINDOW_HOURS = 24 * 365

export const metricView = (row: MetricRow) => ({ key: row.key, ...row.body, created_at: row.createdAt, updated_at: row.updatedAt })

const FIELDS = [
  'name',
  'description',
  'kind',
  'event',
  'aggregation',
  'denominator_event',
  'denominator_aggregation',
  'window_hours',
  'cap',
  'higher_is_better',
] as const

/** The stored definition of `input` (over `base` for an update; null clears an optional field), or 400. */
export function checkMetric(input: MetricInput, base?: MetricDefinition): MetricDefinition {
  const merged: Record<string, unknown> = { ...base }
  for (const f of FIELDS) {
    if (input[f] === undefined) continue
    if (input[f] === null) delete merged[f]
    else merged[f] = input[f]
  }
  const issues: { path: string; message: string }[] = []
  const nameIssue = displayNameIssue(merged.name)
  if (nameIssue) issues.push(nameIssue)
  if (merged.description !== undefined && (typeof merged.description !== 'string' || merged.description.length > 2000))
    issues.push({ path: 'description', message: 'must be at most 2000 characters' })
  if (!METRIC_KINDS.includes(merged.kind as never)) issues.push({ path: 'kind', message: `must be one of ${METRIC_KINDS.join(', ')}` })
  const eventKey = (f: string) => {
    if (typeof merged[f] !== 'string' || !KEY_PATTERN.test(merged[f] as string))
      issues.push({ path: f, message: 'must be an event key (^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$)' })
  }
  eventKey('event')
  merged.aggregation ??= 'count'
  if (!AGGREGATIONS.includes(merged.aggregation as never))
    issues.push({ path: 'aggregation', message: `must be one of ${AGGREGATIONS.join(', ')}` })
  if (merged.kind === 'ratio') {
    eventKey('denominator_event')
    merged.denominator_aggregation ??= 'count'
    if (!AGGREGATIONS.includes(merged.denominator_aggregation as never))
      issues.push({ path: 'denominator_aggregation', message: `must be one of ${AGGREGATIONS.join(', ')}` })
  } else {
    if (merged.denominator_event !== undefined) issues.push({ path: 'denominator_event', message: 'is only for ratio metrics' })
    if (merged.denominator_aggregation !== undefined) issues.push({ path: 'denominator_aggregation', message: 'is only for ratio metrics' })
  }
  if (
    merged.window_hours !== undefined &&
    !(
      typeof merged.window_hours === 'number' &&
      Number.isFinite(merged.window_hours) &&
      merged.window_hours > 0 &&
      merged.window_hours <= MAX_WINDOW_HOURS
    )
  ) {
    issues.push({ path: 'window_hours', message: `must be a number of hours above 0, at most ${MAX_WINDOW_HOURS}` })
  }
  if (merged.cap !== undefined && !(typeof merged.cap === 'number' && Number.isFinite(merged.cap) && merged.cap > 0))
    issues.push({ path: 'cap', message: 'must be a number above 0' })
  merged.higher_is_better ??= true
  if (typeof merged.higher_is_better !== 'boolean') issues.push({ path: 'higher_is_better', message: 'must be a boolean' })
  if (issues.length) throw validationError(issues)
  return merged as unknown as MetricDefinition
}

export function experimentMetricService({ store, changes }: Pick<ServiceDeps, 'store' | 'changes'>) {
  const repo = store.experiments.metrics
  async function mustGet(projectId: string, key: string): Promise<MetricRow> {
    const row = await repo.get(store.db, projectId, key)
    if (!row) throw notFound('METRIC_NOT_FOUND', `Metric "${key}"`)
    return row
  }
  const event = (kind: 'metric.created' | 'metric.updated' | 'metric.deleted', row: MetricRow) => ({
    kind,
    environment: '',
    data: { key: row.key, name: row.body.name, kind: row.body.kind },
  })

  return {
    async list(projectId: string, limit: number, offset: number) {
      const [rows, total] = await Promise.all([repo.list(store.db, projectId, limit, offset), repo.total(store.db, projectId)])
      return { rows, total }
    },
    get: mustGet,

    create(actor: Actor, input: MetricInput) {
      if (typeof input.key !== 'string' || !KEY_PATTERN.test(input.key))
        throw validationError([{ path: 'key', message: 'must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' }])
      const key = input.key
      const body = checkMetric(input)
      return changes.run(async (tx, record) => {
        if (await repo.get(tx, actor.projectId, key)) throw conflict('CONFLICT', `Metric "${key}" already exists`)
        if ((await repo.total(tx, actor.projectId)) >= MAX_METRICS) throw limitReached(`A project holds at most ${MAX_METRICS} metrics`)
        const now = new Date().toISOString()
        const row: MetricRow = { projectId: actor.projectId, key, body, createdAt: now, updatedAt: now }
        await repo.insert(tx, row)
        await record({
          projectId: actor.projectId,
          ...by(actor),
          action: 'create',
          resourceType: 'metric',
          resourceKey: key,
          before: null,
          after: metricView(row),
          event: event('metric.created', row),
        })
        return row
      })
    },

    update(actor: Actor, key: string, input: MetricInput) {
      return changes.run(async (tx, record) => {
        const before = await repo.get(tx, actor.projectId, key)
        if (!before) throw notFound('METRIC_NOT_FOUND', `Metric "${key}"`)
        const row: MetricRow = { ...before, body: checkMetric(input, before.body), updatedAt: new Date().toISOString() }
        await repo.update(tx, row)
        await record({
          projectId: actor.projectId,
          ...by(actor),
          action: 'update',
          resourceType: 'metric',
          resourceKey: key,
          before: metricView(before),
          after: metricView(row),
          event: event('metric.updated', row),
        })
        return row
      })
    },

    /** 409 METRIC_IN_USE while an experiment names it. */
    delete(actor: Actor, key: string) {
      return changes.run(async (tx, record) => {
        const before = await repo.get(tx, actor.projectId, key)
        if (!before) throw notFound('METRIC_NOT_FOUND', `Metric "${key}"`)
        const users = await store.experiments.experiments.usingMetric(tx, actor.projectId, key)
        if (users.length)
          throw inUse(
            `Metric "${key}" is used by experiment ${users.map((u) => `"${u}"`).join(', ')}`,
            { experiments: users },
            'METRIC_IN_USE',
          )
        await repo.delete(tx, actor.projectId, key)
        await record({
          projectId: actor.projectId,
          ...by(actor),
          action: 'delete',
          resourceType: 'metric',
          resourceKey: key,
          before: metricView(before),
          after: null,
          event: event('metric.deleted', before),
        })
      })
    },
  }
}
export type ExperimentMetricService = ReturnType<typeof experimentMetricService>
