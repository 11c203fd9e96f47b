// The release plans every evaluation surface must know about, in memory: per project and flag the plans
// whose exposures are recorded (running or paused), in the shape exposures.ts records experiments in (the
// plan's id, its step as the phase, the unit attribute of its rollout, the step's percentage). Loaded at
// start, reloaded when a plan changes (change notices, from this instance or another) and at each reconcile.
import { attributeKey, compileAccessor } from '../engine/context'
import type { ReleasePlanRow } from '../store/release-plans'
import type { RunningExperiment } from './registry'

/** A measured plan as the hot path needs it; `variant`: a flag with variants, the new one (the treatment);
 *  `percentage`: its current step's (the rollout, or the new variant's weight, the phase is measured at). */
export interface MeasuredPlan extends RunningExperiment {
  variant?: string
  percentage: number
}

export class ReleasePlanRegistry {
  private byProject = new Map<string, Map<string, MeasuredPlan[]>>()
  private attributes = new Map<string, string[]>()

  /** Replaces everything with `rows` (the plans that are running or paused). */
  load(rows: ReleasePlanRow[]): void {
    const byProject = new Map<string, Map<string, MeasuredPlan[]>>()
    const attributes = new Map<string, Set<string>>()
    for (const row of rows) {
      if (row.state !== 'running' && row.state !== 'paused') continue
      const accessor = compileAccessor(row.body.attribute)
      const entry: MeasuredPlan = {
        id: row.id,
        key: row.id,
        projectId: row.projectId,
        flagKey: row.flagKey,
        environment: row.environment,
        phase: row.phase,
        unit: row.body.attribute,
        unitOf: (context) => attributeKey(accessor(context)),
        // no step yet (never so while measured): NaN matches no rollout, so nothing is recorded
        percentage: row.body.steps[row.currentStep - 1]?.percentage ?? Number.NaN,
        ...(row.body.variant !== undefined && { variant: row.body.variant }),
      }
      let flags = byProject.get(row.projectId)
      if (flags === undefined) byProject.set(row.projectId, (flags = new Map()))
      flags.set(row.flagKey, [...(flags.get(row.flagKey) ?? []), entry])
      let set = attributes.get(row.projectId)
      if (set === undefined) attributes.set(row.projectId, (set = new Set()))
      set.add(row.body.attribute)
    }
    this.byProject = byProject
    this.attributes = new Map([...attributes].map(([p, s]) => [p, [...s]]))
  }

  /** The measured plans on a flag (every environment), or undefined: the hot path's one lookup. */
  measuredOn(projectId: string, flagKey: string): readonly MeasuredPlan[] | undefined {
    return this.byProject.get(projectId)?.get(flagKey)
  }

  /** Every measured plan of a project (the SDK's definitions name their flags). */
  measuredInProject(projectId: string): MeasuredPlan[] {
    return [...(this.byProject.get(projectId)?.values() ?? [])].flat()
  }

  /** The context attributes the project's measured plans count units by (track events are stored under each). */
  unitAttributes(projectId: string): readonly string[] {
    return this.attributes.get(projectId) ?? []
  }
}

/** The one registry of the process. */
export const releasePlanRegistry = new ReleasePlanRegistry()
