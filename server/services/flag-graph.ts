// What a flag's prerequisites mean for the rest of the project (docs/lifecycle.md §2): each names an existing,
// live flag and (for `variant`) one of its variants; no cycle, however long, counting the write being made;
// and a flag others require may not lose the variants they name, be archived or be deleted.
import { prerequisiteCycle, type Prerequisite, type ValidationIssue } from '../engine'
import type { DocumentRow } from '../store/documents'
import { AppError } from './errors'
import { isArchived } from './flag-body'

type Body = Record<string, unknown>
const prerequisitesOf = (body: Body): Prerequisite[] => (Array.isArray(body.prerequisites) ? (body.prerequisites as Prerequisite[]) : [])

/** Keys of the flags whose prerequisites name `key`. */
export const flagsRequiring = (flags: DocumentRow[], key: string): string[] =>
  flags.filter((f) => f.key !== key && prerequisitesOf(f.body).some((p) => p.key === key)).map((f) => f.key)

/** 409 IN_USE when other flags require `key` (before deleting or archiving it). */
export function refuseIfRequired(flags: DocumentRow[], key: string, doing: 'deleted' | 'archived'): void {
  const users = flagsRequiring(flags, key)
  if (users.length) throw new AppError(409, 'IN_USE', `Flag "${key}" is a prerequisite of ${users.length} flag(s); it cannot be ${doing} while they require it`, { flags: users })
}

/** Problems of `body` (the flag `key` about to be stored) against the project's other flags. */
export function graphIssues(key: string, body: Body, rows: DocumentRow[]): ValidationIssue[] {
  const issues: ValidationIssue[] = []
  const flags = new Map(rows.map((r) => [r.key, r.body as Body]))
  prerequisitesOf(body).forEach((p, i) => {
    const path = `prerequisites[${i}]`
    const other = flags.get(p.key)
    if (p.key === key) return
    if (!other) return void issues.push({ path: `${path}.key`, message: `unknown flag "${p.key}"` })
    if (isArchived(other)) return void issues.push({ path: `${path}.key`, message: `flag "${p.key}" is archived` })
    if (typeof p.variant === 'string') {
      const variants = other.variants as Record<string, unknown> | null | undefined
      if (!variants) issues.push({ path: `${path}.variant`, message: `flag "${p.key}" has no variants; require a value instead` })
      else if (!Object.hasOwn(variants, p.variant)) issues.push({ path: `${path}.variant`, message: `unknown variant "${p.variant}" of flag "${p.key}"; it has: ${Object.keys(variants).join(', ')}` })
    }
  })
  const keysOf = (b: Body | undefined) => prerequisitesOf(b ?? {}).map((p) => p.key)
  const cycle = issues.length === 0 ? prerequisiteCycle(key, keysOf(body), (k) => keysOf(flags.get(k))) : null
  if (cycle) issues.push({ path: 'prerequisites', message: `would create a cycle: ${cycle.join(' → ')}` })
  // Variants other flags require must stay.
  const variants = (body.variants ?? {}) as Record<string, unknown>
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
