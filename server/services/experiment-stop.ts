// Stopping an experiment (docs/experiments.md §2): ship a variant or roll back to the control (the change
// goes into the experiment environment's own rules, as one change through the flag's change path, in the
// same transaction as the stop), or stop inconclusive (no flag change). In a protected environment the flag
// change becomes a change request; the experiment stops when that request is applied. Also the phases: a
// change to the flag in the experiment's environment opens the next phase.
import type { ExperimentRow } from '../store/experiments'
import { DECISIONS, type DecisionKind } from '../store/vocabulary/experiments'
import type { ChangeNotice } from '../notices/changes'
import type { Actor, ServiceDeps } from './context'
import type { FlagService } from './flags'
import type { ChangeRequestService, Requester } from './change-requests'
import type { ExperimentService } from './experiments'
import type { RecordChange } from './change-runner'
import type { Db } from '../store'
import { AppError, validationError, invalidState } from '../errors'
import { fingerprintIn, shippingOverride, splitIn } from './experiment-flag'
import { experimentRegistry } from '../experiments/registry'

export interface StopInput {
  decision?: unknown
  variant?: unknown
}

export type StopOutcome =
  | { stopped: ExperimentRow }
  | { changeRequest: Awaited<ReturnType<ChangeRequestService['create']>>; experiment: ExperimentRow }

