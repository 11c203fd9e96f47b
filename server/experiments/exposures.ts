// Exposures recorded by the server's own evaluation surfaces (single, bulk, OFREP single and bulk, and the
// fast paths), in memory: per (experiment, phase, unit) the first time and variant, and whether the unit was
// also served another variant. The flusher (flusher.ts) writes them to the store at least every
// EXPOSURE_FLUSH_MS. A flag in no running experiment costs one map lookup; only units the split decided
// count (an override or a rule with a variant decided the others before the split).
import type { CompiledFlag, EvaluationContext, EvaluationResult } from '../engine/types'
import type { ExposureRow } from '../store/experiments'
import { experimentRegistry, type RunningExperiment } from './registry'
import { releasePlanRegistry, type MeasuredPlan } from './release-registry'

/** One running experiment's units since the last drain: unit -> first time, variant and mark packed in one
 *  number (`firstAt * 128 + 64 if also seen in another variant + the variant's index`), so recording a unit
 *  allocates no object. */
interface Slot {
  units: Map<string, number>
  /** the variant names seen, by index (a flag has at most 50) */
  variants: string[]
}
const MULTIPLE = 64
const PACK = 128

/** running experiment (its id and phase) -> its slot; keyed by the registry's object, so the hot path builds
 *  no key */
let pending = new Map<RunningExperiment, Slot>()
let pendingUnits = 0
/** Units held at most between flushes; beyond it new units are dropped (and counted) until the next flush. */
export const MAX_PENDING_UNITS = 2_000_000
let dropped = 0
/** Called once when the pending units pass a quarter of the bound: the flusher writes early. */
let onPressure: (() => void) | undefined

export function onExposurePressure(fn: (() => void) | undefined): void {
  onPressure = fn
}

/** Records the exposure `result` of `flag` is for `context`, if the flag is in a running experiment in the
 *  context's environment and the split decided it. */
export function recordExposure(
  projectId: string,
  flag: CompiledFlag,
  result: EvaluationResult,
  context: EvaluationContext,
  now?: number,
): void {
  const plans = releasePlanRegistry.measuredOn(projectId, flag.key)
  if (plans !== undefined) recordReleaseExposure(plans, flag, result, context, now)
  const experiments = experimentRegistry.runningOn(projectId, flag.key)
  if (experiments === undefined) return
  const environment = context.environment
  for (const x of experiments) {
    if (x.environment !== environment) continue
    if (!flag.decidedBySplit(result)) return
    const unit = x.unitOf(context)
    const variant = result.variant
    if (unit === undefined || typeof variant !== 'string') return
    note(x, unit, variant, now ?? Date.now())
    return
  }
}

/** A flag under a release plan: a unit the rollout decided is `rollout` (served the new value or variant,
 *  the treatment) or `off` (outside it, the control), OFREP's branch names for a flag without variants;
 *  other units (rules, overrides, a switch turned off) are not exposures. Nor is a unit served at another
 *  percentage than the plan's current step: the flag and the plan registry are reloaded from change notices
 *  one after the other (in either order), and between the two a unit served at the previous step's
 *  percentage would count in the new phase, skewing its split (SRM) and its guardrails. */
function recordReleaseExposure(
  plans: readonly MeasuredPlan[],
  flag: CompiledFlag,
  result: EvaluationResult,
  context: EvaluationContext,
  now?: number,
): void {
  if (result.reason !== 'rollout') return
  const environment = context.environment
  for (const p of plans) {
    if (p.environment !== environment) continue
    const unit = p.unitOf(context)
    if (unit === undefined) return
    // a flag with variants: the split decided the unit; the new variant is the treatment
    if (p.variant !== undefined && !flag.decidedBySplit(result)) return
    const served = flag.forEnvironment(environment)
    if (served.rolloutShare(p.variant) !== p.percentage) return
    const inside = p.variant !== undefined ? result.variant === p.variant : served.branchOf(result) === 'rollout'
    note(p, unit, inside ? 'rollout' : 'off', now ?? Date.now())
    return
  }
}

function note(x: RunningExperiment, unit: string, variant: string, at: number): void {
  let slot = pending.get(x)
  if (slot === undefined) pending.set(x, (slot = { units: new Map(), variants: [] }))
  let index = slot.variants.indexOf(variant)
  if (index === -1) index = slot.variants.push(variant) - 1
  const seen = slot.units.get(unit)
  if (seen === undefined) {
    if (pendingUnits >= MAX_PENDING_UNITS || index >= MULTIPLE) {
      dropped++
      return
    }
    slot.units.set(unit, at * PACK + index)
    if (++pendingUnits === MAX_PENDING_UNITS / 4) onPressure?.()
  } else if (seen % MULTIPLE !== index && seen % PACK < MULTIPLE) slot.units.set(unit, seen + MULTIPLE)
}

/** Takes every exposure recorded since the last drain (and forgets them), with how many were dropped. */
export function drainExposures(): { rows: ExposureRow[]; dropped: number } {
  const { items, dropped: lost } = drainExposuresAs(
    (x, unit, firstAt, variant, also): ExposureRow => ({
      experimentId: x.id,
      phase: x.phase,
      unit,
      firstAt,
      variant,
      multiple: also !== undefined,
    }),
  )
  return { rows: items, dropped: lost }
}

/** drainExposures, each exposure made into what the caller sends on (a relay: exposure events). `also`: for a
 *  unit also served another variant, a variant other than its first this experiment saw (the unit's own
 *  second one is not kept: any other marks it alike). */
export function drainExposuresAs<T>(
  make: (x: RunningExperiment, unit: string, firstAt: number, variant: string, also: string | undefined) => T,
): { items: T[]; dropped: number } {
  const slots = pending
  const lost = dropped
  pending = new Map()
  pendingUnits = 0
  dropped = 0
  const items: T[] = []
  for (const [x, slot] of slots) {
    for (const [unit, packed] of slot.units) {
      const low = packed % PACK
      const variant = slot.variants[low % MULTIPLE]!
      items.push(make(x, unit, (packed - low) / PACK, variant, low >= MULTIPLE ? slot.variants.find((v) => v !== variant) : undefined))
    }
  }
  return { items, dropped: lost }
}
