// Compiles conditions, rule condition lists and segments into closures (ContextTest), once per change, so
// evaluation does no parsing, no regex building and no segment lookups.
import { charge } from './budget'
import { compileAccessor, type PropertyAccessor } from './context'
import { compilePredicate } from './operators'
import type { Condition, EvaluationContext, SegmentDefinition } from './types'
import { isObject } from './is-object'

/** A compiled condition, rule or segment test. Only ever called with an object context. */
export type ContextTest = (context: EvaluationContext) => boolean

export interface CompiledSegment {
  readonly key: string
  /** True when every condition of the segment holds (a segment without conditions matches everyone). */
  matches(context: EvaluationContext): boolean
}

export const TRUE: ContextTest = () => true
export const FALSE: ContextTest = () => false
export const EMPTY_CONTEXT: EvaluationContext = Object.freeze({})

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
export type SegmentResolver = (key: string) => ContextTest | undefined

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
  // One work unit per condition test (budget.ts), so no flag, however many rules, segments and
  // prerequisites it has, costs more than the evaluation's budget.
  return (c) => {
    charge(1)
    return predicate(get(c))
  }
}

export function compileConditions(conditions: unknown, resolveSegment?: SegmentResolver): ContextTest {
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
