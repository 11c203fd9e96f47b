// "Why does this context get this value" (docs/lifecycle.md §4): the answer of the compiled flag, plus a
// trace with one entry per step of the evaluation order (docs/behaviour.md §4), stopping at the step that
// decided. The trace is read off the definition step by step; the answer always comes from the compiled flag
// (the hot path's code), and tests/engine/explain.test.ts checks that both agree on which step decided.
import { compileFlag } from './compile'
import { compileCondition, compileConditions, type ContextTest } from './compile-conditions'
import { isObject } from './is-object'
import { attributeKey, getProperty } from './context'
import { parseIsoDate } from './dates'
import { bucketOf } from './rollout'
import type {
  Condition,
  Rollout,
  Targeting,
  EvaluationContext,
  EvaluationResult,
  FlagDefinition,
  FlagResolver,
  Json,
  SegmentDefinition,
} from './types'

export type TraceStep = { step: string; decided: boolean } & Record<string, unknown>

export interface Explanation {
  result: EvaluationResult
  trace: TraceStep[]
}

const two = (n: number) => Math.round(n * 100) / 100
const servesOf = (o: { value?: unknown; variant?: unknown }) =>
  o.variant !== undefined ? { variant: o.variant } : { value: o.value as Json }

export function explainFlag(
  flag: FlagDefinition,
  segments: ReadonlyMap<string, SegmentDefinition>,
  resolveFlag: FlagResolver | undefined,
  rawContext: EvaluationContext,
  now: number,
): Explanation {
  const context: EvaluationContext = rawContext !== null && typeof rawContext === 'object' ? rawContext : {}
  const result = compileFlag(flag, segments, resolveFlag).evaluate(context, now)
  const trace: TraceStep[] = []
  const done = (step: { step: string } & Record<string, unknown>): Explanation => {
    trace.push({ ...step, decided: true })
    return { result, trace }
  }

  // 1. Environment override.
  const env = context.environment
  const envOverride =
    typeof env === 'string' && isObject(flag.environments) && Object.hasOwn(flag.environments, env) ? flag.environments[env] : undefined
  // An environment with its own rules: they replace the flag's targeting (steps 4-6), and the trace says so.
  const own = envOverride !== undefined && isObject(envOverride.targeting)
  trace.push({
    step: 'environment_override',
    environment: typeof env === 'string' ? env : null,
    applied: envOverride !== undefined,
    ...(envOverride && {
      enabled: envOverride.enabled,
      ...(envOverride.variant !== undefined || envOverride.value !== undefined ? servesOf(envOverride) : {}),
    }),
    ...(own && { rules: `${env}'s own rules` }),
    decided: false,
  })

  // 2. Enabled and the active window.
  const enabled = envOverride ? envOverride.enabled === true : flag.enabled === true
  if (!enabled) return done({ step: 'enabled', enabled: false })
  trace.push({ step: 'enabled', enabled: true, decided: false })
  if (flag.active_from || flag.active_until) {
    const from = flag.active_from ? parseIsoDate(flag.active_from) : -Infinity
    const until = flag.active_until ? parseIsoDate(flag.active_until) : Infinity
    const inside = now >= from && now < until
    const step = {
      step: 'active_window',
      active_from: flag.active_from ?? null,
      active_until: flag.active_until ?? null,
      at: new Date(now).toISOString(),
      inside,
    }
    if (!inside) return done(step)
    trace.push({ ...step, decided: false })
  }

  // 3. Prerequisites.
  for (const p of Array.isArray(flag.prerequisites) ? flag.prerequisites : []) {
    const required = p.variant !== undefined ? { variant: p.variant } : { value: p.value as Json }
    const other = resolveFlag?.(p.key)
    const got = other?.evaluate(context, now)
    const passed =
      got !== undefined &&
      got.reason !== 'disabled' &&
      got.reason !== 'prerequisite_failed' &&
      (p.variant !== undefined ? got.variant === p.variant : JSON.stringify(got.value) === JSON.stringify(p.value))
    const step = {
      step: 'prerequisite',
      key: p.key,
      required,
      got: got ? { value: got.value, reason: got.reason, ...(got.variant !== undefined && { variant: got.variant }) } : null,
      passed,
    }
    if (!passed) return done(step)
    trace.push({ ...step, decided: false })
  }

  const chosen = own ? envOverride.targeting : flag.targeting
  const targeting: Targeting = isObject(chosen) ? chosen : {}
  const withVariants = isObject(flag.variants) && Object.keys(flag.variants).length > 0

  // 4. Individual targeting by user_id.
  if (isObject(targeting.overrides) && Object.keys(targeting.overrides).length > 0) {
    const id = attributeKey((context as { user_id?: unknown }).user_id)
    const hit = id !== undefined && Object.hasOwn(targeting.overrides, id)
    const step = {
      step: 'individual_override',
      user_id: id ?? null,
      matched: hit,
      ...(hit && (withVariants ? { variant: targeting.overrides[id!] } : { value: targeting.overrides[id!] })),
    }
    if (hit) return done(step)
    trace.push({ ...step, decided: false })
  }

  // 5. Rules, each condition with the value the context holds.
  const segmentTests = new Map<string, ContextTest>()
  for (const [key, s] of segments) segmentTests.set(key, compileConditions(s.conditions))
  const resolveSegment = (key: string) => segmentTests.get(key)
  const rules = Array.isArray(targeting.rules) ? targeting.rules : []
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]!
    const conditions = (Array.isArray(rule.conditions) ? rule.conditions : []).map((c: Condition) => {
      const segment = c.operator === 'in_segment' || c.operator === 'not_in_segment'
      return {
        ...(segment
          ? { segment: c.value }
          : { property: c.property, seen: c.property === undefined ? null : ((getProperty(context, c.property) ?? null) as Json) }),
        operator: c.operator,
        ...(!segment && { expected: c.value ?? null }),
        result: compileCondition(c, resolveSegment)(context),
      }
    })
    const matched = conditions.every((c: { result: boolean }) => c.result)
    const step = { step: 'rule', rule: i + 1, matched, conditions, ...servesOf(rule) }
    if (matched) return done(step)
    trace.push({ ...step, decided: false })
  }

  // 6. Rollout or weighted split.
  const rollout: Rollout | undefined = isObject(targeting.rollout) ? targeting.rollout : undefined
  if (rollout) {
    const id = attributeKey(getProperty(context, rollout.attribute))
    if (id === undefined)
      return done({
        step: 'rollout',
        attribute: rollout.attribute,
        seen: null,
        inside: false,
        note: `the context has no "${rollout.attribute}": outside`,
      })
    const bucket = two(bucketOf(String(flag.key), id))
    if (Array.isArray(rollout.distribution)) {
      let from = 0
      const ranges = rollout.distribution.map((s) => {
        const range = { variant: s.variant, from: two(from), to: two(from + s.weight) }
        from += s.weight
        return range
      })
      const chosen = ranges.find((r) => bucket >= r.from && bucket < r.to)
      return done({ step: 'rollout', attribute: rollout.attribute, seen: id, bucket, ranges, variant: chosen?.variant ?? null })
    }
    return done({
      step: 'rollout',
      attribute: rollout.attribute,
      seen: id,
      bucket,
      percentage: rollout.percentage ?? 0,
      inside: bucket < (rollout.percentage ?? 0),
    })
  }

  // 7. Default.
  return done({
    step: 'default',
    ...(envOverride && (envOverride.variant !== undefined || envOverride.value !== undefined) ? { from: 'environment_override' } : {}),
    value: result.value,
    ...(result.variant !== undefined && { variant: result.variant }),
  })
}
