// What importing a document would do to the current state (docs/as-code.md §2): per resource create,
// update, delete (with prune) or unchanged; each change with its RFC 6902 diff from the resource's
// current document form to the new one; every problem of the resulting state; the ordered writes apply
// performs (segments, flags after their prerequisites, configs; deletes in reverse); and a plan id that
// changes whenever anything the plan covers moves. Plan and apply both call this, so apply does exactly
// what the plan said. Pure.
import fastJsonPatch, { type Operation } from 'fast-json-patch'
import { segmentKeysOf } from '../engine'
import type { AnyKind, BodyOf } from '../kinds'
import { entryOf } from './entries'
import { KINDS, RESOURCE_OF, perSection, type DocumentIssue, type FlagshipDocument, type Kind, type ResourceKind } from './model'
import { canonicalEntry, entryText } from './serialize'
import { documentEntries, prerequisiteOrder, validateState, type State } from './validate'

type Body = Record<string, unknown>
export interface StoredResource<B extends Body = Body> {
  key: string
  version: number
  body: B
}
/** The project's stored resources, each kind's with its kind's body. */
export type CurrentState = { environments: readonly string[] } & { [K in AnyKind as K['plural']]: StoredResource<BodyOf<K>>[] }

export type PlanAction = 'create' | 'update' | 'delete'
export interface PlannedChange {
  resource_type: ResourceKind
  key: string
  action: PlanAction
  current_version: number | null
  diff: Operation[]
}
/** One write of apply, in order. `body` is the new stored body (null for a delete). */
export interface Step {
  kind: Kind
  key: string
  action: PlanAction
  fromVersion: number | null
  body: Body | null
}
export interface Plan {
  plan_id: string
  summary: { create: number; update: number; delete: number; unchanged: number }
  changes: PlannedChange[]
  errors: DocumentIssue[]
  /** apply's writes, in order (not sent to clients) */
  steps: Step[]
  /** the version of every resource the plan covers (`kind:key` -> version, null when absent) */
  versions: Map<string, number | null>
}

const withoutKey = (entry: Record<string, unknown>) => {
  const { key: _k, ...rest } = entry
  return rest
}
/** The resource's document form without its key, in canonical order (what `diff` goes between). */
const formOf = (kind: Kind, key: string, body: Body) => withoutKey(canonicalEntry(kind, entryOf(kind, key, body)))

