// Experiments (docs/experiments.md §2): a flag's split in one environment, measured. Create, update (while
// draft; later only name, hypothesis and metrics), delete (draft only), start (phase 1), and the phases
// a change to the flag in that environment opens (experiment-phases.ts); stop is experiment-stop.ts.
// Every change is one transaction with its audit entry and `experiment.*` event; the in-memory registry
// (experiments/registry.ts) follows the change notices.
import type { Db } from '../store'
import type { ExperimentRow } from '../store/experiments'
import {
  CORRECTIONS,
  EXPERIMENT_ENGINES,
  type EXPERIMENT_STATES,
  type ExperimentDefinition,
  type ExperimentEvent,
} from '../store/vocabulary/experiments'
import { experimentRegistry } from '../experiments/registry'
import { by, type Actor, type ServiceDeps } from './context'
import type { RecordChange } from './change-runner'
import { notFound, validationError, limitReached, conflict, invalidState } from '../errors'
import type { FlagBody } from '../kinds'
import { fingerprintIn, splitIn } from './experiment-flag'
import { KEY_PATTERN, displayNameIssue } from './keys'

export interface ExperimentInput {
  key?: unknown
  name?: unknown
  hypothesis?: unknown
  flag?: unknown
  environment?: unknown
  control?: unknown
  unit?: unknown
  goal_metrics?: unknown
  guardrail_metrics?: unknown
  secondary_metrics?: unknown
  engine?: unknown
  sequential?: unknown
  alpha?: unknown
  correction?: unknown
  cuped?: unknown
}

/** Metrics one experiment may name per role. */
export const MAX_METRICS_PER_ROLE = 20
/** Experiments a project may hold. */
export const MAX_EXPERIMENTS = 1_000
/** What may change once an experiment has started. */
const LATER_FIELDS = new Set(['name', 'hypothesis', 'goal_metrics', 'guardrail_metrics', 'secondary_metrics'])
const ATTRIBUTE = /^[A-Za-z_][A-Za-z0-9_.-]{0,199}$/

export const experimentView = (row: ExperimentRow) => ({
  key: row.key,
  flag: row.flagKey,
  environment: row.environment,
  state: row.state as (typeof EXPERIMENT_STATES)[number],
  ...row.body,
  phase: row.phase,
  phases: row.phases.map(({ fingerprint: _, ...p }) => p),
  decision: row.decision ?? null,
  pending_change_request: row.pendingChangeRequest ?? null,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
})

export const experimentEvent = (kind: ExperimentEvent, row: ExperimentRow, extra: Record<string, unknown> = {}) => ({
  kind,
  environment: row.environment,
  data: { key: row.key, flag: row.flagKey, state: row.state, phase: row.phase, ...extra },
})

export const experimentNotFound = (key: string) => notFound('EXPERIMENT_NOT_FOUND', `Experiment "${key}"`)

const metricList = (v: unknown, path: string, issues: { path: string; message: string }[], required: boolean): string[] => {
  if (v === undefined && !required) return []
  if (
    !Array.isArray(v) ||
    (required && v.length === 0) ||
    v.length > MAX_METRICS_PER_ROLE ||
    v.some((k) => typeof k !== 'string' || !KEY_PATTERN.test(k)) ||
    new Set(v).size !== v.length
  ) {
    issues.push({ path, message: `must be a list of ${required ? 1 : 0} to ${MAX_METRICS_PER_ROLE} distinct metric keys` })
    return []
  }
  return v as string[]
}

