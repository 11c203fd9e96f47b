// The meaning of a set of resources, checked as a whole (docs/as-code.md): what the flag, config and
// segment services refuse on a write, applied to the state a document leads to, so a plan reports every
// problem at once and apply never half-fails on validation. Keys unique and well formed, environments
// known, segment and prerequisite references resolved against the final state (deleted ones included),
// no prerequisite cycle however long. Pure: the CLI's offline `validate` and the server's plan share it.
import { checkJsonLimits, KEY_PATTERN, ENV_PATTERN, labelIssue, validateConditions, validateFlag, type ValidationIssue } from '../engine'
import { bodyOf } from './entries'
import { KINDS, perSection, type DocumentIssue, type FlagshipDocument, type Kind } from './model'

type Body = Record<string, unknown>
/** The state being checked: each kind's bodies by key. */
export type State = Record<Kind, Map<string, Body>>
/** Which keys the document writes (only these get the full per-resource check), and where each entry
 *  sits in the document (for error paths). */
export interface Written {
  index: Record<Kind, Map<string, number>>
}

const ANY: ReadonlySet<string> = { has: () => true } as unknown as ReadonlySet<string>
const isObject = (v: unknown): v is Body => v !== null && typeof v === 'object' && !Array.isArray(v)
const prerequisitesOf = (b: Body | undefined): { key: string; variant?: unknown }[] =>
  Array.isArray(b?.prerequisites) ? (b.prerequisites as { key: string }[]) : []

/** The entries of the document: duplicate and malformed keys reported; bodies built as create does. */
export function documentEntries(
  doc: FlagshipDocument,
  issues: DocumentIssue[],
): { bodies: Record<Kind, Map<string, Body>>; written: Written } {
  const bodies = perSection(() => new Map<string, Body>())
  const index = perSection(() => new Map<string, number>())
  for (const kind of KINDS) {
    ;(doc[kind] as { key: string }[] | undefined)?.forEach((entry, i) => {
      const at = `${kind}[${i}]`
      if (!KEY_PATTERN.test(entry.key))
        return void issues.push({ path: `${at}.key`, message: 'must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' })
      if (index[kind].has(entry.key))
        return void issues.push({
          path: `${at}.key`,
          message: `"${entry.key}" is defined twice (also ${kind}[${index[kind].get(entry.key)}])`,
        })
      index[kind].set(entry.key, i)
      const found: ValidationIssue[] = []
      bodies[kind].set(entry.key, bodyOf(kind, entry, found))
      for (const f of found) issues.push({ path: `${at}.${f.path}`, message: f.message })
    })
  }
  ;(doc.environments ?? []).forEach((e, i) => {
    if (!ENV_PATTERN.test(e)) issues.push({ path: `environments[${i}]`, message: 'must match ^[a-z0-9][a-z0-9_-]{0,62}$' })
    else if (doc.environments!.indexOf(e) !== i) issues.push({ path: `environments[${i}]`, message: `"${e}" is listed twice` })
  })
  return { bodies, written: { index } }
}

/** Problems of `state` for the written keys. `environments` / segment keys undefined: not checked (an
 *  offline document that lists none). `deleted`: keys the change removes, so references to them fail. */
export function validateState(
  state: State,
  written: Written,
  opts: { environments?: ReadonlySet<string>; checkSegments: boolean },
): DocumentIssue[] {
  const issues: DocumentIssue[] = []
  const at = (kind: Kind, key: string, path: string) => `${kind}[${written.index[kind].get(key)}]${path ? `.${path}` : ''}`
  const push = (kind: Kind, key: string) => (i: ValidationIssue) => issues.push({ path: at(kind, key, i.path), message: i.message })
  const segmentKeys = opts.checkSegments ? new Set(state.segments.keys()) : ANY

  for (const key of written.index.segments.keys()) {
    validateConditions(state.segments.get(key)!.conditions, 'conditions', segmentKeys).map(labelIssue).forEach(push('segments', key))
  }
  for (const key of written.index.flags.keys()) {
    validateFlag({ key, ...state.flags.get(key)! }, { segmentKeys, ...(opts.environments && { environments: opts.environments }) }).forEach(
      push('flags', key),
    )
  }
  for (const key of written.index.configs.keys()) {
    const body = state.configs.get(key)!
    const found = checkJsonLimits(body.value, 'value')
    for (const [env, o] of Object.entries((body.environments ?? {}) as Body)) {
      if (opts.environments && !opts.environments.has(env))
        found.push({ path: `environments.${env}`, message: `unknown environment "${env}"` })
      else if (!isObject(o) || !('value' in o)) found.push({ path: `environments.${env}`, message: 'must be an object { value }' })
      else found.push(...checkJsonLimits(o.value, `environments.${env}.value`))
    }
    found.forEach(push('configs', key))
  }
  issues.push(...graphIssues(state, written))
  return issues
}

