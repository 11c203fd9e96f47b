// What a flag's prerequisites mean for the rest of the project (docs/lifecycle.md §2): each names an existing,
// live flag and (for `variant`) one of its variants; no cycle, however long, counting the write being made;
// and a flag others require may not lose the variants they name, be archived or be deleted.
import {
  MAX_PREREQUISITE_CHAIN,
  MAX_PREREQUISITE_REACH,
  prerequisiteCycle,
  prerequisiteReach,
  type Prerequisite,
  type ValidationIssue,
} from '../engine'
import type { DocumentRow } from '../store/documents'
import { inUse } from '../errors'
import { isArchived, type FlagBody } from './flag-body'

const prerequisitesOf = (body: FlagBody): Prerequisite[] => (Array.isArray(body.prerequisites) ? body.prerequisites : [])

/** Keys of the flags whose prerequisites name `key`. */
export const flagsRequiring = (flags: DocumentRow<FlagBody>[], key: string): string[] =>
  flags.filter((f) => f.key !== key && prerequisitesOf(f.body).some((p) => p.key === key)).map((f) => f.key)

/** 409 IN_USE when other flags require `key` (before deleting or archiving it). */
export function refuseIfRequired(flags: DocumentRow<FlagBody>[], key: string, doing: 'deleted' | 'archived'): void {
  const users = flagsRequiring(flags, key)
  if (users.length)
    throw inUse(`Flag "${key}" is a prerequisite of ${users.length} flag(s); it cannot be ${doing} while they require it`, { flags: users })
}

/** Problems of `body` (the flag `key` about to be stored) against the project's other flags. */
export function graphIssues(key: string, body: FlagBody, rows: DocumentRow<FlagBody>[]): ValidationIssue[] {
  const issues: ValidationIssue[] = []
  const flags = new Map(rows.map((r) => [r.key, r.body]))
  prerequisitesOf(body).forEach((p, i) => {
    const path = `prerequisites[${i}]`
    const other = flags.get(p.key)
    if (p.key === key) return
    if (!other) return void issues.push({ path: `${path}.key`, message: `unknown flag "${p.key}"` })
    if (isArchived(other)) return void issues.push({ path: `${path}.key`, message: `flag "${p.key}" is archived` })
    if (typeof p.variant === 'string') {
      const variants = other.variants
      if (!variants) issues.push({ path: `${path}.variant`, message: `flag "${p.key}" has no variants; require a value instead` })
      else if (!Object.hasOwn(variants, p.variant))
        issues.push({
          path: `${path}.variant`,
          message: `unknown variant "${p.variant}" of flag "${p.key}"; it has: ${Object.keys(variants).join(', ')}`,
        })
    }
  })
  const keysOf = (b: FlagBody | undefined) => (b ? prerequisitesOf(b).map((p) => p.key) : [])
  const cycle = issues.length === 0 ? prerequisiteCycle(key, keysOf(body), (k) => keysOf(flags.get(k))) : null
  if (cycle) issues.push({ path: 'prerequisites', message: `would create a cycle: ${cycle.join(' → ')}` })
  else if (issues.length === 0) issues.push(...boundIssues(key, keysOf(body), (k) => keysOf(flags.get(k)), rows))
  // Variants other flags require must stay.
  const variants = body.variants ?? {}
  for (const row of rows) {
    if (row.key === key) continue
    for (const p of prerequisitesOf(row.body)) {
      if (p.key === key && typeof p.variant === 'string' && !Object.hasOwn(variants, p.variant)) {
        issues.push({ path: 'variants', message: `variant "${p.variant}" is required by flag "${row.key}" (its prerequisites)` })
      }
    }
  }
  return issues
}

/** The graph's bounds (docs/behaviour.md §8), for the flag being written and for every flag that requires it
 *  directly or through others (their chains and reach grow with its prerequisites). */
function boundIssues(
  key: string,
  required: string[],
  requiredBy: (k: string) => string[],
  rows: DocumentRow<FlagBody>[],
): ValidationIssue[] {
  const edges = (k: string) => (k === key ? required : requiredBy(k))
  const dependents = new Map<string, string[]>()
  for (const row of rows) {
    if (row.key === key) continue
    for (const p of requiredBy(row.key)) dependents.set(p, [...(dependents.get(p) ?? []), row.key])
  }
  const affected = [key]
  const seen = new Set(affected)
  for (let i = 0; i < affected.length; i++) {
    for (const d of dependents.get(affected[i]!) ?? []) if (!seen.has(d)) seen.add(d), affected.push(d)
  }
  const cache = new Map()
  for (const k of affected) {
    const { depth, reach } = prerequisiteReach(k, edges, MAX_PREREQUISITE_REACH, cache)
    const who = k === key ? 'this flag' : `flag "${k}" (which requires this flag)`
    if (depth > MAX_PREREQUISITE_CHAIN)
      return [
        {
          path: 'prerequisites',
          message: `would give ${who} a chain of prerequisites ${depth} flags deep; at most ${MAX_PREREQUISITE_CHAIN} allowed`,
        },
      ]
    if (reach > MAX_PREREQUISITE_REACH)
      return [
        {
          path: 'prerequisites',
          message:
            `would let ${who} reach more than ${MAX_PREREQUISITE_REACH} flags through its prerequisites; ` +
            `at most ${MAX_PREREQUISITE_REACH} allowed`,
        },
      ]
  }
  return []
}
