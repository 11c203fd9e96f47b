// Validation of flag definitions and condition lists, reporting every problem with its path
// (`targeting.rules[0].conditions[1].value`). It runs on the whole merged definition before it is
// stored, so whatever compile.ts later sees has passed it. Value rules per operator (spec silent):
// - equals / not_equals / contains / not_contains: a JSON scalar (string, finite number, boolean);
//   null, arrays and objects would never match anything, so they are rejected as mistakes.
// - in / not_in: an array of JSON scalars. starts_with / ends_with: a string.
// - matches: an RE2 pattern (re2js) within the limits of pattern-limits.ts (length, counted repetition,
//   program size; and all of one flag's or one segment's patterns together).
// - greater_than... : a finite number. before / after: an ISO 8601 date or date-time (dates.ts).
// - semver_*: a valid SemVer 2.0 version (a leading `v` is fine). exists / not_exists: value ignored.
// - in_segment / not_in_segment: the key of an existing segment; `property` is ignored and may be omitted.
//   Segments do not nest: a segment's own conditions may not use them (this also rules out cycles).
import { isIsoDate, parseIsoDate } from './dates'
import { labelIssue } from './issue-labels'
import { checkJsonLimits } from './limits'
import { isScalar } from './operators'
// Validation judges patterns with the real engine: the server installs it at start (index.ts), the console
// loads it once a condition uses `matches` (regex-loader.ts).
import { checkPattern, MAX_PATTERN_LENGTH, MAX_PATTERNS_PROGRAM } from './pattern-limits'
import { parseSemver } from './semver'
import { OPERATORS, type Json, type ValidationIssue } from './types'
import { typeOf } from './value-type'
import { validateMetadata, validatePrerequisiteShape, validateVariants } from './validate-variants'
import { isObject } from './is-object'

export const MAX_RULES = 200
export const MAX_CONDITIONS = 100
export { MAX_PATTERN_LENGTH }

const OPERATOR_SET: ReadonlySet<string> = new Set(OPERATORS)
const NUMERIC = new Set(['greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal'])
const SEMVER = new Set(['semver_equals', 'semver_greater_than', 'semver_less_than'])
const SCALAR = new Set(['equals', 'not_equals', 'contains', 'not_contains'])
const SEGMENT = new Set(['in_segment', 'not_in_segment'])

const present = (v: unknown): boolean => v !== undefined && v !== null

/** The problem with a condition value for `operator`, or undefined when it is fine (the console checks
 *  values with it as they are typed, so it and the server agree). */
export function conditionValueProblem(operator: string, value: unknown): string | undefined {
  if (SCALAR.has(operator)) return isScalar(value) ? undefined : 'must be a string, a finite number or a boolean'
  if (NUMERIC.has(operator)) return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a finite number'
  if (SEMVER.has(operator)) return parseSemver(value) ? undefined : 'must be a valid semantic version such as 1.2.3'
  switch (operator) {
    case 'in':
    case 'not_in':
      return Array.isArray(value) ? undefined : 'must be an array'
    case 'starts_with':
    case 'ends_with':
      return typeof value === 'string' ? undefined : 'must be a string'
    case 'matches': {
      if (typeof value !== 'string') return 'must be a string (a regular expression)'
      const checked = checkPattern(value)
      return 'problem' in checked ? checked.problem : undefined
    }
    case 'before':
    case 'after':
      return isIsoDate(value) ? undefined : 'must be an ISO 8601 date or date-time string'
    default:
      return undefined // exists / not_exists
  }
}

/** The program sizes of the patterns of one flag (or one segment) so far. */
interface PatternTally {
  total: number
  path: string
}

/** A `matches` pattern counted into its flag's (or segment's) total; refused past MAX_PATTERNS_PROGRAM, and
 *  then the rest are not compiled at all (compiling is the cost the limit bounds). */