/** Prerequisites over the whole final state: each names an existing flag (live, unless the requirer is
 *  archived too) and, for `variant`, one of its variants; and no cycle. Reported at the requiring entry
 *  when the document has it, else at the required one (whose change broke it). */
function graphIssues(state: State, written: Written): DocumentIssue[] {
  const issues: DocumentIssue[] = []
  const flags = state.flags
  const where = (requirer: string, required: string, path: string) =>
    written.index.flags.has(requirer)
      ? `flags[${written.index.flags.get(requirer)}].${path}`
      : written.index.flags.has(required)
        ? `flags[${written.index.flags.get(required)}]`
        : 'flags'
  for (const [key, body] of flags) {
    if (body.archived === true) continue
    prerequisitesOf(body).forEach((p, i) => {
      const path = `prerequisites[${i}]`
      const other = flags.get(p.key)
      if (p.key === key) return
      if (!other)
        return void issues.push({ path: where(key, p.key, `${path}.key`), message: `flag "${key}" requires unknown flag "${p.key}"` })
      if (other.archived === true)
        return void issues.push({ path: where(key, p.key, `${path}.key`), message: `flag "${key}" requires archived flag "${p.key}"` })
      if (typeof p.variant === 'string') {
        const variants = other.variants as Body | undefined
        if (!variants)
          issues.push({ path: where(key, p.key, `${path}.variant`), message: `flag "${p.key}" has no variants; require a value instead` })
        else if (!Object.hasOwn(variants, p.variant))
          issues.push({ path: where(key, p.key, `${path}.variant`), message: `unknown variant "${p.variant}" of flag "${p.key}"` })
      }
    })
  }
  const cycle = findCycle(flags)
  if (cycle)
    issues.push({ path: where(cycle[0]!, cycle[1]!, 'prerequisites'), message: `prerequisites form a cycle: ${cycle.join(' → ')}` })
  return issues
}

/** A prerequisite cycle (first key repeated at the end), by one iterative depth-first search. */
export function findCycle(flags: Map<string, Body>): string[] | null {
  const state = new Map<string, 1 | 2>() // 1: on the current path, 2: done
  for (const start of flags.keys()) {
    if (state.has(start)) continue
    const path: string[] = []
    const stack: { key: string; next: number }[] = [{ key: start, next: 0 }]
    state.set(start, 1)
    path.push(start)
    while (stack.length) {
      const top = stack[stack.length - 1]!
      const reqs = prerequisitesOf(flags.get(top.key))
        .map((p) => p.key)
        .filter((k) => k !== top.key && flags.has(k))
      if (top.next >= reqs.length) {
        state.set(top.key, 2)
        stack.pop()
        path.pop()
        continue
      }
      const k = reqs[top.next++]!
      if (state.get(k) === 1) return [...path.slice(path.indexOf(k)), k]
      if (state.has(k)) continue
      state.set(k, 1)
      path.push(k)
      stack.push({ key: k, next: 0 })
    }
  }
  return null
}

/** Flags in dependency order: each after the flags it requires. */
export function prerequisiteOrder(keys: Iterable<string>, flags: Map<string, Body>): string[] {
  const out: string[] = []
  const seen = new Set<string>()
  const wanted = new Set(keys)
  const visit = (k: string, depth: number) => {
    if (seen.has(k) || depth > flags.size) return
    seen.add(k)
    for (const p of prerequisitesOf(flags.get(k))) if (wanted.has(p.key)) visit(p.key, depth + 1)
    out.push(k)
  }
  for (const k of [...wanted].sort()) visit(k, 0)
  return out
}

/** The offline check of a document on its own (the CLI's `validate`): its environments (when listed)
 *  and its own segments (when it has a `segments` list) are the only ones references may name. */
export function validateDocument(doc: FlagshipDocument): DocumentIssue[] {
  const issues: DocumentIssue[] = []
  const { bodies, written } = documentEntries(doc, issues)
  issues.push(
    ...validateState(bodies, written, {
      ...(doc.environments && { environments: new Set(doc.environments) }),
      checkSegments: doc.segments !== undefined,
    }),
  )
  return issues
}
