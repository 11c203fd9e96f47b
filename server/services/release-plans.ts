// Release plans (docs/experiments.md §7): a flag's rollout in one environment raised step by
// step, each step held while guardrail metrics are watched (release-plan-monitor.ts). Create (draft), start
// (step 1; in a protected environment a change request whose approval covers the later steps and the
// rollback), pause, resume, roll back. Every transition is one change: the plan's row (compare-and-set), its
// audit entry and `release.*` event, and the flag's rollout written into the environment's own rules through
// the flag's change path, in one transaction.
import type { Db } from '../store'
import type { ReleasePlanRow } from '../store/release-plans'
import {
  ON_REGRESSION,
  type ReleaseEvent,
  type ReleasePlanState,
  type ReleasePlanDefinition,
  type ReleasePlanStatus,
  type ReleaseStep,
} from '../store/vocabulary/release-plans'
import type { Action } from '../store/vocabulary/changes'
import type { FlagOverride } from '../schemas'
import type { ChangeAuthority } from './change-request-types'
import type { ChangeRequestService, Requester } from './change-requests'
import type { FlagService } from './flags'
import type { RecordChange } from './change-runner'
import type { ChangeNotice } from '../notices/changes'
import { by, type Actor, type ServiceDeps } from './context'
import { AppError, invalidState as invalidStateError, conflict, limitReached, notFound, validationError } from '../errors'
import type { FlagBody } from '../kinds'
import { targetingIn } from './experiment-flag'
import { KEY_PATTERN } from './keys'
import { releasePlanRegistry } from '../experiments/release-registry'
import { experimentRegistry } from '../experiments/registry'

export interface ReleasePlanInput {
  environment?: unknown
  variant?: unknown
  control_variant?: unknown
  steps?: unknown
  guardrails?: unknown
  min_units?: unknown
  on_regression?: unknown
}

export const MAX_STEPS = 20
export const MAX_GUARDRAILS = 20
/** Plans a project may hold; plans listed per flag. */
export const MAX_PLANS = 1_000
export const MAX_LISTED = 100
/** A step is held at most 30 days. */
const MAX_HOLD_MINUTES = 43_200
const MAX_MIN_UNITS = 10_000_000

type Issue = { path: string; message: string }

export const releasePlanNotFound = (id: string) => notFound('RELEASE_PLAN_NOT_FOUND', `Release plan "${id}"`)

const emptyStatus = (): ReleasePlanStatus => ({
  checked_at: null,
  units: { treatment: 0, control: 0 },
  srm_p_value: null,
  guardrails: [],
  reason: null,
})

export const releasePlanView = (row: ReleasePlanRow) => ({
  id: row.id,
  flag: row.flagKey,
  environment: row.environment,
  state: row.state as ReleasePlanState,
  steps: row.body.steps,
  guardrails: row.body.guardrails,
  min_units: row.body.min_units,
  on_regression: row.body.on_regression,
  attribute: row.body.attribute,
  ...(row.body.variant !== undefined && { variant: row.body.variant, control_variant: row.body.control_variant }),
  current_step: row.currentStep,
  percentage: row.currentStep > 0 ? row.body.steps[row.currentStep - 1]!.percentage : 0,
  step_started_at: row.stepStartedAt,
  checked_at: row.status.checked_at,
  units: row.status.units,
  srm_p_value: row.status.srm_p_value,
  guardrail_results: row.status.guardrails,
  reason: row.status.reason,
  ...(row.status.metric !== undefined && { metric: row.status.metric }),
  approval: row.status.approval ?? null,
  pending_change_request: row.pendingChangeRequest,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
})

