// An import plan as change-request items (docs/as-code.md §2, mode=propose): each write of the plan, in
// its order, as the body its direct route takes, pinned to the version the plan read. An update's body
// is the whole new entry, with `null` for each field the stored resource has and the entry no longer
// does (the direct update merges), so applying the request leaves exactly what the document says. A
// flag's archive state is not part of an update: archiving and restoring are items of their own. Pure.
import { FLAG_CLEARABLE_FIELDS } from '../schemas/flag'
import { entryOf } from './entries'
import { RESOURCE_OF, type Kind, type ResourceKind } from './model'
import type { CurrentState, Plan, Step } from './plan'
import { entryText } from './serialize'

type Body = Record<string, unknown>
export interface ProposedItem {
  resource_type: ResourceKind
  key: string
  action: 'create' | 'update' | 'delete' | 'archive' | 'restore'
  body?: Body
  base_version: number | null
}

/** The fields of a stored body that the direct update clears with `null`. */
const CLEARABLE: Record<Kind, ReadonlySet<string>> = {
  flags: FLAG_CLEARABLE_FIELDS,
  configs: new Set(['environments']),
  segments: new Set(),
}

/** A stored body in document form, without its key and archive state (what create and update take). */
function contentOf(kind: Kind, key: string, body: Body): Body {
  const { key: _k, archived: _a, ...rest } = entryOf(kind, key, body)
  return rest
}

function itemsOfStep(step: Step, stored: Body | undefined): ProposedItem[] {
  const type = RESOURCE_OF[step.kind]
  const base = { resource_type: type, key: step.key, base_version: step.fromVersion }
  if (step.action === 'delete') return [{ ...base, action: 'delete' }]
  const next = contentOf(step.kind, step.key, step.body!)
  const archive = step.kind === 'flags' && step.body!.archived === true
  if (step.action === 'create')
    return [{ ...base, action: 'create', body: { key: step.key, ...next } }, ...(archive ? [{ ...base, action: 'archive' as const }] : [])]
  const was = contentOf(step.kind, step.key, stored!)
  const wasArchived = step.kind === 'flags' && stored!.archived === true
  const items: ProposedItem[] = []
  // A restore comes first (an archived flag is not editable); an archive last.
  if (wasArchived && !archive) items.push({ ...base, action: 'restore' })
  if (entryText(step.kind, { key: step.key, ...was }) !== entryText(step.kind, { key: step.key, ...next })) {
    const cleared = Object.fromEntries(
      Object.keys(was)
        .filter((f) => CLEARABLE[step.kind].has(f) && !Object.hasOwn(next, f))
        .map((f) => [f, null]),
    )
    items.push({ ...base, action: 'update', body: { ...cleared, ...next } })
  }
  if (archive && !wasArchived) items.push({ ...base, action: 'archive' })
  return items
}

/** The items of a plan (without errors) made against `current`, in the plan's order. */
export function proposalItems(plan: Plan, current: CurrentState): ProposedItem[] {
  const stored = (kind: Kind, key: string) => current[kind].find((r) => r.key === key)?.body
  return plan.steps.flatMap((step) => itemsOfStep(step, stored(step.kind, step.key)))
}