function tallyPattern(value: unknown, path: string, tally: PatternTally, issues: ValidationIssue[]): void {
  if (tally.total > MAX_PATTERNS_PROGRAM) return
  if (typeof value !== 'string') return void issues.push({ path, message: 'must be a string (a regular expression)' })
  const checked = checkPattern(value)
  if ('problem' in checked) return void issues.push({ path, message: checked.problem })
  tally.total += checked.regex.size
  if (tally.total > MAX_PATTERNS_PROGRAM) {
    issues.push({ path: tally.path, message: `its patterns (matches) together compile to more than ${MAX_PATTERNS_PROGRAM} instructions` })
  }
}

function validateCondition(
  condition: unknown,
  path: string,
  segmentKeys: ReadonlySet<string>,
  allowSegments: boolean,
  issues: ValidationIssue[],
  tally: PatternTally,
): void {
  if (!isObject(condition)) {
    issues.push({ path, message: 'must be an object { property, operator, value }' })
    return
  }
  const { property, operator, value } = condition
  if (typeof operator !== 'string' || !OPERATOR_SET.has(operator)) {
    issues.push({
      path: `${path}.operator`,
      message: `unknown operator ${JSON.stringify(operator) ?? 'undefined'}; expected one of ${OPERATORS.join(', ')}`,
    })
  }
  const op = typeof operator === 'string' && OPERATOR_SET.has(operator) ? operator : undefined
  if (op !== undefined && SEGMENT.has(op)) {
    if (property !== undefined && typeof property !== 'string') issues.push({ path: `${path}.property`, message: 'must be a string' })
    if (!allowSegments) {
      issues.push({ path: `${path}.operator`, message: `${op} cannot be used inside a segment (segments do not nest)` })
    } else if (typeof value !== 'string' || value === '') {
      issues.push({ path: `${path}.value`, message: 'must be a segment key' })
    } else if (!segmentKeys.has(value)) {
      issues.push({ path: `${path}.value`, message: `unknown segment "${value}"` })
    }
    return
  }
  if (typeof property !== 'string' || property === '') issues.push({ path: `${path}.property`, message: 'must be a non-empty string' })
  if (op === undefined) return
  if (op === 'matches') return tallyPattern(value, `${path}.value`, tally, issues)
  const problem = conditionValueProblem(op, value)
  if (problem !== undefined) {
    issues.push({ path: `${path}.value`, message: problem })
    return
  }
  if (op === 'in' || op === 'not_in') {
    ;(value as unknown[]).forEach((item, i) => {
      if (!isScalar(item)) issues.push({ path: `${path}.value[${i}]`, message: 'must be a string, a finite number or a boolean' })
    })
  }
  if (op !== 'exists' && op !== 'not_exists') issues.push(...checkJsonLimits(value, `${path}.value`))
}

export interface ConditionOptions {
  /** in_segment / not_in_segment allowed: true in flag rules, false (the default) in segments. */
  allowSegmentReferences?: boolean
  /** the running total of pattern program sizes (a flag's rules share one); a list of its own otherwise */
  patterns?: PatternTally
}

/**
 * Validates a condition list at `path` (a segment's `conditions`, or a rule's). By default it is a
 * segment's list, so in_segment / not_in_segment are refused (segments do not nest); flag rules pass
 * `{ allowSegmentReferences: true }` and must then name a key in `segmentKeys`.
 */
export function validateConditions(
  conditions: unknown,
  path: string,
  segmentKeys: ReadonlySet<string>,
  options: ConditionOptions = {},
): ValidationIssue[] {
  const issues: ValidationIssue[] = []
  if (!Array.isArray(conditions)) return [{ path, message: 'must be an array of conditions' }]
  if (conditions.length > MAX_CONDITIONS) issues.push({ path, message: `must hold at most ${MAX_CONDITIONS} conditions` })
  // Past the limit the list is refused anyway: checking (and compiling patterns of) the rest would only
  // let one request buy more CPU.
  const tally = options.patterns ?? { total: 0, path }
  conditions
    .slice(0, MAX_CONDITIONS)
    .forEach((c, i) => validateCondition(c, `${path}[${i}]`, segmentKeys, options.allowSegmentReferences === true, issues, tally))
  return issues
}

