// Compiles a flag once per change into a closure tree, so evaluation (the hot path) does no parsing,
// no regex building, no segment lookups and, for fixed outcomes, no allocation: every result whose value
// is known at compile time is built here once, frozen and returned as is.
// Evaluation order is docs/behaviour.md §4 (see CompiledFlagImpl.run); variants, weighted splits and
// prerequisites are docs/lifecycle.md §1-2.
import { EvaluationBudgetExceeded, startEvaluation } from './budget'
import { attributeKey, compileAccessor, type PropertyAccessor } from './context'
import { compileConditions, EMPTY_CONTEXT, type ContextTest, type SegmentResolver } from './compile-conditions'
import { isObject } from './is-object'
import { bound, compilePrerequisites, compileSplit, type CompiledPrerequisite, type CompiledSplit } from './compile-parts'
import { flagOutcomes, type Outcomes, type VariantTable } from './outcomes'
import { Bucketer } from './rollout'
import type {
  Branch,
  CompiledFlag,
  EvaluationContext,
  EvaluationResult,
  FlagDefinition,
  FlagResolver,
  Json,
  SegmentDefinition,
} from './types'

export { compileCondition, compileSegment, type CompiledSegment, type ContextTest } from './compile-conditions'

/** How deep prerequisites are followed in one evaluation. Cycles are refused when written; this only bounds
 *  the work if stored data ever held one (e.g. two instances writing both halves at once): past it the
 *  prerequisite fails. */
export const MAX_PREREQUISITE_DEPTH = 256
let depth = 0

// Prerequisite results of the evaluation under way (docs/behaviour.md §8): each prerequisite flag is
// evaluated at most once per evaluation, however many paths lead to it (a lattice of 4 flags per level, each
// requiring the 4 below, cost 4^levels before). Each compiled flag keeps its last result with the number of
// the evaluation it belongs to (`epoch`, advanced when a top-level evaluation starts): no map to fill or
// clear on the hot path, and a change (a new compiled flag) is never served from an old result.
let epoch = 0
let shared = false
let sharedContext: EvaluationContext | undefined
let sharedNow: number | undefined

/** Prerequisite results stay shared between the top-level evaluations `fn` makes for one context at one
 *  instant (a bulk evaluation: every flag for the same context), instead of being forgotten before each. */
export function sharingPrerequisites<T>(fn: () => T): T {
  const saved = shared
  shared = true
  sharedContext = undefined
  try {
    return fn()
  } finally {
    shared = saved
    sharedContext = undefined
    epoch++
  }
}

/** How many prerequisite evaluations the current (or last) evaluation made: tests read it. */
export let prerequisiteEvaluations = 0

/** A top-level evaluation starts: its budget, and its prerequisite results (unless shared and still valid). */
function begin(context: EvaluationContext, now: number | undefined): void {
  startEvaluation()
  if (!shared || sharedContext !== context || sharedNow !== now) {
    epoch++
    sharedContext = context
    sharedNow = now
    prerequisiteEvaluations = 0
  }
}

interface CompiledRule {
  readonly test: ContextTest
  readonly result: EvaluationResult
}

// Override keys: the top-level user_id only (as docs/behaviour.md §4 says), not custom.user_id.
const topLevelUserId = (c: EvaluationContext): unknown => (c as { user_id?: unknown }).user_id

interface FlagParts {
  key: string
  base: Outcomes
  environments: ReadonlyMap<string, Outcomes> | null
  /** the environments with their own rules, each compiled as a flag of its own (docs/behaviour.md §4) */
  own: ReadonlyMap<string, CompiledFlagImpl> | null
  activeFrom: number
  activeUntil: number
  prerequisites: readonly CompiledPrerequisite[]
  resolveFlag: FlagResolver | undefined
  overrides: ReadonlyMap<string, EvaluationResult> | null
  rules: readonly CompiledRule[]
  ruleNumbers: readonly number[]
  rolloutAccessor: PropertyAccessor | null
  rolloutAttribute: string | null
  rolloutPercentage: number
  split: CompiledSplit | null
  hasVariants: boolean
}

