// The condition operators of docs/behaviour.md §4, compiled once per condition into a predicate over the
// property's value. Conventions (where the spec is silent):
// - A missing property (absent or JSON null) fails every positive operator; `exists` is the only test of
//   presence. Every `not_*` operator is exactly the negation of its positive twin, so it holds for a
//   missing property AND for a property of the wrong type (`not_contains "x"` on a number holds: the
//   number does not contain "x"). in_segment / not_in_segment live in compile.ts (they need the context).
// - A wrong-type property (an object for starts_with, a boolean for greater_than...) fails the operator.
// - equals / in compare JSON scalars exactly, type included (`"30"` does not equal `30`).
// - The ordering operators (greater_than...) compare numbers; a context string that is a plain decimal
//   number literal (`"42"`, `"-1.5e3"`; no hex, blanks or empty string) is read as that number, because
//   clients often send numeric attributes as strings and there is no other sensible ordering.
// - before / after compare instants: the property may be an ISO 8601 string (see dates.ts) or a number
//   of epoch milliseconds; the condition value must be an ISO 8601 string.
// - semver_*: both sides must be valid SemVer 2.0 strings (see semver.ts), compared by precedence.
// - matches: RE2 syntax via re2js (linear time, no catastrophic backtracking; installed through regex.ts);
//   an unanchored search, like RegExp.prototype.test; only string properties can match.
// - Strings are compared case-sensitively everywhere.
// A condition value of the wrong shape (which validation rejects) compiles to a predicate that never
// holds, so stored data can never make evaluation throw.
import { charge } from './budget'
import { parseIsoDate } from './dates'
import { compileRegex, type CompiledRegex } from './regex'
import { compareSemver, parseSemver, type SemVer } from './semver'

/** Tests a property value; `undefined` means the property is missing. */
export type Predicate = (propertyValue: unknown) => boolean

type Builder = (conditionValue: unknown) => Predicate

const NEVER: Predicate = () => false
const ALWAYS: Predicate = () => true

/** JSON scalars that equals / in / contains can compare. */
export function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))
}

const NUMBER_LITERAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/

/** A finite number from a number or a decimal number literal string; NaN otherwise. */
export function toNumber(v: unknown): number {
  if (typeof v === 'number') return Number.isFinite(v) ? v : NaN
  if (typeof v === 'string' && v.length <= 64 && NUMBER_LITERAL.test(v)) {
    const n = Number(v)
    return Number.isFinite(n) ? n : NaN
  }
  return NaN
}

/** Epoch milliseconds from an ISO 8601 string or a finite number; NaN otherwise. */
export function toInstant(v: unknown): number {
  if (typeof v === 'string') return parseIsoDate(v)
  if (typeof v === 'number' && Number.isFinite(v)) return v
  return NaN
}

function regexTest(re: CompiledRegex, s: string): boolean {
  // re2js is linear in program size × text length: the evaluation's budget pays for it first (budget.ts),
  // and an overrun ends the evaluation before the work is done.
  charge(re.size * (s.length + 1))
  // The guard only keeps a library bug from ever escaping evaluation.
  try {
    return re.test(s)
  } catch {
    return false
  }
}

function numeric(compare: (a: number, b: number) => boolean): Builder {
  return (cv) => {
    if (typeof cv !== 'number' || !Number.isFinite(cv)) return NEVER
    return (v) => {
      const n = toNumber(v)
      // biome-ignore lint/suspicious/noSelfCompare: n === n is the NaN test, on the evaluation hot path
      return n === n && compare(n, cv)
    }
  }
}

function instant(compare: (a: number, b: number) => boolean): Builder {
  return (cv) => {
    const bound = typeof cv === 'string' ? parseIsoDate(cv) : NaN
    if (Number.isNaN(bound)) return NEVER
    return (v) => {
      const t = toInstant(v)
      // biome-ignore lint/suspicious/noSelfCompare: t === t is the NaN test, on the evaluation hot path
      return t === t && compare(t, bound)
    }
  }
}

function semver(accept: (order: number) => boolean): Builder {
  return (cv) => {
    const target = parseSemver(cv)
    if (target === undefined) return NEVER
    return (v) => {
      const version: SemVer | undefined = parseSemver(v)
      return version !== undefined && accept(compareSemver(version, target))
    }
  }
}

/** The positive operators; each predicate is only called with a present (non-missing) value. */
const POSITIVE: ReadonlyMap<string, Builder> = new Map<string, Builder>([
  ['equals', (cv) => (isScalar(cv) ? (v) => v === cv : NEVER)],
  [
    'in',
    (cv) => {
      if (!Array.isArray(cv)) return NEVER
      const members = new Set(cv.filter(isScalar))
      return (v) => members.has(v as never)
    },
  ],
  [
    'contains',
    (cv) => {
      if (!isScalar(cv)) return NEVER
      return (v) => {
        if (typeof v === 'string') {
          if (typeof cv !== 'string') return false
          // A substring search reads the whole text (budget.ts): about a unit per 64 characters.
          if (v.length > 64) charge(v.length >>> 6)
          return v.includes(cv)
        }
        return Array.isArray(v) && v.includes(cv) // membership, exact type
      }
    },
  ],
  ['starts_with', (cv) => (typeof cv === 'string' ? (v) => typeof v === 'string' && v.startsWith(cv) : NEVER)],
  ['ends_with', (cv) => (typeof cv === 'string' ? (v) => typeof v === 'string' && v.endsWith(cv) : NEVER)],
  [
    'matches',
    (cv) => {
      const re = typeof cv === 'string' ? compileRegex(cv) : undefined
      if (re === undefined) return NEVER
      return (v) => typeof v === 'string' && regexTest(re, v)
    },
  ],
  ['greater_than', numeric((a, b) => a > b)],
  ['greater_than_or_equal', numeric((a, b) => a >= b)],
  ['less_than', numeric((a, b) => a < b)],
  ['less_than_or_equal', numeric((a, b) => a <= b)],
  ['before', instant((a, b) => a < b)],
  ['after', instant((a, b) => a > b)],
  ['semver_equals', semver((o) => o === 0)],
  ['semver_greater_than', semver((o) => o > 0)],
  ['semver_less_than', semver((o) => o < 0)],
  ['exists', () => ALWAYS],
])

/** The negated operators and the positive operator each one negates. */
const NEGATED: ReadonlyMap<string, string> = new Map([
  ['not_equals', 'equals'],
  ['not_in', 'in'],
  ['not_contains', 'contains'],
  ['not_exists', 'exists'],
])

/**
 * Compiles a (non-segment) operator and its condition value into a predicate over the property value.
 * Unknown operators, including in_segment / not_in_segment, compile to a predicate that never holds.
 */
export function compilePredicate(operator: string, conditionValue: unknown): Predicate {
  const positive = POSITIVE.get(operator)
  if (positive !== undefined) {
    const test = positive(conditionValue)
    if (test === NEVER) return NEVER
    return (v) => v !== undefined && test(v)
  }
  const base = NEGATED.get(operator)
  if (base !== undefined) {
    const test = POSITIVE.get(base)!(conditionValue)
    if (test === NEVER) return ALWAYS
    return (v) => v === undefined || !test(v)
  }
  return NEVER
}

/** One-off operator test (tests, tooling): `propertyValue` undefined or null means missing. */
export function evaluateOperator(operator: string, propertyValue: unknown, conditionValue: unknown): boolean {
  return compilePredicate(operator, conditionValue)(propertyValue === null ? undefined : propertyValue)
}