export function experimentService({ store, changes }: Pick<ServiceDeps, 'store' | 'changes'>) {
  const repo = store.experiments.experiments

  async function mustGet(db: Db, projectId: string, key: string): Promise<ExperimentRow> {
    const row = await repo.get(db, projectId, key)
    if (!row) throw experimentNotFound(key)
    return row
  }

  /** The flag, which must have variants and a distribution split in `environment`; 400 naming `flag`. */
  async function flagFor(db: Db, projectId: string, flagKey: string, environment: string): Promise<FlagBody> {
    const row = await store.flags.get(db, projectId, flagKey)
    if (!row) throw validationError([{ path: 'flag', message: `no flag "${flagKey}" in this project` }])
    const body = row.body
    if (!body.variants || Object.keys(body.variants).length < 2)
      throw validationError([{ path: 'flag', message: `flag "${flagKey}" must have at least two variants` }])
    if (!splitIn(body, environment))
      throw validationError([
        { path: 'flag', message: `flag "${flagKey}" has no distribution split in ${environment} (targeting.rollout.distribution)` },
      ])
    return body
  }

  /** The definition `input` makes over `base` (create: defaults), checked against the project. */
  async function definition(
    db: Db,
    projectId: string,
    input: ExperimentInput,
    base: ExperimentDefinition | undefined,
    flag: FlagBody,
    environment: string,
  ): Promise<ExperimentDefinition> {
    const issues: { path: string; message: string }[] = []
    const pick = <T>(f: keyof ExperimentInput, fallback: T): unknown =>
      input[f] !== undefined ? input[f] : base ? base[f as keyof ExperimentDefinition] : fallback
    const name = pick('name', undefined)
    const nameIssue = displayNameIssue(name)
    if (nameIssue) issues.push(nameIssue)
    const hypothesis = pick('hypothesis', undefined)
    if (hypothesis !== undefined && hypothesis !== null && (typeof hypothesis !== 'string' || hypothesis.length > 2000))
      issues.push({ path: 'hypothesis', message: 'must be at most 2000 characters' })
    const split = splitIn(flag, environment)!
    const control = pick('control', split[0]!.variant)
    if (typeof control !== 'string' || !split.some((s) => s.variant === control))
      issues.push({ path: 'control', message: `must be one of the split's variants (${split.map((s) => s.variant).join(', ')})` })
    const unit = pick('unit', 'user_id')
    if (typeof unit !== 'string' || !ATTRIBUTE.test(unit))
      issues.push({ path: 'unit', message: 'must be a context attribute name (user_id, or a custom attribute)' })
    const goal = metricList(pick('goal_metrics', undefined), 'goal_metrics', issues, true)
    const guardrail = metricList(pick('guardrail_metrics', []), 'guardrail_metrics', issues, false)
    const secondary = metricList(pick('secondary_metrics', []), 'secondary_metrics', issues, false)
    const engine = pick('engine', 'bayesian')
    if (!EXPERIMENT_ENGINES.includes(engine as never))
      issues.push({ path: 'engine', message: `must be one of ${EXPERIMENT_ENGINES.join(', ')}` })
    const sequential = pick('sequential', true)
    if (typeof sequential !== 'boolean') issues.push({ path: 'sequential', message: 'must be a boolean' })
    const alpha = pick('alpha', 0.05)
    if (typeof alpha !== 'number' || !(alpha > 0 && alpha < 0.5))
      issues.push({ path: 'alpha', message: 'must be a number above 0 and below 0.5' })
    const correction = pick('correction', 'none')
    if (!CORRECTIONS.includes(correction as never)) issues.push({ path: 'correction', message: `must be one of ${CORRECTIONS.join(', ')}` })
    const cuped = pick('cuped', true)
    if (typeof cuped !== 'boolean') issues.push({ path: 'cuped', message: 'must be a boolean' })
    const all = [...goal, ...guardrail, ...secondary]
    if (new Set(all).size !== all.length) issues.push({ path: 'secondary_metrics', message: 'a metric may have one role only' })
    if (!issues.length) {
      const known = new Set((await store.experiments.metrics.many(db, projectId, all)).map((m) => m.key))
      for (const [role, list] of [
        ['goal_metrics', goal],
        ['guardrail_metrics', guardrail],
        ['secondary_metrics', secondary],
      ] as const) {
        list.forEach((k, i) => known.has(k) || issues.push({ path: `${role}[${i}]`, message: `no metric "${k}" in this project` }))
      }
    }
    if (issues.length) throw validationError(issues)
    return {
      name: name as string,
      ...(typeof hypothesis === 'string' && { hypothesis }),
      control: control as string,
      unit: unit as string,
      goal_metrics: goal,
      guardrail_metrics: guardrail,
      secondary_metrics: secondary,
      engine: engine as ExperimentDefinition['engine'],
      sequential: sequential as boolean,
      alpha: alpha as number,
      correction: correction as ExperimentDefinition['correction'],
      cuped: cuped as boolean,
    }
  }

  /** Refuses a second running experiment on the same flag and environment (409 EXPERIMENT_RUNNING). */
  async function refuseIfRunning(tx: Db, row: ExperimentRow): Promise<void> {
    await store.lock(tx, `experiment:${row.projectId}:${row.flagKey}:${row.environment}`)
    const other = await repo.runningOn(tx, row.projectId, row.flagKey, row.environment)
    if (other && other.id !== row.id) {
      throw conflict('EXPERIMENT_RUNNING', `Experiment "${other.key}" is already running on flag "${row.flagKey}" in ${row.environment}`, {
        experiment: other.key,
      })
    }
  }

  /** Writes `after` and records the change (audit entry, event). */
  async function save(
    tx: Db,
    record: RecordChange,
    actor: Actor,
    before: ExperimentRow,
    after: ExperimentRow,
    action: 'update' | 'start' | 'open_phase' | 'stop',
    kind: ExperimentEvent,
    extra: Record<string, unknown> = {},
  ) {
    await repo.update(tx, after)
    await record({
      projectId: actor.projectId,
      ...by(actor),
      action,
      resourceType: 'experiment',
      resourceKey: after.key,
      before: experimentView(before),
      after: experimentView(after),
      event: experimentEvent(kind, after, extra),
    })
  }

  return {
    mustGet: (projectId: string, key: string) => mustGet(store.db, projectId, key),
    async list(projectId: string, limit: number, offset: number, state?: string) {
      const [rows, total] = await Promise.all([
        repo.list(store.db, projectId, limit, offset, state),
        repo.total(store.db, projectId, state),
      ])
      return { rows, total }
    },

    create(actor: Actor, input: ExperimentInput) {
      const issues: { path: string; message: string }[] = []
      if (typeof input.key !== 'string' || !KEY_PATTERN.test(input.key))
        issues.push({ path: 'key', message: 'must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' })
      if (typeof input.flag !== 'string' || !KEY_PATTERN.test(input.flag)) issues.push({ path: 'flag', message: 'must be a flag key' })
      if (typeof input.environment !== 'string') issues.push({ path: 'environment', message: "must be one of the project's environments" })
      if (issues.length) throw validationError(issues)
      const [key, flagKey, environment] = [input.key as string, input.flag as string, input.environment as string]
      return changes.run(async (tx, record) => {
        const project = await store.projects.get(tx, actor.projectId)
        if (!project?.environments.includes(environment))
          throw validationError([
            { path: 'environment', message: `unknown environment "${environment}"; the project has: ${project?.environments.join(', ')}` },
          ])
        if (await repo.get(tx, actor.projectId, key)) throw conflict('CONFLICT', `Experiment "${key}" already exists`)
        if ((await repo.total(tx, actor.projectId)) >= MAX_EXPERIMENTS)
          throw limitReached(`A project holds at most ${MAX_EXPERIMENTS} experiments`)
        const flag = await flagFor(tx, actor.projectId, flagKey, environment)
        const now = new Date().toISOString()
        const row: ExperimentRow = {
          id: crypto.randomUUID(),
          projectId: actor.projectId,
          key,
          flagKey,
          environment,
          state: 'draft',
          phase: 0,
          phases: [],
          body: await definition(tx, actor.projectId, input, undefined, flag, environment),
          decision: null,
          pendingChangeRequest: null,
          createdAt: now,
          updatedAt: now,
        }
        await repo.insert(tx, row)
        await record({
          projectId: actor.projectId,
          ...by(actor),
          action: 'create',
          resourceType: 'experiment',
          resourceKey: key,
          before: null,
          after: experimentView(row),
          event: experimentEvent('experiment.created', row),
        })
        return row
      })
    },

    /** While draft any field but key, flag and environment; later only name, hypothesis and metrics. */
    update(actor: Actor, key: string, input: ExperimentInput) {
      return changes.run(async (tx, record) => {
        const before = await mustGet(tx, actor.projectId, key)
        const fixed = ['key', 'flag', 'environment'].filter(
          (f) =>
            input[f as keyof ExperimentInput] !== undefined &&
            input[f as keyof ExperimentInput] !== (f === 'key' ? before.key : f === 'flag' ? before.flagKey : before.environment),
        )
        if (fixed.length) throw validationError(fixed.map((f) => ({ path: f, message: 'cannot be changed (create another experiment)' })))
        if (before.state !== 'draft') {
          const late = Object.keys(input).filter(
            (f) => input[f as keyof ExperimentInput] !== undefined && !LATER_FIELDS.has(f) && !['key', 'flag', 'environment'].includes(f),
          )
          if (late.length)
            throw invalidState(`Experiment "${key}" is ${before.state}: only name, hypothesis and metrics may change`, {
              state: before.state,
              fields: late,
            })
        }
        const flag = before.state === 'draft' ? await flagFor(tx, actor.projectId, before.flagKey, before.environment) : undefined
        // Once started, the split may have changed (phases) and only fields that do not name it may change:
        // the stored control stands, checked against a split of itself.
        const body = flag
          ? await definition(tx, actor.projectId, input, before.body, flag, before.environment)
          : await definition(
              tx,
              actor.projectId,
              input,
              before.body,
              {
                enabled: true,
                value: null,
                targeting: { rollout: { attribute: before.body.unit, distribution: [{ variant: before.body.control, weight: 100 }] } },
              },
              before.environment,
            )
        const after: ExperimentRow = { ...before, body, updatedAt: new Date().toISOString() }
        await save(tx, record, actor, before, after, 'update', 'experiment.updated')
        return after
      })
    },

    /** Only a draft: nothing was measured yet. */
    delete(actor: Actor, key: string) {
      return changes.run(async (tx, record) => {
        const before = await mustGet(tx, actor.projectId, key)
        if (before.state !== 'draft')
          throw invalidState(`Experiment "${key}" is ${before.state}; only a draft can be deleted`, { state: before.state })
        await repo.delete(tx, before.id)
        await record({
          projectId: actor.projectId,
          ...by(actor),
          action: 'delete',
          resourceType: 'experiment',
          resourceKey: key,
          before: experimentView(before),
          after: null,
          event: experimentEvent('experiment.deleted', before),
        })
      })
    },

    /** Draft -> running, phase 1; 409 EXPERIMENT_RUNNING when another runs on the flag and environment. */
    start(actor: Actor, key: string) {
      return changes.run(async (tx, record) => {
        const before = await mustGet(tx, actor.projectId, key)
        if (before.state !== 'draft')
          throw invalidState(`Experiment "${key}" is ${before.state}; only a draft can start`, { state: before.state })
        const flag = await flagFor(tx, actor.projectId, before.flagKey, before.environment)
        await refuseIfRunning(tx, before)
        const now = new Date().toISOString()
        const after: ExperimentRow = {
          ...before,
          state: 'running',
          phase: 1,
          phases: [{ number: 1, started_at: now, ended_at: null, reason: 'start', fingerprint: fingerprintIn(flag, before.environment) }],
          updatedAt: now,
        }
        await save(tx, record, actor, before, after, 'start', 'experiment.started')
        return after
      })
    },

    /** Reloads the in-memory registry (at start, on an experiment's change notice, at reconcile). */
    async reloadRegistry(): Promise<void> {
      experimentRegistry.load(await repo.live(store.db))
    },
    save,
  }
}
export type ExperimentService = ReturnType<typeof experimentService>