class CompiledFlagImpl implements CompiledFlag {
  readonly key: string
  readonly isStatic: boolean
  readonly contextOnly: boolean
  readonly hasVariants: boolean
  readonly rolloutAttribute: string | null
  private readonly base: Outcomes
  private readonly environments: ReadonlyMap<string, Outcomes> | null
  private readonly own: ReadonlyMap<string, CompiledFlagImpl> | null
  /** `own` as two arrays for evaluate(): a project has a handful of environments, and comparing the context's
   *  environment with each name (the same interned string, mostly) costs less than hashing it into a Map */
  private readonly ownNames: readonly string[] | null
  private readonly ownFlags: readonly CompiledFlagImpl[]
  private readonly activeFrom: number
  private readonly activeUntil: number
  private readonly windowed: boolean
  private readonly prerequisites: readonly CompiledPrerequisite[] | null
  private readonly resolveFlag: FlagResolver
  readonly overrides: ReadonlyMap<string, EvaluationResult> | null
  readonly rules: readonly CompiledRule[]
  private readonly rolloutAccessor: PropertyAccessor | null
  private readonly rolloutPercentage: number
  private readonly split: CompiledSplit | null
  /** the results the weighted split gives (its own rules' included): experiments count only units it decided */
  readonly splitResults: ReadonlySet<EvaluationResult>
  private readonly bucketer: Bucketer | null
  private branches: Map<EvaluationResult, Branch> | undefined
  /** it tests conditions or prerequisites: evaluating it spends budget (budget.ts) */
  readonly tests: boolean
  /** its result as a prerequisite in evaluation number `resultEpoch` (see `epoch`) */
  resultEpoch = -1
  lastResult: EvaluationResult | undefined = undefined

  constructor(readonly parts: FlagParts) {
    this.key = parts.key
    this.base = parts.base
    this.environments = parts.environments
    this.own = parts.own
    this.ownNames = parts.own === null ? null : [...parts.own.keys()]
    this.ownFlags = parts.own === null ? [] : [...parts.own.values()]
    this.activeFrom = parts.activeFrom
    this.activeUntil = parts.activeUntil
    this.windowed = parts.activeFrom !== -Infinity || parts.activeUntil !== Infinity
    this.prerequisites = parts.prerequisites.length > 0 ? parts.prerequisites : null
    this.resolveFlag = parts.resolveFlag ?? (() => undefined)
    this.overrides = parts.overrides
    this.rules = parts.rules
    this.rolloutAccessor = parts.rolloutAccessor
    this.rolloutAttribute = parts.rolloutAttribute
    this.rolloutPercentage = parts.rolloutPercentage
    this.split = parts.split
    this.bucketer = parts.rolloutAccessor === null ? null : new Bucketer(parts.key)
    this.hasVariants = parts.hasVariants
    const ownRules = [...(parts.own?.values() ?? [])]
    this.isStatic = this.overrides === null && this.rules.length === 0 && this.rolloutAccessor === null && this.prerequisites === null
    this.contextOnly = !this.windowed && this.prerequisites === null && ownRules.every((o) => o.contextOnly)
    this.tests = this.rules.length > 0 || this.prerequisites !== null || ownRules.some((o) => o.tests)
    const splitResults = new Set(parts.split?.results.filter((r) => r !== this.base.rolloutOut && r.reason === 'rollout') ?? [])
    for (const o of ownRules) for (const r of o.splitResults) splitResults.add(r)
    this.splitResults = splitResults
  }

  decidedBySplit(result: EvaluationResult): boolean {
    return this.splitResults.has(result)
  }

  rolloutShare(variant?: string): number | null {
    if (this.rolloutAccessor === null) return null
    if (this.split === null) return variant === undefined ? this.rolloutPercentage : null
    return variant === undefined ? null : (this.split.shares.get(variant) ?? 0)
  }

  forEnvironment(environment: unknown): CompiledFlag {
    return (this.own !== null && typeof environment === 'string' && this.own.get(environment)) || this
  }

  rulesIn(environment: unknown): 'own' | 'flag' {
    return this.forEnvironment(environment) === this ? 'flag' : 'own'
  }

  branchOf(result: EvaluationResult): Branch {
    if (this.hasVariants) return result.variant ?? 'off'
    if (this.branches === undefined) {
      // Every result object is made once at compile time for one branch; the map is built on first use.
      const m = new Map<EvaluationResult, Branch>()
      for (const v of [this.base, ...(this.environments?.values() ?? [])]) {
        m.set(v.disabled, 'off')
          .set(v.prerequisiteFailed, 'off')
          .set(v.rolloutOut, 'off')
          .set(v.rolloutIn, 'rollout')
          .set(v.fallthrough, 'default')
      }
      for (const r of this.overrides?.values() ?? []) m.set(r, 'override')
      this.rules.forEach((r, i) => m.set(r.result, `rule-${this.parts.ruleNumbers[i]!}`))
      // An environment's own rules number their rules themselves (usage counts them per environment).
      for (const o of this.own?.values() ?? []) {
        for (const r of o.overrides?.values() ?? []) m.set(r, 'override')
        o.rules.forEach((r, i) => m.set(r.result, `rule-${o.parts.ruleNumbers[i]!}`))
      }
      this.branches = m
    }
    return this.branches.get(result) ?? 'default'
  }

