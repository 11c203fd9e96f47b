// flagd targeting conditions (JsonLogic, as @openfeature/flagd-core evaluates them) as our conditions.
// Supported: `and`, `or`, `!`, `==` / `===`, `!=` / `!==`, `in` (a value in a list, or a substring),
// `starts_with`, `ends_with` (either way round), `sem_ver` (=, !=, <, <=, >, >=, ^ same major, ~ same major and minor),
// `<`, `<=`, `>`, `>=` with a number (and `a < x < b`),
// `var` (targetingKey is user_id, as our OpenFeature mapping reads it) and true / false. What differs:
// `==` / `!=` with a number or boolean compare numbers (looseEquals); with a text, texts (a number in
// the context is then never equal here, while JsonLogic may coerce it: the caller reports it).
// Anything else (arithmetics, $flagd.timestamp, var defaults, nested paths) throws Unmapped.
import type { Condition, Json } from '../../engine'
import { and, FALSE, lit, not, or, TRUE, type Dnf } from './logic'
import { isObject } from '../../engine/is-object'

export class Unmapped extends Error {}

export const MAX_DEPTH = 64

export interface LogicNotes {
  /** set when `==` or `!=` was used (loose in JsonLogic) */
  loose: boolean
  /** set when sem_ver was used (flagd also reads partial versions) */
  semver: boolean
}

const isScalar = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))

/** The property a `{ "var": ... }` reads, or undefined when `node` is not a var. */
export function varName(node: unknown): string | undefined {
  if (!isObject(node) || Object.keys(node).length !== 1 || !('var' in node)) return undefined
  const arg = node.var
  const name = Array.isArray(arg) ? (arg.length === 1 ? arg[0] : undefined) : arg
  if (typeof name !== 'string' || name === '')
    throw new Unmapped(`var ${JSON.stringify(arg)} (a default value or an empty name) has no equivalent`)
  if (name.startsWith('$flagd.')) throw new Unmapped(`${name} has no equivalent`)
  if (name.includes('.')) throw new Unmapped(`var "${name}" reads a nested attribute, which conditions cannot`)
  return name === 'targetingKey' ? 'user_id' : name
}

/** [property, literal] of a binary operation on one var and one literal, in either order. */
function varAndLiteral(args: unknown, op: string): [string, unknown, boolean] {
  if (!Array.isArray(args) || args.length !== 2) throw new Unmapped(`${op} needs two arguments`)
  const left = varName(args[0])
  const right = varName(args[1])
  if (left !== undefined && right === undefined) return [left, args[1], false]
  if (right !== undefined && left === undefined) return [right, args[0], true]
  throw new Unmapped(`${op} must compare an attribute with a literal`)
}

// flagd's normalizeVersion: a leading v dropped, "1" and "1.2" read as 1.0.0 and 1.2.0.
function version(text: unknown): { major: number; minor: number; text: string } {
  const s = String(text).replace(/^[vV]/, '')
  const full = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.exec(s)
  if (full) return { major: Number(full[1]), minor: Number(full[2]), text: s }
  const part = /^(\d+)(?:\.(\d+))?$/.exec(s)
  if (part) return { major: Number(part[1]), minor: Number(part[2] ?? 0), text: `${Number(part[1])}.${Number(part[2] ?? 0)}.0` }
  throw new Unmapped(`sem_ver: ${JSON.stringify(text)} is not a version`)
}

function semver(args: unknown, notes: LogicNotes): Dnf {
  if (!Array.isArray(args) || args.length !== 3) throw new Unmapped('sem_ver needs three arguments')
  const property = varName(args[0])
  if (property === undefined) throw new Unmapped('sem_ver must test an attribute (its first argument)')
  notes.semver = true
  const v = version(args[2])
  const c = (operator: Condition['operator'], value: string) => lit({ property, operator, value })
  const eq = c('semver_equals', v.text)
  const gt = c('semver_greater_than', v.text)
  const lt = c('semver_less_than', v.text)
  // The lowest version of a major (or minor) line is M.m.0-0 (a pre-release of 0 ranks lowest).
  const from = (m: string) => or(c('semver_greater_than', m), c('semver_equals', m))
  switch (String(args[1])) {
    case '=':
      return eq
    case '!=':
      return or(gt, lt) // both need a valid version, as flagd's != does
    case '<':
      return lt
    case '<=':
      return or(lt, eq)
    case '>':
      return gt
    case '>=':
      return or(gt, eq)
    case '^':
      return and(from(`${v.major}.0.0-0`), c('semver_less_than', `${v.major + 1}.0.0-0`))
    case '~':
      return and(from(`${v.major}.${v.minor}.0-0`), c('semver_less_than', `${v.major}.${v.minor + 1}.0-0`))
    default:
      throw new Unmapped(`sem_ver operator ${JSON.stringify(args[1])} has no equivalent`)
  }
}

/** JsonLogic's (json-logic-engine's) `==` with a number or boolean: both sides as numbers, a missing
 *  attribute (null) as 0. So `== 5` holds for 5 and "5", `== false` for false, 0, "0" and a missing
 *  attribute. (Where flagd throws, on a text that is no number, it answers the caller's default.) */
function looseEquals(property: string, literal: number | boolean): Dnf {
  const n = Number(literal)
  const numeric = and(
    lit({ property, operator: 'greater_than_or_equal', value: n }),
    lit({ property, operator: 'less_than_or_equal', value: n }),
  )
  const parts = [numeric]
  if (n === 0 || n === 1) parts.push(lit({ property, operator: 'equals', value: n === 1 }))
  if (n === 0) parts.push(lit({ property, operator: 'not_exists' }))
  return or(...parts)
}

