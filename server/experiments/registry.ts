// The experiments every evaluation surface must know about, in memory: the running ones by project and flag
// (exposures are recorded for them without touching the store), and the context attributes that name units
// in each project (track events are stored under each). Loaded at start, reloaded when an experiment changes
// (change notices, from this instance or another) and at each reconcile; at a relay, from its upstream's
// definitions (loadListed).
import { attributeKey, compileAccessor, type PropertyAccessor } from '../engine/context'
import type { EvaluationContext } from '../engine/types'
import type { ExperimentRow } from '../store/experiments'

/** What the hot path needs of a running experiment. */
export interface RunningExperiment {
  id: string
  key: string
  projectId: string
  flagKey: string
  environment: string
  phase: number
  unit: string
  /** the unit's id in a context (as the rollout reads its attribute), undefined when it has none */
  unitOf(context: EvaluationContext): string | undefined
}

const DEFAULT_UNIT = 'user_id'

/** A running experiment as GET /api/v1/definitions lists it. */
export interface ListedExperiment {
  key: string
  flag: string
  environment: string
  unit: string
}

function running(x: Omit<RunningExperiment, 'unitOf'>): RunningExperiment {
  const accessor: PropertyAccessor = compileAccessor(x.unit)
  return { ...x, unitOf: (context) => attributeKey(accessor(context)) }
}

export class ExperimentRegistry {
  /** project -> flag key -> running experiments (one per environment at most) */
  private byProject = new Map<string, Map<string, RunningExperiment[]>>()
  /** project -> the attributes its experiments (draft or running) count units by */
  private attributes = new Map<string, string[]>()

  /** Replaces everything with `rows` (every experiment not stopped). */
  load(rows: ExperimentRow[]): void {
    this.fill(
      rows.map((row) => ({
        projectId: row.projectId,
        unit: row.body.unit,
        running:
          row.state === 'running'
            ? running({
                id: row.id,
                key: row.key,
                projectId: row.projectId,
                flagKey: row.flagKey,
                environment: row.environment,
                phase: row.phase,
                unit: row.body.unit,
              })
            : undefined,
      })),
    )
  }

  private fill(entries: { projectId: string; unit: string; running: RunningExperiment | undefined }[]): void {
    const byProject = new Map<string, Map<string, RunningExperiment[]>>()
    const attributes = new Map<string, Set<string>>()
    for (const { projectId, unit, running: x } of entries) {
      let set = attributes.get(projectId)
      if (set === undefined) attributes.set(projectId, (set = new Set([DEFAULT_UNIT])))
      set.add(unit)
      if (x === undefined) continue
      let flags = byProject.get(projectId)
      if (flags === undefined) byProject.set(projectId, (flags = new Map()))
      const list = flags.get(x.flagKey) ?? []
      list.push(x)
      flags.set(x.flagKey, list)
    }
    this.byProject = byProject
    this.attributes = new Map([...attributes].map(([p, s]) => [p, [...s]]))
  }

  /** At a relay: replaces everything with the running experiments its upstream's definitions list. A relay
   *  has no store rows, so no ids or phases: it forwards exposures as events (relay/exposure-forwarder.ts),
   *  and the origin files each under the phase running when it arrives. */
  loadListed(projectId: string, listed: readonly ListedExperiment[]): void {
    // An experiment listed before keeps its object (the recorder's key): a unit evaluated on both sides of a
    // reload stays one exposure.
    const held = (x: ListedExperiment) => {
      const h = this.runningIn(projectId, x.flag, x.environment)
      return h !== undefined && h.key === x.key && h.unit === x.unit ? h : undefined
    }
    this.fill(
      listed.map((x) => ({
        projectId,
        unit: x.unit,
        running:
          held(x) ?? running({ id: x.key, key: x.key, projectId, flagKey: x.flag, environment: x.environment, phase: 0, unit: x.unit }),
      })),
    )
  }

  /** The running experiments on a flag (every environment), or undefined: the hot path's one lookup. */
  runningOn(projectId: string, flagKey: string): readonly RunningExperiment[] | undefined {
    return this.byProject.get(projectId)?.get(flagKey)
  }

  /** The running experiment on a flag in an environment. */
  runningIn(projectId: string, flagKey: string, environment: string): RunningExperiment | undefined {
    return this.runningOn(projectId, flagKey)?.find((e) => e.environment === environment)
  }

  /** Every running experiment of a project (the SDK's definitions name their flags). */
  runningInProject(projectId: string): RunningExperiment[] {
    return [...(this.byProject.get(projectId)?.values() ?? [])].flat()
  }

  /** The context attributes units are counted by in a project: user_id and its experiments' units. */
  unitAttributes(projectId: string): readonly string[] {
    return this.attributes.get(projectId) ?? [DEFAULT_UNIT]
  }
}

/** The one registry of the process: evaluation surfaces and the ingest read it. */
export const experimentRegistry = new ExperimentRegistry()