function validateTargeting(targeting: unknown, segmentKeys: ReadonlySet<string>, withVariants: boolean, issues: ValidationIssue[]): void {
  if (!isObject(targeting)) {
    issues.push({ path: 'targeting', message: 'must be an object { rules, rollout, overrides }' })
    return
  }
  const { rules, rollout, overrides } = targeting
  if (present(rules)) {
    if (!Array.isArray(rules)) issues.push({ path: 'targeting.rules', message: 'must be an array' })
    else {
      if (rules.length > MAX_RULES) issues.push({ path: 'targeting.rules', message: `must hold at most ${MAX_RULES} rules` })
      const patterns: PatternTally = { total: 0, path: 'targeting.rules' }
      rules.slice(0, MAX_RULES).forEach((rule, i) => {
        const p = `targeting.rules[${i}]`
        if (!isObject(rule)) return void issues.push({ path: p, message: 'must be an object { conditions, value }' })
        issues.push(...validateConditions(rule.conditions, `${p}.conditions`, segmentKeys, { allowSegmentReferences: true, patterns }))
        if (rule.value !== undefined) issues.push(...checkJsonLimits(rule.value, `${p}.value`))
        else if (!withVariants) issues.push({ path: `${p}.value`, message: 'is required (the value the rule serves)' })
      })
    }
  }
  if (present(rollout)) {
    if (!isObject(rollout)) issues.push({ path: 'targeting.rollout', message: 'must be an object { percentage, attribute }' })
    else {
      const { percentage, attribute } = rollout
      // A weighted distribution instead of a percentage is checked with the variants (validate-variants.ts).
      if (present(rollout.distribution)) {
        if (!withVariants) issues.push({ path: 'targeting.rollout.distribution', message: 'needs variants to split between' })
      } else if (typeof percentage !== 'number' || !Number.isFinite(percentage) || percentage < 0 || percentage > 100) {
        issues.push({ path: 'targeting.rollout.percentage', message: 'must be a number from 0 to 100' })
      }
      if (typeof attribute !== 'string' || attribute === '') {
        issues.push({ path: 'targeting.rollout.attribute', message: 'must be a non-empty string (a context attribute)' })
      }
    }
  }
  if (present(overrides)) {
    if (!isObject(overrides)) issues.push({ path: 'targeting.overrides', message: 'must be an object mapping user_id to a value' })
    else if (!withVariants)
      for (const [userId, v] of Object.entries(overrides)) issues.push(...checkJsonLimits(v, `targeting.overrides.${userId}`))
  }
}

export interface FlagValidationOptions {
  /** Keys of the project's segments (in_segment / not_in_segment must name one). */
  segmentKeys: ReadonlySet<string>
  /** The project's environments; when given, environment overrides must name one. */
  environments?: ReadonlySet<string>
}

/**
 * Validates a whole flag definition (the service merges partial updates first). `key`, `enabled` and
 * `value` are only type-checked when present: the HTTP layer and the service own their defaults.
 */
