// The document a project's state exports as (docs/as-code.md §2): the selected kinds, narrowed by keys
// and tags, plus what the selected flags need (their segments and prerequisite flags, transitively), so
// the document stands on its own. Pure: the route and offline mode hand it the stored rows.
import { segmentKeysOf } from '../engine'
import type { AnyKind, BodyOf } from '../kinds'
import { entryOf } from './entries'
import { FORMAT_VERSION, KINDS, perSection, type FlagshipDocument, type Kind } from './model'
import { canonicalDocument } from './serialize'

/** A stored resource of a kind, with its kind's body. */
export interface ExportRow<Body extends object = Record<string, unknown>> {
  key: string
  body: Body
}
export interface ExportSelection {
  kinds?: readonly Kind[]
  /** only these keys (of flags and configs; segments by key when asked for alone) */
  keys?: readonly string[]
  /** only flags carrying every one of these tags */
  tags?: readonly string[]
}

export function exportDocument(
  state: { project?: string; environments: readonly string[] } & { [K in AnyKind as K['plural']]: ExportRow<BodyOf<K>>[] },
  sel: ExportSelection = {},
): FlagshipDocument {
  const kinds = new Set(sel.kinds?.length ? sel.kinds : KINDS)
  const keys = sel.keys?.length ? new Set(sel.keys) : undefined
  const tags = sel.tags ?? []
  const flagsByKey = new Map(state.flags.map((r) => [r.key, r.body]))
  const picked = perSection(() => new Set<string>())

  if (kinds.has('flags')) {
    for (const r of state.flags) {
      const t = r.body.tags ?? []
      if ((!keys || keys.has(r.key)) && tags.every((tag) => t.includes(tag))) picked.flags.add(r.key)
    }
    // What the picked flags need: prerequisite flags (transitively) and every segment their rules test.
    const queue = [...picked.flags]
    while (queue.length) {
      const body = flagsByKey.get(queue.pop()!)
      for (const p of body?.prerequisites ?? []) {
        if (flagsByKey.has(p.key) && !picked.flags.has(p.key)) picked.flags.add(p.key), queue.push(p.key)
      }
    }
    for (const key of picked.flags) for (const s of segmentKeysOf(flagsByKey.get(key)!)) picked.segments.add(s)
  }
  if (kinds.has('segments')) for (const r of state.segments) if (!keys || keys.has(r.key)) picked.segments.add(r.key)
  if (kinds.has('configs')) for (const r of state.configs) if (!keys || keys.has(r.key)) picked.configs.add(r.key)

  const doc: FlagshipDocument = {
    flagship: FORMAT_VERSION,
    ...(state.project !== undefined && { project: state.project }),
    environments: [...state.environments],
  }
  for (const kind of KINDS) {
    // A kind is written (even empty) when it was asked for, or when the picked flags need some of it.
    if (!kinds.has(kind) && picked[kind].size === 0) continue
    ;(doc as unknown as Record<Kind, unknown[]>)[kind] = state[kind]
      .filter((r) => picked[kind].has(r.key))
      .map((r) => entryOf(kind, r.key, r.body))
  }
  return canonicalDocument(doc)
}