export function planImport(doc: FlagshipDocument, currentState: CurrentState, opts: { prune: boolean }): Plan {
  // Planned as JSON objects: the document's bodies meet the stored ones before either is checked as a kind's.
  const current: Record<Kind, StoredResource[]> = currentState
  const errors: DocumentIssue[] = []
  const { bodies, written } = documentEntries(doc, errors)
  const stored = perSection((k) => new Map(current[k].map((r) => [r.key, r])))
  const envs = new Set(currentState.environments)
  ;(doc.environments ?? []).forEach((e, i) => {
    if (!envs.has(e))
      errors.push({
        path: `environments[${i}]`,
        message: `the project has no environment "${e}" (it has: ${currentState.environments.join(', ')})`,
      })
  })

  // The state after the import: stored resources, overwritten by the document's, less the pruned ones.
  const state = {} as State
  const deleted = perSection((): string[] => [])
  for (const kind of KINDS) {
    const map = new Map<string, Body>()
    const pruning = opts.prune && doc[kind] !== undefined
    deleted[kind] = []
    for (const r of current[kind]) {
      if (pruning && !bodies[kind].has(r.key)) deleted[kind].push(r.key)
      else map.set(r.key, r.body)
    }
    for (const [key, body] of bodies[kind]) map.set(key, body)
    state[kind] = map
  }
  errors.push(...validateState(state, written, { environments: envs, checkSegments: true }))
  // A pruned segment must not be left referenced by a flag the document does not rewrite. Such a flag's body
  // is the stored one (a flag's, as the store keeps it), read here from the planned state's JSON objects.
  for (const segment of deleted.segments) {
    const users = [...state.flags]
      .filter(([k, b]) => !written.index.flags.has(k) && segmentKeysOf(b as never).includes(segment))
      .map(([k]) => k)
    if (users.length)
      errors.push({ path: 'segments', message: `segment "${segment}" would be deleted (prune) but flag(s) ${users.join(', ')} use it` })
  }
  // Archived flags are not editable until restored (as on the API): one write may archive or restore.
  for (const [key, i] of written.index.flags) {
    const before = stored.flags.get(key)?.body
    const after = bodies.flags.get(key)!
    if (
      before?.archived === true &&
      after.archived === true &&
      entryText('flags', entryOf('flags', key, before)) !== entryText('flags', entryOf('flags', key, after))
    ) {
      errors.push({
        path: `flags[${i}]`,
        message: `flag "${key}" is archived; restore it (drop \`archived\`) before changing it, or in a separate import`,
      })
    }
  }

  const changes: PlannedChange[] = []
  const steps: Step[] = []
  const versions = new Map<string, number | null>()
  let unchanged = 0
  const upserts = perSection((): Step[] => [])
  for (const kind of KINDS) {
    const keys = kind === 'flags' ? prerequisiteOrder(bodies.flags.keys(), state.flags) : [...bodies[kind].keys()].sort()
    for (const key of keys) {
      const body = bodies[kind].get(key)!
      const was = stored[kind].get(key)
      versions.set(`${kind}:${key}`, was?.version ?? null)
      if (was) {
        // The archive time is the store's; the document only says whether the flag is archived.
        const kept =
          kind === 'flags' && body.archived === true && was.body.archived === true ? { ...body, archived_at: was.body.archived_at } : body
        if (entryText(kind, entryOf(kind, key, was.body)) === entryText(kind, entryOf(kind, key, body))) unchanged++
        else upserts[kind].push({ kind, key, action: 'update', fromVersion: was.version, body: kept })
      } else upserts[kind].push({ kind, key, action: 'create', fromVersion: null, body })
    }
  }
  const deletes: Step[] = []
  for (const kind of [...KINDS].reverse()) {
    const keys =
      kind === 'flags'
        ? prerequisiteOrder(deleted.flags, new Map(current.flags.map((r) => [r.key, r.body]))).reverse()
        : deleted[kind].sort().reverse()
    for (const key of keys) {
      const was = stored[kind].get(key)!
      versions.set(`${kind}:${key}`, was.version)
      deletes.push({ kind, key, action: 'delete', fromVersion: was.version, body: null })
    }
  }
  steps.push(...KINDS.flatMap((kind) => upserts[kind]), ...deletes)
  for (const s of steps) {
    const was = stored[s.kind].get(s.key)
    const from = was ? formOf(s.kind, s.key, was.body) : {}
    const to = s.body ? formOf(s.kind, s.key, s.body) : {}
    changes.push({
      resource_type: RESOURCE_OF[s.kind],
      key: s.key,
      action: s.action,
      current_version: s.fromVersion,
      diff: fastJsonPatch.compare(from, to),
    })
  }
  const count = (a: PlanAction) => steps.filter((s) => s.action === a).length
  return {
    plan_id: planId(opts.prune, steps, versions),
    summary: { create: count('create'), update: count('update'), delete: count('delete'), unchanged },
    changes,
    errors,
    steps,
    versions,
  }
}

/** A digest of what the plan covers: every resource's current version and every write's new body. */
function planId(prune: boolean, steps: Step[], versions: Map<string, number | null>): string {
  const hash = new Bun.CryptoHasher('sha256')
  hash.update(`prune=${prune}\n`)
  for (const [k, v] of [...versions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) hash.update(`${k}@${v ?? '-'}\n`)
  for (const s of steps) hash.update(`${s.action} ${s.kind}:${s.key} ${s.body ? entryText(s.kind, entryOf(s.kind, s.key, s.body)) : ''}\n`)
  return hash.digest('hex').slice(0, 32)
}

/** The plan as the API answers it (without the internal steps). */
export const planView = (p: Plan) => ({ plan_id: p.plan_id, summary: p.summary, changes: p.changes, errors: p.errors })
