// Unleash constraints (unleash-client 6 semantics) as our conditions. What differs and how:
// - Context fields: userId, sessionId, remoteAddress, appName are user_id, session_id, remote_address,
//   app_name here (what a Flagship client sends); every other field keeps its name.
// - Values are strings in Unleash; IN / NOT_IN compare strings exactly (caseInsensitive does not apply).
//   STR_* hold when any value matches: one case-sensitive value is starts_with / ends_with / contains,
//   several values or caseInsensitive become one RE2 `matches` pattern ((?i) for caseInsensitive).
// - NUM_EQ is "at least and at most" (our `equals` compares types exactly); SEMVER_GTE / SEMVER_LTE are
//   "greater (less) or equal" as two alternatives.
// - `inverted` negates exactly (logic.ts): a missing field fails every operator in Unleash, so an
//   inverted constraint on it holds, as the negation of our condition does.
// - DATE_AFTER / DATE_BEFORE compare the current time (context.currentTime, else now), whatever the
//   field: decided at conversion time, and reported when the answer changes at a later date.
// - IN_CIDR and unknown operators have no equivalent: the caller drops the strategy and reports it.
import type { Condition } from '../../engine'
import { and, FALSE, lit, not, or, TRUE, type Dnf } from './logic'

export interface UnleashConstraint {
  contextName: string
  operator: string
  values?: string[]
  value?: string
  inverted?: boolean
  caseInsensitive?: boolean
}

export const FIELD_NAMES: Record<string, string> = {
  userId: 'user_id',
  sessionId: 'session_id',
  remoteAddress: 'remote_address',
  appName: 'app_name',
}
export const fieldOf = (name: string): string => FIELD_NAMES[name] ?? name

/** The outcome: a predicate; `note` when it is exact only until a date; `unmapped` when there is none. */
export type Mapped = { dnf: Dnf; note?: string } | { unmapped: string }

const escapeRe = (s: string) => s.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')
// Unleash drops empty values and trims the rest before comparing.
const cleaned = (values: string[] | undefined) => (values ?? []).filter((v) => !!v).map((v) => v.trim())

function stringOperator(c: UnleashConstraint, property: string): Dnf {
  const values = cleaned(c.values)
  if (values.length === 0) return FALSE
  const simple: Record<string, Condition['operator']> = {
    STR_STARTS_WITH: 'starts_with',
    STR_ENDS_WITH: 'ends_with',
    STR_CONTAINS: 'contains',
  }
  if (values.length === 1 && !c.caseInsensitive) return lit({ property, operator: simple[c.operator]!, value: values[0]! })
  const alternatives = values.map(escapeRe).join('|')
  const body =
    c.operator === 'STR_STARTS_WITH'
      ? `^(?:${alternatives})`
      : c.operator === 'STR_ENDS_WITH'
        ? `(?:${alternatives})$`
        : `(?:${alternatives})`
  return lit({ property, operator: 'matches', value: `${c.caseInsensitive ? '(?i)' : ''}${body}` })
}

const NUMERIC: Record<string, Condition['operator']> = {
  NUM_GT: 'greater_than',
  NUM_GTE: 'greater_than_or_equal',
  NUM_LT: 'less_than',
  NUM_LTE: 'less_than_or_equal',
}
const SEMVER_VALID = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/

function positive(c: UnleashConstraint, now: number): Mapped {
  const property = fieldOf(c.contextName)
  const value = c.value ?? cleaned(c.values)[0] ?? ''
  switch (c.operator) {
    case 'IN':
    case 'NOT_IN':
      return { dnf: lit({ property, operator: c.operator === 'IN' ? 'in' : 'not_in', value: cleaned(c.values) }) }
    case 'STR_STARTS_WITH':
    case 'STR_ENDS_WITH':
    case 'STR_CONTAINS':
      return { dnf: stringOperator(c, property) }
    case 'NUM_EQ':
    case 'NUM_GT':
    case 'NUM_GTE':
    case 'NUM_LT':
    case 'NUM_LTE': {
      const n = Number(value)
      if (value.trim() === '' || !Number.isFinite(n)) return { dnf: FALSE } // Unleash: NaN never matches
      if (c.operator === 'NUM_EQ')
        return {
          dnf: and(
            lit({ property, operator: 'greater_than_or_equal', value: n }),
            lit({ property, operator: 'less_than_or_equal', value: n }),
          ),
        }
      return { dnf: lit({ property, operator: NUMERIC[c.operator]!, value: n }) }
    }
    case 'SEMVER_EQ':
    case 'SEMVER_GT':
    case 'SEMVER_LT':
    case 'SEMVER_GTE':
    case 'SEMVER_LTE': {
      if (!SEMVER_VALID.test(value)) return { dnf: FALSE }
      const eq = lit({ property, operator: 'semver_equals', value })
      const gt = lit({ property, operator: 'semver_greater_than', value })
      const lt = lit({ property, operator: 'semver_less_than', value })
      const by: Record<string, Dnf> = { SEMVER_EQ: eq, SEMVER_GT: gt, SEMVER_LT: lt, SEMVER_GTE: or(gt, eq), SEMVER_LTE: or(lt, eq) }
      return { dnf: by[c.operator]! }
    }
    case 'REGEX':
      return { dnf: lit({ property, operator: 'matches', value: `${c.caseInsensitive ? '(?i)' : ''}${value}` }) }
    case 'DATE_AFTER':
    case 'DATE_BEFORE': {
      const at = Date.parse(value)
      if (Number.isNaN(at)) return { dnf: FALSE }
      const holds = c.operator === 'DATE_AFTER' ? now > at : now < at
      // Does the answer change later? AFTER turns true after `at`, BEFORE turns false at `at`.
      const changes = at >= now
      const when = new Date(at).toISOString()
      const note = changes
        ? `${c.operator} ${when} compares the current time: it ${holds ? 'holds' : 'does not hold'} now and was converted so; ` +
          `from ${when} Unleash answers otherwise (change the flag then, e.g. with a schedule)`
        : undefined
      return { dnf: holds !== !!c.inverted ? TRUE : FALSE, note }
    }
    default:
      return { unmapped: `operator ${c.operator} has no equivalent` }
  }
}

/** One constraint as a predicate over our contexts (see the header for what is not exact). */
export function mapConstraint(c: UnleashConstraint, now: number): Mapped {
  const m = positive(c, now)
  if ('unmapped' in m) return m
  // Dates fold `inverted` in themselves (their predicate is a constant).
  if (!c.inverted || c.operator.startsWith('DATE_')) return m
  return { dnf: not(m.dnf), note: m.note }
}