/** The plan's settings from `input`; 400 naming every bad field. */
function definitionOf(input: ReleasePlanInput, attribute: string): ReleasePlanDefinition {
  const issues: Issue[] = []
  const steps: ReleaseStep[] = []
  if (!Array.isArray(input.steps) || input.steps.length < 2 || input.steps.length > MAX_STEPS)
    issues.push({ path: 'steps', message: `must be a list of 2 to ${MAX_STEPS} steps` })
  else {
    input.steps.forEach((s: unknown, i) => {
      const { percentage, hold_minutes } = (s ?? {}) as { percentage?: unknown; hold_minutes?: unknown }
      if (
        typeof percentage !== 'number' ||
        !(percentage > 0 && percentage <= 100) ||
        Math.abs(Math.round(percentage * 100) - percentage * 100) > 1e-9
      )
        issues.push({ path: `steps[${i}].percentage`, message: 'must be a number above 0 and at most 100, with at most two decimals' })
      else if (steps.length && percentage <= steps.at(-1)!.percentage)
        issues.push({ path: `steps[${i}].percentage`, message: `must be above the previous step's (${steps.at(-1)!.percentage})` })
      if (typeof hold_minutes !== 'number' || !(hold_minutes > 0 && hold_minutes <= MAX_HOLD_MINUTES))
        issues.push({
          path: `steps[${i}].hold_minutes`,
          message: `must be a number above 0 and at most ${MAX_HOLD_MINUTES} (fractions allowed)`,
        })
      steps.push({ percentage: percentage as number, hold_minutes: hold_minutes as number })
    })
  }
  const guardrails: ReleasePlanDefinition['guardrails'] = []
  const raw = input.guardrails ?? []
  if (!Array.isArray(raw) || raw.length > MAX_GUARDRAILS)
    issues.push({ path: 'guardrails', message: `must be a list of at most ${MAX_GUARDRAILS} guardrails` })
  else {
    raw.forEach((g: unknown, i) => {
      const { metric, max_degradation } = (g ?? {}) as { metric?: unknown; max_degradation?: unknown }
      if (typeof metric !== 'string' || !KEY_PATTERN.test(metric))
        issues.push({ path: `guardrails[${i}].metric`, message: 'must be a metric key' })
      else if (guardrails.some((x) => x.metric === metric))
        issues.push({ path: `guardrails[${i}].metric`, message: `"${metric}" is named twice` })
      if (max_degradation !== undefined && (typeof max_degradation !== 'number' || !(max_degradation >= 0 && max_degradation <= 10)))
        issues.push({ path: `guardrails[${i}].max_degradation`, message: 'must be a fraction of the control mean, 0 to 10' })
      guardrails.push({ metric: metric as string, max_degradation: typeof max_degradation === 'number' ? max_degradation : 0 })
    })
  }
  const minUnits = input.min_units ?? 100
  if (typeof minUnits !== 'number' || !Number.isInteger(minUnits) || minUnits < 1 || minUnits > MAX_MIN_UNITS)
    issues.push({ path: 'min_units', message: `must be an integer from 1 to ${MAX_MIN_UNITS}` })
  const onRegression = input.on_regression ?? 'rollback'
  if (!ON_REGRESSION.includes(onRegression as never))
    issues.push({ path: 'on_regression', message: `must be one of ${ON_REGRESSION.join(', ')}` })
  if (issues.length) throw validationError(issues)
  return {
    steps,
    guardrails,
    min_units: minUnits as number,
    on_regression: onRegression as ReleasePlanDefinition['on_regression'],
    attribute,
  }
}

/** A flag with variants: the new variant (required) and the control (default: the flag's default variant);
 *  a flag without: neither. 400 naming the field. */
