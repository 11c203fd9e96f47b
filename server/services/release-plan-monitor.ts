// The release plans' monitor (docs/experiments.md §7): for a running plan, the units served the
// new value (treatment, OFREP branch `rollout`) against the units outside the rollout (control, `off`) on
// each guardrail, with the sequential test of the experiments (server/stats compareVariants over the sums
// store/experiment-results.ts computes in SQL for the plan's current phase), then one decision: roll back or
// pause on a regression, pause on a sample-ratio mismatch, advance a step (or complete) once the hold has
// passed with enough units per arm, or nothing. Acting is a change made as `release-plan:<id>`; the row's
// compare-and-set makes a second instance's (or a stale) decision fail instead of acting twice.
import type { ReleasePlanRow } from '../store/release-plans'
import type { GuardrailReading, ReleasePlanStatus } from '../store/vocabulary/release-plans'
import type { VariantSums } from '../store/experiment-results'
import type { ServiceDeps } from './context'
import { statistics } from '../stats/load'
import { planActor, releasePlanView, type ReleasePlanService } from './release-plans'

/** The significance of the guardrails' sequential intervals. */
const ALPHA = 0.05

export type MonitorDecision = 'rolled_back' | 'paused' | 'advanced' | 'completed' | 'held'

const statsOf = (s: VariantSums | undefined) => {
  if (!s) return { n: 0, sum_y: 0, sum_y2: 0 }
  const { variant: _, ...rest } = s
  if (s.sum_m !== undefined) {
    const { sum_y: _y, sum_y2: _y2, ...ratio } = rest
    return ratio
  }
  return rest
}