const ORDER: Record<string, [Condition['operator'], (a: number, b: number) => boolean]> = {
  '<': ['less_than', (a, b) => a < b],
  '<=': ['less_than_or_equal', (a, b) => a <= b],
  '>': ['greater_than', (a, b) => a > b],
  '>=': ['greater_than_or_equal', (a, b) => a >= b],
}
const FLIP: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' }

/** `attribute <op> n` as JsonLogic compares it with a number: as numbers, a missing attribute as 0, a
 *  boolean as 0 or 1. */
function ordered(property: string, op: string, n: number): Dnf {
  const [operator, holds] = ORDER[op]!
  const parts = [lit({ property, operator, value: n })]
  if (holds(0, n)) parts.push(lit({ property, operator: 'not_exists' }), lit({ property, operator: 'equals', value: false }))
  if (holds(1, n)) parts.push(lit({ property, operator: 'equals', value: true }))
  return or(...parts)
}

/** `<`, `<=`, `>`, `>=` between an attribute and a number (either order), or `a < attribute < b`. */
function comparison(op: string, args: unknown): Dnf {
  const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
  if (Array.isArray(args) && args.length === 3 && num(args[0]) && num(args[2])) {
    const property = varName(args[1])
    if (property === undefined) throw new Unmapped(`${op} between must test an attribute (its middle argument)`)
    return and(ordered(property, FLIP[op]!, args[0]), ordered(property, op, args[2]))
  }
  const [property, value, swapped] = varAndLiteral(args, op)
  if (!num(value)) throw new Unmapped(`${op} must compare an attribute with a number`)
  return ordered(property, swapped ? FLIP[op]! : op, value)
}

/** The longest text whose prefixes (or suffixes) are listed when the attribute is the second argument. */
export const MAX_AFFIX_TEXT = 256

/** flagd's `starts_with` / `ends_with`: `[a, b]` holds when both are texts and a starts (ends) with b;
 *  anything else is null there (falsy). `[attribute, "text"]` is our operator; `["text", attribute]` holds
 *  when the attribute is one of the text's prefixes (suffixes), the empty text included; a literal that
 *  is no text never holds. */
function affix(op: 'starts_with' | 'ends_with', args: unknown): Dnf {
  const [property, value, swapped] = varAndLiteral(args, op)
  if (typeof value !== 'string') return FALSE
  if (!swapped) return lit({ property, operator: op, value })
  if (value.length > MAX_AFFIX_TEXT)
    throw new Unmapped(`${op} of a text longer than ${MAX_AFFIX_TEXT} characters against an attribute has no equivalent`)
  // Code units, as String.prototype.startsWith / endsWith compare.
  const parts = Array.from({ length: value.length + 1 }, (_, i) =>
    op === 'starts_with' ? value.slice(0, i) : value.slice(value.length - i),
  )
  return lit({ property, operator: 'in', value: parts })
}

/** A JsonLogic condition as a predicate over our contexts (truthiness of its result). */
export function conditionDnf(node: unknown, notes: LogicNotes, depth = 0): Dnf {
  // Files come from anywhere: a nesting no person writes must not exhaust the stack.
  if (depth > MAX_DEPTH) throw new Unmapped(`conditions nested deeper than ${MAX_DEPTH}`)
  if (node === true) return TRUE
  if (node === false || node === null) return FALSE
  if (!isObject(node) || Object.keys(node).length !== 1) throw new Unmapped(`${JSON.stringify(node)?.slice(0, 80)} is not a condition`)
  const [op, args] = Object.entries(node)[0]!
  const list = Array.isArray(args) ? args : [args]
  switch (op) {
    case 'and':
      return and(...list.map((a) => conditionDnf(a, notes, depth + 1)))
    case 'or':
      return or(...list.map((a) => conditionDnf(a, notes, depth + 1)))
    case '!':
      return not(conditionDnf(list[0], notes, depth + 1))
    case '==':
    case '===':
    case '!=':
    case '!==': {
      const [property, value] = varAndLiteral(args, op)
      if (!isScalar(value)) throw new Unmapped(`${op} with ${JSON.stringify(value)} has no equivalent`)
      const equal =
        op.length === 3 || typeof value === 'string' ? lit({ property, operator: 'equals', value }) : looseEquals(property, value)
      if (op.length === 2) notes.loose = true
      return op.startsWith('!') ? not(equal) : equal
    }
    case 'in': {
      if (!Array.isArray(args) || args.length !== 2) throw new Unmapped('in needs two arguments')
      const needle = varName(args[0])
      if (needle !== undefined && Array.isArray(args[1]) && args[1].every(isScalar))
        return lit({ property: needle, operator: 'in', value: args[1] as Json[] })
      const haystack = varName(args[1])
      if (haystack !== undefined && typeof args[0] === 'string') return lit({ property: haystack, operator: 'contains', value: args[0] })
      throw new Unmapped('in must test an attribute against a list, or a text inside an attribute')
    }
    case 'starts_with':
    case 'ends_with':
      return affix(op, args)
    case 'sem_ver':
      return semver(args, notes)
    case '<':
    case '<=':
    case '>':
    case '>=':
      notes.loose = true
      return comparison(op, args)
    default:
      throw new Unmapped(`operator ${op} has no equivalent`)
  }
}