export function validateFlag(input: unknown, opts: FlagValidationOptions): ValidationIssue[] {
  if (!isObject(input)) return [{ path: '', message: 'must be an object' }]
  const issues: ValidationIssue[] = []
  if (input.key !== undefined && typeof input.key !== 'string') issues.push({ path: 'key', message: 'must be a string' })
  if (input.enabled !== undefined && typeof input.enabled !== 'boolean') issues.push({ path: 'enabled', message: 'must be a boolean' })
  if (input.value !== undefined) issues.push(...checkJsonLimits(input.value, 'value'))
  const withVariants = present(input.variants)
  if (present(input.targeting)) validateTargeting(input.targeting, opts.segmentKeys, withVariants, issues)
  validateVariants(input, issues)
  validatePrerequisiteShape(input, issues)
  validateMetadata(input, issues)

  const ownRules: ValidationIssue[] = []
  if (present(input.environments)) {
    if (!isObject(input.environments))
      issues.push({ path: 'environments', message: 'must be an object mapping environment name to { enabled, value }' })
    else {
      for (const [name, o] of Object.entries(input.environments)) {
        const p = `environments.${name}`
        if (opts.environments && !opts.environments.has(name)) {
          issues.push({ path: p, message: `unknown environment "${name}"` })
          continue
        }
        if (!isObject(o)) {
          issues.push({ path: p, message: 'must be an object { enabled, value? } (or { enabled, variant? })' })
          continue
        }
        if (typeof o.enabled !== 'boolean') issues.push({ path: `${p}.enabled`, message: 'must be a boolean' })
        if (o.value !== undefined) issues.push(...checkJsonLimits(o.value, `${p}.value`))
        if (present(o.targeting)) ownRules.push(...ownRulesIssues(input, name, o.targeting, opts))
      }
    }
  }

  const from = input.active_from
  const until = input.active_until
  if (present(from) && !isIsoDate(from)) issues.push({ path: 'active_from', message: 'must be an ISO 8601 date-time string' })
  if (present(until) && !isIsoDate(until)) issues.push({ path: 'active_until', message: 'must be an ISO 8601 date-time string' })
  if (isIsoDate(from) && isIsoDate(until) && parseIsoDate(from) >= parseIsoDate(until)) {
    issues.push({ path: 'active_until', message: 'must be later than active_from' })
  }
  // A flag with variants: its values are the variants (validate-variants.ts checks they share a type).
  if (input.value !== undefined && !withVariants) issues.push(...valueTypeIssues(input))
  return [...issues.map(labelIssue), ...ownRules]
}

/** An environment's own rules (docs/behaviour.md §4) are checked exactly as the flag's `targeting` would be
 *  (same limits, pattern bounds and variant references; their own pattern total, since one evaluation runs
 *  one targeting), with paths like `environments.production.targeting.rules[0]`. */
function ownRulesIssues(
  flag: Record<string, unknown>,
  environment: string,
  targeting: unknown,
  opts: FlagValidationOptions,
): ValidationIssue[] {
  const alone = { value: flag.value, variants: flag.variants, default_variant: flag.default_variant, targeting }
  return validateFlag(alone, { segmentKeys: opts.segmentKeys })
    .filter((i) => i.path === 'targeting' || i.path.startsWith('targeting.'))
    .map((i) => ({ path: `environments.${environment}.${i.path}`, message: `${environment}'s own rules: ${i.message}` }))
}

/** Every value a flag can answer has the type of its `value` (docs/behaviour.md §8), or is null (an explicit
 *  off value): otherwise a boolean flag could answer "yes". Shapes are checked above; this looks only at
 *  values that are there. Exported (labelled) for the console's editor. */
export const flagValueTypeIssues = (flag: Record<string, unknown>): ValidationIssue[] => valueTypeIssues(flag).map(labelIssue)

function valueTypeIssues(flag: Record<string, unknown>): ValidationIssue[] {
  const type = typeOf(flag.value)
  const article = type === 'object' || type === 'array' ? 'an' : 'a'
  const issues: ValidationIssue[] = []
  const check = (value: unknown, path: string) => {
    if (value !== undefined && value !== null && typeOf(value) !== type)
      issues.push({ path, message: `must be ${article} ${type}, like the flag's value` })
  }
  const targeting = isObject(flag.targeting) ? flag.targeting : {}
  if (Array.isArray(targeting.rules))
    targeting.rules.forEach((rule, i) => isObject(rule) && check(rule.value, `targeting.rules[${i}].value`))
  if (isObject(targeting.overrides))
    for (const [userId, v] of Object.entries(targeting.overrides)) check(v as Json, `targeting.overrides.${userId}`)
  if (isObject(flag.environments))
    for (const [name, o] of Object.entries(flag.environments)) isObject(o) && check(o.value, `environments.${name}.value`)
  return issues
}