function variantsOf(body: FlagBody, input: ReleasePlanInput): Pick<ReleasePlanDefinition, 'variant' | 'control_variant'> {
  const names = Object.keys(body.variants ?? {})
  if (!names.length) {
    if (input.variant !== undefined || input.control_variant !== undefined)
      throw validationError([
        { path: input.variant !== undefined ? 'variant' : 'control_variant', message: 'only for a flag with variants' },
      ])
    return {}
  }
  const control = input.control_variant ?? body.default_variant ?? names[0]
  const issues: Issue[] = []
  if (typeof input.variant !== 'string' || !names.includes(input.variant))
    issues.push({ path: 'variant', message: `must be the new variant, one of ${names.join(', ')}` })
  if (typeof control !== 'string' || !names.includes(control))
    issues.push({ path: 'control_variant', message: `must be one of ${names.join(', ')}` })
  else if (control === input.variant) issues.push({ path: 'control_variant', message: 'must differ from the new variant' })
  if (issues.length) throw validationError(issues)
  return { variant: input.variant as string, control_variant: control as string }
}

/** The environment's override with its own rules (a copy of the flag's when it has none) serving the
 *  rollout at `percentage` (a flag with variants: the new variant at that weight, first, the control the
 *  rest); nothing else of the environment changes, so going to 0 % of a percentage rollout only stops serving. */
export function rolloutOverride(
  body: FlagBody,
  environment: string,
  def: Pick<ReleasePlanDefinition, 'attribute' | 'variant' | 'control_variant'>,
  percentage: number,
): FlagOverride {
  const current = body.environments?.[environment]
  const targeting = targetingIn(body, environment) ?? {}
  const rollout =
    def.variant === undefined
      ? { ...(targeting.rollout ?? {}), attribute: def.attribute, percentage }
      : {
          attribute: def.attribute,
          distribution: [
            { variant: def.variant, weight: percentage },
            { variant: def.control_variant!, weight: Math.round((100 - percentage) * 100) / 100 },
          ].filter((d) => d.weight > 0),
        }
  return { ...(current ?? { enabled: body.enabled }), targeting: { ...targeting, rollout } } as FlagOverride
}

/** Who the monitor acts as: the plan itself. */
export const planActor = (row: ReleasePlanRow, authority?: ChangeAuthority): Actor => ({
  projectId: row.projectId,
  name: `release-plan:${row.id}`,
  type: 'release_plan',
  ...(authority && { authority }),
})