export function experimentStopper(
  { store, changes }: Pick<ServiceDeps, 'store' | 'changes'>,
  experiments: ExperimentService,
  flags: FlagService,
  changeRequests: ChangeRequestService,
) {
  const repo = store.experiments.experiments

  /** The stop's decision and the variant the environment will serve (none for inconclusive). */
  function decide(row: ExperimentRow, input: StopInput): { decision: DecisionKind; variant?: string } {
    if (!DECISIONS.includes(input.decision as never))
      throw validationError([{ path: 'decision', message: `must be one of ${DECISIONS.join(', ')}` }])
    const decision = input.decision as DecisionKind
    if (decision === 'ship') {
      if (typeof input.variant !== 'string')
        throw validationError([{ path: 'variant', message: 'is required to ship: the variant to serve' }])
      return { decision, variant: input.variant }
    }
    if (input.variant !== undefined) throw validationError([{ path: 'variant', message: `is only for ship (${decision} needs none)` }])
    return decision === 'rollback' ? { decision, variant: row.body.control } : { decision }
  }

  /** Marks the experiment stopped with its decision (the phase ends). */
  async function finish(
    tx: Db,
    record: RecordChange,
    actor: Actor,
    before: ExperimentRow,
    decision: { decision: DecisionKind; variant?: string },
  ) {
    const now = new Date().toISOString()
    const after: ExperimentRow = {
      ...before,
      state: 'stopped',
      pendingChangeRequest: null,
      updatedAt: now,
      phases: before.phases.map((p) => (p.ended_at === null ? { ...p, ended_at: now } : p)),
      decision: {
        decision: decision.decision,
        ...(decision.variant !== undefined && { variant: decision.variant }),
        at: now,
        by: actor.name,
      },
    }
    await experiments.save(tx, record, actor, before, after, 'stop', 'experiment.stopped', {
      decision: decision.decision,
      ...(decision.variant !== undefined && { variant: decision.variant }),
    })
    return after
  }

  return {
    async stop(req: Requester, key: string, input: StopInput): Promise<StopOutcome> {
      const { actor } = req
      const current = await experiments.mustGet(actor.projectId, key)
      if (current.state !== 'running')
        throw invalidState(`Experiment "${key}" is ${current.state}; only a running experiment can stop`, { state: current.state })
      if (current.pendingChangeRequest)
        throw invalidState(`Experiment "${key}" is stopping: change request ${current.pendingChangeRequest} is waiting to be applied`, {
          change_request: current.pendingChangeRequest,
        })
      const decision = decide(current, input)
      let override: ReturnType<typeof shippingOverride> | undefined
      if (decision.variant !== undefined) {
        const flagRow = await store.flags.get(store.db, actor.projectId, current.flagKey)
        const body = flagRow?.body
        const split = body && splitIn(body, current.environment)
        if (!body || !split)
          throw invalidState(`Flag "${current.flagKey}" no longer has a split in ${current.environment}; stop the experiment inconclusive`)
        if (!body.variants || !Object.hasOwn(body.variants, decision.variant))
          throw validationError([
            {
              path: 'variant',
              message: `must be one of flag "${current.flagKey}"'s variants (${Object.keys(body.variants ?? {}).join(', ')})`,
            },
          ])
        override = shippingOverride(body, current.environment, decision.variant)
      }
      try {
        return {
          stopped: await changes.run(async (tx, record) => {
            const before = await experiments.mustGet(actor.projectId, key)
            if (before.state !== 'running' || before.pendingChangeRequest)
              throw invalidState(`Experiment "${key}" is ${before.state}`, { state: before.state })
            if (override)
              await flags.opIn(tx, record, actor, {
                action: 'set_override',
                key: before.flagKey,
                environment: before.environment,
                body: override,
              })
            return finish(tx, record, actor, before, decision)
          }),
        }
      } catch (e) {
        if (!(e instanceof AppError && e.code === 'CHANGE_REQUEST_REQUIRED' && override)) throw e
      }
      // A protected environment: the flag change is proposed; the experiment stops once it is applied.
      const changeRequest = await changeRequests.create(req, {
        title: `Experiment ${key}: ${decision.decision === 'ship' ? `ship ${decision.variant}` : `roll back to ${decision.variant}`}`,
        description: `Stops experiment "${key}" when applied.`,
        items: [{ resource_type: 'flag', key: current.flagKey, action: 'set_override', environment: current.environment, body: override }],
      })
      const experiment = await changes.run(async (tx, record) => {
        const before = await experiments.mustGet(actor.projectId, key)
        const after: ExperimentRow = {
          ...before,
          pendingChangeRequest: changeRequest.id,
          decision: {
            decision: decision.decision,
            ...(decision.variant !== undefined && { variant: decision.variant }),
            at: new Date().toISOString(),
            by: actor.name,
          },
          updatedAt: new Date().toISOString(),
        }
        await experiments.save(tx, record, actor, before, after, 'update', 'experiment.updated', { change_request: changeRequest.id })
        return after
      })
      return { changeRequest, experiment }
    },

    /** A change notice: a flag change may open phases, an applied (or dropped) change request finishes (or
     *  releases) the stop it carried. Runs on every instance; the row is re-read under a lock, so the work
     *  is done once. */
    async onNotice(n: ChangeNotice): Promise<void> {
      if (n.resourceType === 'change_request') {
        for (const row of await repo.waitingFor(store.db, n.resourceKey)) await settle(row)
        return
      }
      if (n.resourceType !== 'flag') return
      for (const x of experimentRegistry.runningOn(n.projectId, n.resourceKey) ?? []) await openPhaseIfChanged(x.projectId, x.key)
    },
  }

  async function settle(row: ExperimentRow): Promise<void> {
    const cr = await store.changeRequests.get(store.db, row.projectId, row.pendingChangeRequest!)
    if (!cr || !['applied', 'rejected', 'cancelled', 'failed'].includes(cr.state)) return
    const actor: Actor = { projectId: row.projectId, name: `change-request:${cr.id}`, type: 'change_request' }
    await changes.run(async (tx, record) => {
      await store.lock(tx, `experiment-row:${row.id}`)
      const before = await repo.get(tx, row.projectId, row.key)
      if (!before || before.pendingChangeRequest !== cr.id) return
      if (cr.state === 'applied')
        return void (await finish(tx, record, actor, before, { decision: before.decision!.decision, variant: before.decision!.variant }))
      const after: ExperimentRow = { ...before, pendingChangeRequest: null, decision: null, updatedAt: new Date().toISOString() }
      await experiments.save(tx, record, actor, before, after, 'update', 'experiment.updated', {
        change_request: cr.id,
        change_request_state: cr.state,
      })
    })
  }

  async function openPhaseIfChanged(projectId: string, key: string): Promise<void> {
    const row = await repo.get(store.db, projectId, key)
    if (row?.state !== 'running' || row.pendingChangeRequest) return
    const flagRow = await store.flags.get(store.db, projectId, row.flagKey)
    if (!flagRow || fingerprintIn(flagRow.body, row.environment) === row.phases.at(-1)?.fingerprint) return
    const actor: Actor = { projectId, name: `experiment:${key}`, type: 'experiment' }
    await changes.run(async (tx, record) => {
      await store.lock(tx, `experiment-row:${row.id}`)
      const before = await repo.get(tx, projectId, key)
      const flag = await store.flags.get(tx, projectId, row.flagKey)
      if (before?.state !== 'running' || before.pendingChangeRequest || !flag) return
      const fingerprint = fingerprintIn(flag.body, before.environment)
      if (fingerprint === before.phases.at(-1)?.fingerprint) return
      const now = new Date().toISOString()
      const number = before.phase + 1
      const after: ExperimentRow = {
        ...before,
        phase: number,
        updatedAt: now,
        phases: [
          ...before.phases.map((p) => (p.ended_at === null ? { ...p, ended_at: now } : p)),
          { number, started_at: now, ended_at: null, reason: `flag ${row.flagKey} v${flag.version} changed`, fingerprint },
        ],
      }
      await experiments.save(tx, record, actor, before, after, 'open_phase', 'experiment.phase_opened', {
        reason: after.phases.at(-1)!.reason,
      })
    })
  }
}
export type ExperimentStopper = ReturnType<typeof experimentStopper>