export function releasePlanMonitor({ store }: Pick<ServiceDeps, 'store'>, plans: ReleasePlanService) {
  /** What the plan's current phase shows now. */
  async function measure(row: ReleasePlanRow, now: number): Promise<ReleasePlanStatus> {
    await store.experimentResults.freshenStatistics(store.db)
    const { compareVariants, srmPValue } = await statistics()
    const { units } = await store.experimentResults.exposureCounts(store.db, row.id, row.phase)
    const treatment = units.get('rollout') ?? 0
    const control = units.get('off') ?? 0
    const percentage = row.body.steps[row.currentStep - 1]!.percentage
    const srm = srmPValue([control, treatment], [100 - percentage, percentage])
    const defs = new Map(
      (
        await store.experiments.metrics.many(
          store.db,
          row.projectId,
          row.body.guardrails.map((g) => g.metric),
        )
      ).map((m) => [m.key, m.body]),
    )
    const measured = row.body.guardrails.filter((g) => defs.has(g.metric))
    const sums = await store.experimentResults.metricSums(
      store.db,
      {
        projectId: row.projectId,
        experimentId: row.id,
        phase: row.phase,
        attribute: row.body.attribute,
        environment: row.environment,
        cuped: false,
        now,
      },
      measured.map((g) => {
        const m = defs.get(g.metric)!
        return {
          kind: m.kind,
          event: m.event,
          aggregation: m.aggregation,
          denominatorEvent: m.denominator_event,
          denominatorAggregation: m.denominator_aggregation,
          windowHours: m.window_hours,
          cap: m.cap,
        }
      }),
    )
    const guardrails: GuardrailReading[] = measured.map((g, i) => {
      const m = defs.get(g.metric)!
      const a = sums[i]!.find((s) => s.variant === 'off')
      const b = sums[i]!.find((s) => s.variant === 'rollout')
      if (!a || !b || a.n < 2 || b.n < 2)
        return { metric: g.metric, ci: null, lift: null, control_mean: null, treatment_mean: null, regressed: false }
      const c = compareVariants(m.kind, statsOf(a), statsOf(b), {
        engine: 'frequentist',
        sequential: true,
        alpha: ALPHA,
        cuped: false,
        higher_is_better: m.higher_is_better,
      })
      // oriented so that positive is good for the metric
      const ci: [number, number] = m.higher_is_better ? [c.ci[0], c.ci[1]] : [-c.ci[1], -c.ci[0]]
      const lift = m.higher_is_better ? c.lift.relative : -c.lift.relative
      const meanOf = (s: VariantSums) => (m.kind === 'ratio' ? (s.sum_d ? (s.sum_m ?? 0) / s.sum_d : 0) : s.n ? s.sum_y / s.n : 0)
      return {
        metric: g.metric,
        ci,
        lift,
        control_mean: meanOf(a),
        treatment_mean: meanOf(b),
        regressed: !c.error && ci[1] < -g.max_degradation,
      }
    })
    return { ...row.status, checked_at: new Date(now).toISOString(), units: { treatment, control }, srm_p_value: srm, guardrails }
  }

  const service = {
    measure,
    /**
     * One round on this instance: every running plan whose lease is free (or already this instance's) is
     * claimed for `leaseMs` by one conditional UPDATE, then checked. Another instance's live lease skips
     * the plan; a lease outlives its holder by at most `leaseMs`, then another instance takes over.
     */
    async round(instance: string, leaseMs: number, onError: (id: string, e: unknown) => void): Promise<number> {
      const now = Date.now()
      const at = new Date(now).toISOString()
      let checked = 0
      // a start whose change request was decided while no instance heard of it (its notice lost)
      for (const row of await store.releasePlans.awaiting(store.db))
        await plans.settle(row.pendingChangeRequest!).catch((e) => onError(row.id, e))
      for (const row of await store.releasePlans.claimable(store.db, instance, at)) {
        const claimed = await store.transaction((tx) =>
          store.releasePlans.claim(tx, row.id, instance, at, new Date(now + leaseMs).toISOString()),
        )
        if (!claimed) continue
        try {
          const began = Date.now()
          await service.check(claimed)
          checked++
          // a slow check holds the next round back (rounds never overlap): say so
          if (Date.now() - began > Math.max(leaseMs, 5_000))
            onError(row.id, new Error(`the check took ${Date.now() - began} ms, longer than the lease`))
        } catch (e) {
          onError(row.id, e)
        }
      }
      return checked
    },
    /** Measures a running plan and acts on it once. */
    async check(row: ReleasePlanRow, now = Date.now()): Promise<MonitorDecision> {
      if (row.state !== 'running' || row.currentStep < 1) return 'held'
      // a flag deleted or archived under a running plan: nothing to raise; it waits for a person
      const flag = await store.flags.get(store.db, row.projectId, row.flagKey)
      if (!flag || flag.body.archived === true) {
        await pause(row, row.status, { reason: flag ? 'flag_archived' : 'flag_deleted' })
        return 'paused'
      }
      const status = await measure(row, now)
      const { SRM_WARNING_P } = await statistics()
      const actor = planActor(row)
      const approval = row.status.approval
      const flagActor = planActor(row, approval && { kind: 'change_request', ...approval })
      const step = row.body.steps[row.currentStep - 1]!
      const interval = (g: GuardrailReading) => ({ metric: g.metric, interval: g.ci })
      const regressed = status.guardrails.find((g) => g.regressed)
      if (regressed) {
        if (row.body.on_regression === 'rollback') {
          await plans.rollbackAs(actor, row, { reason: 'regression', ...interval(regressed) }, status)
          return 'rolled_back'
        }
        await pause(row, status, { reason: 'regression', ...interval(regressed) })
        return 'paused'
      }
      if (status.srm_p_value !== null && status.srm_p_value < SRM_WARNING_P) {
        await pause(row, status, { reason: 'srm', srm_p_value: status.srm_p_value })
        return 'paused'
      }
      const held = now - Date.parse(row.stepStartedAt ?? row.updatedAt) >= step.hold_minutes * 60_000
      const last = row.currentStep === row.body.steps.length
      const enough = status.units.treatment >= row.body.min_units && status.units.control >= row.body.min_units
      const readings = { guardrails: status.guardrails.map(interval) }
      if (!held || !enough) {
        await save(row, status)
        return 'held'
      }
      if (last) {
        await plans.run((tx, record) =>
          plans.transition(
            tx,
            record,
            actor,
            row,
            plans.next(row, { state: 'completed', claimedBy: null, claimedUntil: null, status }),
            'complete',
            'release.completed',
            readings,
          ),
        )
        return 'completed'
      }
      const nextStep = row.body.steps[row.currentStep]!
      const complete = nextStep.percentage >= 100 && row.currentStep + 1 === row.body.steps.length
      const after = plans.next(row, {
        currentStep: row.currentStep + 1,
        phase: row.phase + 1,
        stepStartedAt: new Date(now).toISOString(),
        status,
        ...(complete && { state: 'completed', claimedBy: null, claimedUntil: null }),
      })
      await plans.run(async (tx, record) => {
        const done = await plans.transition(tx, record, actor, row, after, 'advance', 'release.step', readings, {
          value: nextStep.percentage,
          flagActor,
        })
        // the last step serves everyone: nothing is left to compare
        if (complete)
          await record({
            projectId: row.projectId,
            actor: actor.name,
            actorType: 'release_plan',
            credential: null,
            action: 'complete',
            resourceType: 'release_plan',
            resourceKey: row.id,
            before: releasePlanView(after),
            after: releasePlanView(done),
            details: { release_plan: row.id, flag: row.flagKey },
            event: {
              kind: 'release.completed',
              environment: row.environment,
              data: { id: row.id, flag: row.flagKey, state: 'completed', step: after.currentStep, percentage: nextStep.percentage },
            },
          })
        return done
      })
      return complete ? 'completed' : 'advanced'
    },
  }

  return service

  async function pause(
    row: ReleasePlanRow,
    status: ReleasePlanStatus,
    data: { reason: string; metric?: string; interval?: [number, number] | null; srm_p_value?: number },
  ) {
    const after = plans.next(row, {
      state: 'paused',
      claimedBy: null,
      claimedUntil: null,
      status: { ...status, reason: data.reason, ...(data.metric !== undefined && { metric: data.metric }) },
    })
    await plans.run((tx, record) => plans.transition(tx, record, planActor(row), row, after, 'pause', 'release.paused', data))
  }

  /** Keeps what was measured (GET shows each guardrail's latest interval); no audit: nothing changed. */
  async function save(row: ReleasePlanRow, status: ReleasePlanStatus) {
    await store.transaction((tx) => store.releasePlans.saveStatus(tx, row.id, row.updatedAt, status))
  }
}
export type ReleasePlanMonitor = ReturnType<typeof releasePlanMonitor>