  evaluate(context: EvaluationContext, now?: number): EvaluationResult {
    const ctx = context !== null && typeof context === 'object' ? context : EMPTY_CONTEXT
    // A top-level evaluation of a flag that tests anything starts a fresh budget and prerequisite memo; a
    // flag that tests nothing (the common static flag) spends nothing and reads no memo, so it skips this.
    if (depth === 0 && this.tests) begin(ctx, now)
    // Evaluation throws only when it overruns its work budget (budget.ts). With JSON contexts nothing else
    // below can; only hostile objects (throwing getters, proxies) could, and they get the off value. The
    // guard sits outside the hot function.
    try {
      // An environment with its own rules evaluates them instead of the flag's (its compiled form has them,
      // with its outcomes): chosen here, so run() is the same straight path for both.
      const names = this.ownNames
      if (names !== null) {
        const env = ctx.environment
        for (let i = 0; i < names.length; i++) if (names[i] === env) return this.ownFlags[i]!.run(ctx, now)
      }
      return this.run(ctx, now)
    } catch (e) {
      if (e instanceof EvaluationBudgetExceeded) throw e
      return this.base.disabled
    }
  }

  /** Every prerequisite flag, evaluated for the same context, serves what it must (and is on). */
  private prerequisitesHold(context: EvaluationContext, now: number | undefined): boolean {
    if (depth >= MAX_PREREQUISITE_DEPTH) return false
    depth++
    try {
      for (const p of this.prerequisites!) {
        const flag = this.resolveFlag(p.key)
        if (flag === undefined) return false
        let r: EvaluationResult
        if (flag instanceof CompiledFlagImpl) {
          if (flag.resultEpoch === epoch) r = flag.lastResult!
          else {
            prerequisiteEvaluations++
            r = flag.evaluate(context, now)
            flag.resultEpoch = epoch
            flag.lastResult = r
          }
        } else r = flag.evaluate(context, now)
        if (r.reason === 'disabled' || r.reason === 'prerequisite_failed' || !p.accepts(r)) return false
      }
      return true
    } finally {
      depth--
    }
  }

  run(context: EvaluationContext, now: number | undefined): EvaluationResult {
    // 1. An override for the context's environment replaces enabled (and value or variant, when it gives one).
    // (An environment with its own rules never gets here: evaluate() runs its compiled form instead.)
    let v = this.base
    if (this.environments !== null) {
      const env = context.environment
      if (typeof env === 'string') v = this.environments.get(env) ?? v
    }
    // 2. Disabled, or outside [active_from, active_until).
    if (!v.enabled) return v.disabled
    if (this.windowed) {
      const t = typeof now === 'number' ? now : Date.now()
      if (!(t >= this.activeFrom && t < this.activeUntil)) return v.disabled
    }
    // 3. Prerequisites: each required flag must serve the required variant or value.
    if (this.prerequisites !== null && !this.prerequisitesHold(context, now)) return v.prerequisiteFailed
    // 4. Individual targeting by user_id.
    if (this.overrides !== null) {
      const id = attributeKey(topLevelUserId(context))
      if (id !== undefined) {
        const hit = this.overrides.get(id)
        if (hit !== undefined) return hit
      }
    }
    // 5. The first rule whose conditions all hold.
    const rules = this.rules
    for (let i = 0; i < rules.length; i++) {
      if (rules[i]!.test(context)) return rules[i]!.result
    }
    // 6. Percentage rollout or weighted split; a context without the attribute is outside.
    if (this.rolloutAccessor !== null) {
      const id = attributeKey(this.rolloutAccessor(context))
      if (id === undefined) return v.rolloutOut
      const bucket = this.bucketer!.bucket(id)
      if (this.split === null) return bucket < this.rolloutPercentage ? v.rolloutIn : v.rolloutOut
      const hundredths = Math.round(bucket * 100)
      const { bounds, results } = this.split
      for (let i = 0; i < bounds.length; i++) if (hundredths < bounds[i]!) return results[i]!
      return v.rolloutOut
    }
    // 7. Fall through.
    return v.fallthrough
  }
}

