// Compiles a flag once per change into a closure tree, so evaluation (the hot path) does no parsing,
// no regex building, no segment lookups and, for fixed outcomes, no allocation: every result whose value
// is known at compile time is built here once, frozen and returned as is.
// Evaluation order is docs/behaviour.md §4, steps 1-6 (see CompiledFlagImpl.run).
import { attributeKey, compileAccessor, type PropertyAccessor } from './context'
import { parseIsoDate } from './dates'
import { compilePredicate } from './operators'
import { bucketOf } from './rollout'
import type {
  Branch, CompiledFlag, Condition, EvaluationContext, EvaluationResult, FlagDefinition, Json, Reason, SegmentDefinition,
} from './types'
import { typeOf } from './value-type'

/** A compiled condition, rule or segment test. Only ever called with an object context. */
export type ContextTest = (context: EvaluationContext) => boolean

export interface CompiledSegment {
  readonly key: string
  /** True when every condition of the segment holds (a segment without conditions matches everyone). */
  matches(context: EvaluationContext): boolean
}

const TRUE: ContextTest = () => true
const FALSE: ContextTest = () => false
const EMPTY_CONTEXT: EvaluationContext = Object.freeze({})
const hasOwn = Object.prototype.hasOwnProperty

/** A deep, frozen copy of a JSON value, so results shared between calls can never be mutated by a caller. */
function frozenJson(value: unknown): Json {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') return null
  if (value === null || typeof value !== 'object') return value as Json
  if (Array.isArray(value)) return Object.freeze(value.map(frozenJson)) as Json
  const out: Record<string, Json> = {}
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k]
    if (v === undefined) continue
    // A JSON `__proto__` key is an own property; plain assignment would change the prototype instead.
    if (k === '__proto__') Object.defineProperty(out, k, { value: frozenJson(v), enumerable: true, writable: true, configurable: true })
    else out[k] = frozenJson(v)
  }
  return Object.freeze(out)
}