export function releasePlanService(
  { store, changes }: Pick<ServiceDeps, 'store' | 'changes'>,
  flags: FlagService,
  changeRequests: ChangeRequestService,
) {
  const repo = store.releasePlans

  async function mustGet(db: Db, projectId: string, flagKey: string, id: string): Promise<ReleasePlanRow> {
    const row = await repo.get(db, projectId, id)
    if (!row || row.flagKey !== flagKey) throw releasePlanNotFound(id)
    return row
  }

  async function flagOf(db: Db, projectId: string, flagKey: string): Promise<FlagBody> {
    const row = await store.flags.get(db, projectId, flagKey)
    if (!row) throw notFound('FLAG_NOT_FOUND', `Flag "${flagKey}"`)
    return row.body
  }

  const invalidState = (row: ReleasePlanRow, what: string) =>
    invalidStateError(`Release plan "${row.id}" is ${row.state}; ${what}`, { state: row.state })

  /**
   * Moves a plan from `before` to `after` inside a running change: the flag's rollout first when
   * `percentage` is given (as `flagActor`, through the flag's change path and the protection gate), then the
   * plan's row (refused with 409 when someone moved it meanwhile), its audit entry and event.
   */
  async function transition(
    tx: Db,
    record: RecordChange,
    actor: Actor,
    before: ReleasePlanRow,
    after: ReleasePlanRow,
    action: Action,
    kind: ReleaseEvent | undefined,
    data: Record<string, unknown>,
    percentage?: { value: number; flagActor: Actor },
  ) {
    if (percentage) {
      const body = await flagOf(tx, before.projectId, before.flagKey)
      // the flag change's audit entry names the plan too
      const naming: RecordChange = (change) => record({ ...change, details: { ...change.details, release_plan: before.id } })
      await flags.opIn(tx, naming, percentage.flagActor, {
        action: 'set_override',
        key: before.flagKey,
        environment: before.environment,
        body: rolloutOverride(body, before.environment, before.body, percentage.value),
      })
    }
    if (!(await repo.replace(tx, before, after))) throw conflict('CONFLICT', `Release plan "${before.id}" changed meanwhile`)
    const view = releasePlanView(after)
    await record({
      projectId: before.projectId,
      ...by(actor),
      action,
      resourceType: 'release_plan',
      resourceKey: before.id,
      before: releasePlanView(before),
      after: view,
      details: { release_plan: before.id, flag: before.flagKey },
      ...(kind && {
        event: {
          kind,
          environment: before.environment,
          data: { id: before.id, flag: before.flagKey, state: after.state, step: after.currentStep, percentage: view.percentage, ...data },
        },
      }),
    })
    return after
  }

  const now = () => new Date().toISOString()
  const next = (row: ReleasePlanRow, changes: Partial<ReleasePlanRow>): ReleasePlanRow => ({
    ...row,
    ...changes,
    updatedAt: laterThan(row.updatedAt),
  })

  const service = {
    mustGet: (projectId: string, flagKey: string, id: string) => mustGet(store.db, projectId, flagKey, id),
    async list(projectId: string, flagKey: string) {
      await flagOf(store.db, projectId, flagKey)
      return repo.byFlag(store.db, projectId, flagKey, MAX_LISTED)
    },

    async create(actor: Actor, flagKey: string, input: ReleasePlanInput): Promise<ReleasePlanRow> {
      const body = await flagOf(store.db, actor.projectId, flagKey)
      const environment = input.environment
      const project = await store.projects.get(store.db, actor.projectId)
      if (typeof environment !== 'string' || !project?.environments.includes(environment))
        throw validationError([
          { path: 'environment', message: `must be one of the project's environments (${project?.environments.join(', ')})` },
        ])
      const def = { ...definitionOf(input, targetingIn(body, environment)?.rollout?.attribute ?? 'user_id'), ...variantsOf(body, input) }
      const known = new Set(
        (
          await store.experiments.metrics.many(
            store.db,
            actor.projectId,
            def.guardrails.map((g) => g.metric),
          )
        ).map((m) => m.key),
      )
      const missing = def.guardrails.flatMap((g, i) =>
        known.has(g.metric) ? [] : [{ path: `guardrails[${i}].metric`, message: `no metric "${g.metric}" in this project` }],
      )
      if (missing.length) throw validationError(missing)
      return changes.run(async (tx, record) => {
        if ((await repo.countByProject(tx, actor.projectId)) >= MAX_PLANS)
          throw limitReached(`A project holds at most ${MAX_PLANS} release plans`)
        const at = now()
        const row: ReleasePlanRow = {
          id: crypto.randomUUID(),
          projectId: actor.projectId,
          flagKey,
          environment,
          state: 'draft',
          currentStep: 0,
          phase: 0,
          stepStartedAt: null,
          body: def,
          status: emptyStatus(),
          pendingChangeRequest: null,
          claimedBy: null,
          claimedUntil: null,
          createdAt: at,
          updatedAt: at,
        }
        await repo.insert(tx, row)
        await record({
          projectId: actor.projectId,
          ...by(actor),
          action: 'create',
          resourceType: 'release_plan',
          resourceKey: row.id,
          before: null,
          after: releasePlanView(row),
          details: { release_plan: row.id, flag: flagKey },
        })
        return row
      })
    },

    /** Step 1 through the change path; in a protected environment a change request (202). */
    async start(
      req: Requester,
      flagKey: string,
      id: string,
    ): Promise<{ plan: ReleasePlanRow; changeRequest?: Awaited<ReturnType<ChangeRequestService['create']>> }> {
      const { actor } = req
      const current = await mustGet(store.db, actor.projectId, flagKey, id)
      if (current.state !== 'draft') throw invalidState(current, 'only a draft plan can start')
      const experiment = experimentRegistry.runningIn(actor.projectId, flagKey, current.environment)
      if (experiment)
        throw conflict(
          'EXPERIMENT_RUNNING',
          `Experiment "${experiment.key}" runs on flag "${flagKey}" in ${current.environment}: stop it first`,
          { experiment: experiment.key },
        )
      const holder = await repo.active(store.db, actor.projectId, flagKey, current.environment)
      if (holder)
        throw conflict('RELEASE_PLAN_ACTIVE', `Release plan "${holder.id}" already holds flag "${flagKey}" in ${current.environment}`, {
          release_plan: holder.id,
        })
      const first = current.body.steps[0]!.percentage
      try {
        const plan = await changes.run(async (tx, record) => {
          const before = await mustGet(tx, actor.projectId, flagKey, id)
          if (before.state !== 'draft') throw invalidState(before, 'only a draft plan can start')
          const at = now()
          const after = next(before, { state: 'running', currentStep: 1, phase: 1, stepStartedAt: at })
          return transition(tx, record, actor, before, after, 'start', 'release.started', {}, { value: first, flagActor: actor })
        })
        return { plan }
      } catch (e) {
        if (!(e instanceof AppError && e.code === 'CHANGE_REQUEST_REQUIRED')) throw e
      }
      const body = await flagOf(store.db, actor.projectId, flagKey)
      const changeRequest = await changeRequests.create(req, {
        title: `Release plan for ${flagKey} in ${current.environment}: start at ${first} %`,
        description:
          `Starts release plan ${id}: its approval covers the plan's later steps ` +
          `(${current.body.steps.map((s) => `${s.percentage} %`).join(', ')}) and its rollback.`,
        items: [
          {
            resource_type: 'flag',
            key: flagKey,
            action: 'set_override',
            environment: current.environment,
            body: rolloutOverride(body, current.environment, current.body, first),
          },
        ],
      })
      const plan = await changes.run(async (tx, record) => {
        const before = await mustGet(tx, actor.projectId, flagKey, id)
        if (before.state !== 'draft') throw invalidState(before, 'only a draft plan can start')
        return transition(
          tx,
          record,
          actor,
          before,
          next(before, { state: 'awaiting_approval', pendingChangeRequest: changeRequest.id }),
          'update',
          undefined,
          { change_request: changeRequest.id },
        )
      })
      return { plan, changeRequest }
    },

    async pause(actor: Actor, flagKey: string, id: string): Promise<ReleasePlanRow> {
      return changes.run(async (tx, record) => {
        const before = await mustGet(tx, actor.projectId, flagKey, id)
        if (before.state !== 'running') throw invalidState(before, 'only a running plan can pause')
        return transition(
          tx,
          record,
          actor,
          before,
          next(before, { state: 'paused', status: { ...before.status, reason: 'manual' } }),
          'pause',
          'release.paused',
          { reason: 'manual' },
        )
      })
    },

    /** Holds the step again from now, measured afresh (a new phase). */
    async resume(actor: Actor, flagKey: string, id: string): Promise<ReleasePlanRow> {
      return changes.run(async (tx, record) => {
        const before = await mustGet(tx, actor.projectId, flagKey, id)
        if (before.state !== 'paused') throw invalidState(before, 'only a paused plan can resume')
        const { metric: _, ...status } = before.status
        return transition(
          tx,
          record,
          actor,
          before,
          next(before, {
            state: 'running',
            phase: before.phase + 1,
            stepStartedAt: now(),
            status: { ...status, reason: null, guardrails: [] },
          }),
          'resume',
          'release.resumed',
          {},
        )
      })
    },

    async rollback(actor: Actor, flagKey: string, id: string): Promise<ReleasePlanRow> {
      const before = await mustGet(store.db, actor.projectId, flagKey, id)
      if (before.state !== 'running' && before.state !== 'paused') throw invalidState(before, 'only a running or paused plan can roll back')
      return service.rollbackAs(actor, before, { reason: 'manual' })
    },

    /** Rolls `before` back to 0 % as `actor` (a person, or the plan's monitor): the flag change passes a
     *  protected environment as an emergency off where its policy allows that, else under the plan's approval. */
    async rollbackAs(
      actor: Actor,
      before: ReleasePlanRow,
      data: { reason: string; metric?: string; interval?: [number, number] | null },
      status: ReleasePlanStatus = before.status,
    ): Promise<ReleasePlanRow> {
      const after = next(before, {
        state: 'rolled_back',
        claimedBy: null,
        claimedUntil: null,
        status: { ...status, reason: data.reason, ...(data.metric !== undefined && { metric: data.metric }) },
      })
      const run = (flagActor: Actor) =>
        changes.run((tx, record) =>
          transition(tx, record, actor, before, after, 'rollback', 'release.rolled_back', data, { value: 0, flagActor }),
        )
      try {
        return await run({ ...actor, authority: undefined })
      } catch (e) {
        if (!(e instanceof AppError && e.code === 'CHANGE_REQUEST_REQUIRED' && before.status.approval)) throw e
      }
      return run({ ...actor, authority: { kind: 'change_request', ...before.status.approval } })
    },

    transition,
    next,
    run: changes.run,

    /** Reloads the in-memory registry of measured plans (start, and every plan change notice). */
    async reloadRegistry(): Promise<void> {
      releasePlanRegistry.load(await repo.measured(store.db))
    },

    /** A change request was applied (the plan runs from step 1 under its approval) or dropped (back to draft). */
    async onNotice(n: ChangeNotice): Promise<void> {
      if (n.resourceType === 'change_request') await service.settle(n.resourceKey)
    },

    /** The plans waiting for change request `id`: run (applied) or back to draft (rejected, cancelled, failed). */
    async settle(id: string): Promise<void> {
      for (const row of await repo.waitingFor(store.db, id)) {
        const cr = await store.changeRequests.get(store.db, row.projectId, id)
        if (!cr || !['applied', 'rejected', 'cancelled', 'failed'].includes(cr.state)) continue
        const actor: Actor = { projectId: row.projectId, name: `change-request:${cr.id}`, type: 'change_request' }
        const reviewerIds = [
          ...new Set(
            (await store.changeRequests.reviews(store.db, [cr.id])).filter((r) => r.decision === 'approve').map((r) => r.reviewerUserId),
          ),
        ]
        const approvers = await Promise.all(reviewerIds.map(async (uid) => (await store.users.get(store.db, uid))?.email ?? uid))
        await changes.run(async (tx, record) => {
          await store.lock(tx, `release-plan:${row.id}`)
          const before = await repo.get(tx, row.projectId, row.id)
          if (!before || before.pendingChangeRequest !== cr.id || before.state !== 'awaiting_approval') return
          if (cr.state === 'applied') {
            const after = next(before, {
              state: 'running',
              currentStep: 1,
              phase: 1,
              stepStartedAt: now(),
              pendingChangeRequest: null,
              status: { ...before.status, approval: { id: cr.id, approvers } },
            })
            return transition(tx, record, actor, before, after, 'start', 'release.started', { change_request: cr.id })
          }
          return transition(tx, record, actor, before, next(before, { state: 'draft', pendingChangeRequest: null }), 'update', undefined, {
            change_request: cr.id,
            change_request_state: cr.state,
          })
        })
      }
    },
  }
  return service
}
export type ReleasePlanService = ReturnType<typeof releasePlanService>

/** A new `updated_at`, strictly after `previous` (the compare-and-set tells two writes in one millisecond apart). */
function laterThan(previous: string): string {
  const at = new Date()
  return at.toISOString() > previous ? at.toISOString() : new Date(Date.parse(previous) + 1).toISOString()
}