/**
 * Compiles a flag against the project's segments (as they are now: recompile the flags that reference a
 * segment when it changes). `resolveFlag` finds prerequisite flags at evaluation time (without it every
 * prerequisite fails). Never throws for stored data that passed validateFlag, and tolerates data that did
 * not (malformed parts fail closed).
 */
export function compileFlag(
  flag: FlagDefinition,
  segments: ReadonlyMap<string, SegmentDefinition>,
  resolveFlag?: FlagResolver,
): CompiledFlag {
  const def: Record<string, unknown> = isObject(flag) ? flag : {}
  const key = typeof def.key === 'string' ? def.key : String(def.key)
  const { base, environments, table, served } = flagOutcomes(def)

  // Each referenced segment is compiled once per flag, however many conditions name it.
  const compiledSegments = new Map<string, ContextTest | undefined>()
  const resolveSegment: SegmentResolver = (segmentKey) => {
    if (!compiledSegments.has(segmentKey)) {
      const seg = segments && typeof segments.get === 'function' ? segments.get(segmentKey) : undefined
      compiledSegments.set(segmentKey, seg === undefined || seg === null ? undefined : compileConditions(seg.conditions))
    }
    return compiledSegments.get(segmentKey)
  }

  const prerequisites = compilePrerequisites(def.prerequisites)
  const activeFrom = bound(def.active_from, -Infinity)
  const activeUntil = bound(def.active_until, Infinity)
  const compiledTargeting = (
    targeting: unknown,
    outcomes: Outcomes,
    environments: ReadonlyMap<string, Outcomes> | null,
    own: ReadonlyMap<string, CompiledFlagImpl> | null,
  ) =>
    new CompiledFlagImpl({
      key,
      base: outcomes,
      environments,
      own,
      activeFrom,
      activeUntil,
      prerequisites,
      resolveFlag,
      ...compileTargeting(isObject(targeting) ? targeting : {}, table, served, outcomes, resolveSegment),
      hasVariants: table.size > 0,
    })

  // An environment with its own rules (docs/behaviour.md §4, step 1) is the flag compiled once more with
  // that environment's outcomes and rules; the others keep only their outcomes.
  let own: Map<string, CompiledFlagImpl> | null = null
  if (environments !== null && isObject(def.environments)) {
    for (const [name, o] of Object.entries(def.environments)) {
      if (isObject(o) && isObject(o.targeting))
        (own ??= new Map()).set(name, compiledTargeting(o.targeting, environments.get(name)!, null, null))
    }
  }
  return compiledTargeting(def.targeting, base, environments, own)
}

/** The parts one `targeting` (the flag's, or an environment's own) compiles to. */
function compileTargeting(
  targeting: Record<string, unknown>,
  table: VariantTable,
  served: ReturnType<typeof flagOutcomes>['served'],
  base: Outcomes,
  resolveSegment: SegmentResolver,
) {
  let overrides: Map<string, EvaluationResult> | null = null
  if (isObject(targeting.overrides)) {
    for (const [userId, v] of Object.entries(targeting.overrides)) {
      if (v === undefined) continue
      // In a flag with variants an override names the variant.
      const r = table.size > 0 ? served(undefined, v, 'override') : served(v as Json, undefined, 'override')
      if (r !== undefined) (overrides ??= new Map()).set(userId, r)
    }
  }

  const rules: CompiledRule[] = []
  const ruleNumbers: number[] = []
  if (Array.isArray(targeting.rules)) {
    targeting.rules.forEach((rule, i) => {
      if (!isObject(rule)) return
      // A rule naming an unknown variant (never accepted by validation) matches nobody.
      const r = served(rule.value as Json, rule.variant, 'targeting')
      rules.push({ test: r === undefined ? () => false : compileConditions(rule.conditions, resolveSegment), result: r ?? base.disabled })
      ruleNumbers.push(i + 1)
    })
  }

  let rolloutAccessor: PropertyAccessor | null = null
  let rolloutAttribute: string | null = null
  let rolloutPercentage = 0
  let split: CompiledSplit | null = null
  const rollout = targeting.rollout
  if (isObject(rollout)) {
    rolloutAttribute = typeof rollout.attribute === 'string' ? rollout.attribute : null
    rolloutAccessor = rolloutAttribute !== null ? compileAccessor(rolloutAttribute) : () => undefined
    rolloutPercentage = typeof rollout.percentage === 'number' && !Number.isNaN(rollout.percentage) ? rollout.percentage : 0
    split = compileSplit(rollout.distribution, table, base.rolloutOut)
  }
  return { overrides, rules, ruleNumbers, rolloutAccessor, rolloutAttribute, rolloutPercentage, split }
}
