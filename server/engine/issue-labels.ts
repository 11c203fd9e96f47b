// Where in a flag or segment a validation problem is, said the way the console shows it: rules and
// conditions counted from 1 ("Rule 1, condition 2: value must be a finite number"), overrides by user,
// environments by name. The machine path (`targeting.rules[0].conditions[1].value`) stays in the issue's
// `path`; the label goes into its `message`, so every client shows the same words.
import type { ValidationIssue } from './types'

const PLACES: [RegExp, (m: RegExpExecArray) => string][] = [
  [/^targeting\.rules\[(\d+)\]\.conditions\[(\d+)\]/, (m) => `Rule ${Number(m[1]) + 1}, condition ${Number(m[2]) + 1}`],
  [/^targeting\.rules\[(\d+)\]/, (m) => `Rule ${Number(m[1]) + 1}`],
  [/^targeting\.overrides\.(.+)$/, (m) => `Override for user ${m[1]}`],
  [/^targeting\.rollout\.distribution\[(\d+)\]/, (m) => `Distribution slice ${Number(m[1]) + 1}`],
  [/^targeting\.rollout/, () => 'Rollout'],
  [/^prerequisites\[(\d+)\]/, (m) => `Prerequisite ${Number(m[1]) + 1}`],
  [/^variants\.(.+)$/, (m) => `Variant ${m[1]}`],
  [/^environments\.([^.]+)/, (m) => `Environment ${m[1]}`],
  [/^conditions\[(\d+)\]/, (m) => `Condition ${Number(m[1]) + 1}`],
]

/** `{ place, field }` for a path inside a rule, condition, override, rollout or environment; undefined
 *  for top-level fields. `field` is what is left of the path (`value`, `operator`, `value[2]`, or ''). */
export function placeOf(path: string): { place: string; field: string } | undefined {
  for (const [re, name] of PLACES) {
    const m = re.exec(path)
    if (m) {
      const rest = path.slice(m[0].length).replace(/^\./, '')
      return { place: name(m), field: re.source.endsWith('$') ? '' : rest }
    }
  }
  return undefined
}

/** "Rule 1, condition 2: value must be …" for an issue inside a rule (etc.); other issues unchanged. */
export function labelIssue(issue: ValidationIssue): ValidationIssue {
  const where = placeOf(issue.path)
  if (!where) return issue
  return { path: issue.path, message: `${where.place}: ${where.field ? `${where.field} ` : ''}${issue.message}` }
}