/** Results always have the same shape (one hidden class) and are frozen. */
function result(value: Json, reason: Reason): EvaluationResult {
  return Object.freeze({ value, type: typeOf(value), reason })
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

/** AND of the tests; specialised for the common short lists to avoid a loop per evaluation. */
function allOf(tests: ContextTest[]): ContextTest {
  switch (tests.length) {
    case 0:
      return TRUE
    case 1:
      return tests[0]!
    case 2: {
      const [a, b] = tests as [ContextTest, ContextTest]
      return (c) => a(c) && b(c)
    }
    default:
      return (c) => {
        for (let i = 0; i < tests.length; i++) if (!tests[i]!(c)) return false
        return true
      }
  }
}

/** Looks up a segment's compiled test; `undefined` when the segment does not exist. */
type SegmentResolver = (key: string) => ContextTest | undefined

/**
 * Compiles one condition. in_segment / not_in_segment ignore `property` (the segment's own conditions name
 * their properties) and test the whole context; a segment unknown at compile time is treated as one that
 * nobody is in. Without a resolver (inside a segment: segments do not nest) every segment reference
 * behaves like an unknown segment.
 */
export function compileCondition(condition: unknown, resolveSegment?: SegmentResolver): ContextTest {
  if (!isObject(condition)) return FALSE
  const { operator, property, value } = condition as Partial<Condition> & Record<string, unknown>
  if (operator === 'in_segment' || operator === 'not_in_segment') {
    const segment = typeof value === 'string' && resolveSegment ? resolveSegment(value) : undefined
    if (operator === 'in_segment') return segment ?? FALSE
    return segment === undefined ? TRUE : (c) => !segment(c)
  }
  if (typeof operator !== 'string') return FALSE
  const predicate = compilePredicate(operator, value)
  const get: PropertyAccessor = typeof property === 'string' ? compileAccessor(property) : () => undefined
  return (c) => predicate(get(c))
}

function compileConditions(conditions: unknown, resolveSegment?: SegmentResolver): ContextTest {
  // Malformed stored data (never accepted by validation) fails closed: the rule or segment matches nobody.
  if (!Array.isArray(conditions)) return FALSE
  return allOf(conditions.map((c) => compileCondition(c, resolveSegment)))
}

/** Compiles a segment: all its conditions must hold. Segment references inside a segment never match. */
export function compileSegment(segment: SegmentDefinition): CompiledSegment {
  const test = compileConditions(segment?.conditions)
  const key = String(segment?.key)
  return {
    key,
    matches: (context) => test(context !== null && typeof context === 'object' ? context : EMPTY_CONTEXT),
  }
}

/** The outcomes that depend on the effective enabled/value pair (the flag's, or an environment's). */
interface Variant {
  readonly enabled: boolean
  readonly disabled: EvaluationResult
  readonly rolloutIn: EvaluationResult
  readonly rolloutOut: EvaluationResult
  /** Step 6: reason `default`, or `environment_override` for an environment variant. */
  readonly fallthrough: EvaluationResult
}

function variant(enabled: unknown, value: Json, fallthroughReason: Reason): Variant {
  // The off value (docs/behaviour.md §4): false for a boolean flag, null otherwise.
  const off = typeof value === 'boolean' ? false : null
  return {
    enabled: enabled === true,
    disabled: result(off, 'disabled'),
    rolloutIn: result(value, 'rollout'),
    rolloutOut: result(off, 'rollout'),
    fallthrough: result(value, fallthroughReason),
  }
}

interface CompiledRule {
  readonly test: ContextTest
  readonly result: EvaluationResult
}

// Override keys: the top-level user_id only (as docs/behaviour.md §4 says), not custom.user_id.
const topLevelUserId = (c: EvaluationContext): unknown => (c as { user_id?: unknown }).user_id

class CompiledFlagImpl implements CompiledFlag {
  readonly isStatic: boolean
  private branches: Map<EvaluationResult, Branch> | undefined

  constructor(
    readonly key: string,
    private readonly base: Variant,
    private readonly environments: ReadonlyMap<string, Variant> | null,
    private readonly activeFrom: number,
    private readonly activeUntil: number,
    private readonly windowed: boolean,
    private readonly overrides: ReadonlyMap<string, EvaluationResult> | null,
    private readonly rules: readonly CompiledRule[],
    private readonly rolloutAccessor: PropertyAccessor | null,
    private readonly rolloutPercentage: number,
    private readonly ruleNumbers: readonly number[],
    readonly rolloutAttribute: string | null,
  ) {
    this.isStatic = overrides === null && rules.length === 0 && rolloutAccessor === null
  }

  branchOf(result: EvaluationResult): Branch {
    if (this.branches === undefined) {
      // Every result object is made once at compile time for one branch; the map is built on first use.
      const m = new Map<EvaluationResult, Branch>()
      for (const v of [this.base, ...(this.environments?.values() ?? [])]) {
        m.set(v.disabled, 'off').set(v.rolloutOut, 'off').set(v.rolloutIn, 'rollout').set(v.fallthrough, 'default')
      }
      for (const r of this.overrides?.values() ?? []) m.set(r, 'override')
      this.rules.forEach((r, i) => m.set(r.result, `rule-${this.ruleNumbers[i]!}`))
      this.branches = m
    }
    return this.branches.get(result) ?? 'default'
  }

  evaluate(context: EvaluationContext, now?: number): EvaluationResult {
    // Evaluation must never throw. With JSON contexts nothing below can; only hostile objects (throwing
    // getters, proxies) could, and they get the off value. The guard sits outside the hot function.
    try {
      return this.run(context !== null && typeof context === 'object' ? context : EMPTY_CONTEXT, now)
    } catch {
      return this.base.disabled
    }
  }

  private run(context: EvaluationContext, now: number | undefined): EvaluationResult {
    // 1. An override for the context's environment replaces enabled (and value, when it gives one).
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
    // 3. Individual targeting by user_id.
    if (this.overrides !== null) {
      const id = attributeKey(topLevelUserId(context))
      if (id !== undefined) {
        const hit = this.overrides.get(id)
        if (hit !== undefined) return hit
      }
    }
    // 4. The first rule whose conditions all hold.
    const rules = this.rules
    for (let i = 0; i < rules.length; i++) {
      if (rules[i]!.test(context)) return rules[i]!.result
    }
    // 5. Percentage rollout; a context without the attribute is outside.
    if (this.rolloutAccessor !== null) {
      const id = attributeKey(this.rolloutAccessor(context))
      if (id === undefined) return v.rolloutOut
      return bucketOf(this.key, id) < this.rolloutPercentage ? v.rolloutIn : v.rolloutOut
    }
    // 6. Fall through.
    return v.fallthrough
  }
}

/** A window bound: absent is open; a bound that does not parse fails closed (the flag is never active). */
function bound(text: unknown, open: number): number {
  if (text === undefined || text === null) return open
  const t = typeof text === 'string' ? parseIsoDate(text) : NaN
  return Number.isNaN(t) ? NaN : t
}

/**
 * Compiles a flag against the project's segments (as they are now: recompile the flags that reference a
 * segment when it changes). Never throws for stored data that passed validateFlag, and tolerates data
 * that did not (malformed parts fail closed).
 */
export function compileFlag(flag: FlagDefinition, segments: ReadonlyMap<string, SegmentDefinition>): CompiledFlag {
  const def: Record<string, unknown> = isObject(flag) ? flag : {}
  const key = typeof def.key === 'string' ? def.key : String(def.key)
  const value = frozenJson(def.value)
  const base = variant(def.enabled, value, 'default')

  let environments: Map<string, Variant> | null = null
  if (isObject(def.environments)) {
    for (const [name, o] of Object.entries(def.environments)) {
      if (!isObject(o)) continue
      const envValue = hasOwn.call(o, 'value') && o.value !== undefined ? frozenJson(o.value) : value
      ;(environments ??= new Map()).set(name, variant(o.enabled, envValue, 'environment_override'))
    }
  }

  const activeFrom = bound(def.active_from, -Infinity)
  const activeUntil = bound(def.active_until, Infinity)
  const windowed = activeFrom !== -Infinity || activeUntil !== Infinity

  // Each referenced segment is compiled once per flag, however many conditions name it.
  const compiledSegments = new Map<string, ContextTest | undefined>()
  const resolveSegment: SegmentResolver = (segmentKey) => {
    if (!compiledSegments.has(segmentKey)) {
      const seg = segments && typeof segments.get === 'function' ? segments.get(segmentKey) : undefined
      compiledSegments.set(segmentKey, seg === undefined || seg === null ? undefined : compileConditions(seg.conditions))
    }
    return compiledSegments.get(segmentKey)
  }

  const targeting = isObject(def.targeting) ? def.targeting : {}

  let overrides: Map<string, EvaluationResult> | null = null
  if (isObject(targeting.overrides)) {
    for (const [userId, v] of Object.entries(targeting.overrides)) {
      if (v !== undefined) (overrides ??= new Map()).set(userId, result(frozenJson(v), 'override'))
    }
  }

  const rules: CompiledRule[] = []
  const ruleNumbers: number[] = []
  if (Array.isArray(targeting.rules)) {
    targeting.rules.forEach((rule, i) => {
      if (!isObject(rule)) return
      rules.push({ test: compileConditions(rule.conditions, resolveSegment), result: result(frozenJson(rule.value), 'targeting') })
      ruleNumbers.push(i + 1)
    })
  }

  let rolloutAccessor: PropertyAccessor | null = null
  let rolloutAttribute: string | null = null
  let rolloutPercentage = 0
  const rollout = targeting.rollout
  if (isObject(rollout)) {
    rolloutAttribute = typeof rollout.attribute === 'string' ? rollout.attribute : null
    rolloutAccessor = rolloutAttribute !== null ? compileAccessor(rolloutAttribute) : () => undefined
    rolloutPercentage = typeof rollout.percentage === 'number' && !Number.isNaN(rollout.percentage) ? rollout.percentage : 0
  }

  return new CompiledFlagImpl(key, base, environments, activeFrom, activeUntil, windowed, overrides, rules, rolloutAccessor, rolloutPercentage, ruleNumbers, rolloutAttribute)
}
