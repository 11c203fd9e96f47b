// The parts of a flag's draft that docs/lifecycle.md adds: variants (and the splits and references that name
// them), prerequisites and metadata; made from a stored flag and turned back into flag fields with the
// problems that block saving, as draft.ts does for the rest.
import type { Flag, Json } from '../../api'
import { parseJson, toJsonText } from '../../format'
import { newDraftId } from '../../components/ConditionEditor'
import { evenly, type Slice } from '../../split'
import { KEY_PATTERN } from '../../../../server/engine/names'
import { typeOf } from '../../../../server/engine/value-type'

export interface VariantDraft {
  id: string
  name: string
  valueText: string
}
export interface PrerequisiteDraft {
  id: string
  key: string /** '' requires `valueText` instead */
  variant: string
  valueText: string
}
export interface LifecycleDraft {
  variants: VariantDraft[]
  defaultVariant: string
  /** '' for the off value */
  offVariant: string
  /** a weighted split instead of a percentage (flags with variants) */
  splitOn: boolean
  split: Slice[]
  /** the split as saved, for the "users who move" preview */
  savedSplit: Slice[]
  prerequisites: PrerequisiteDraft[]
  description: string
  tags: string[]
  owner: string
  /** client_side: visible to client keys */
  clientSide: boolean
}

export function toLifecycleDraft(f: Flag): LifecycleDraft {
  const variants = Object.entries(f.variants ?? {}).map(([name, v]) => ({ id: newDraftId(), name, valueText: toJsonText(v) }))
  const distribution = f.targeting?.rollout?.distribution
  const split = distribution
    ? distribution.map((s) => ({ variant: s.variant, hundredths: Math.round(s.weight * 100) }))
    : evenly(variants.map((v) => v.name))
  return {
    variants,
    defaultVariant: f.default_variant ?? variants[0]?.name ?? '',
    offVariant: f.off_variant ?? '',
    splitOn: !!distribution,
    split,
    savedSplit: distribution ? split : [],
    prerequisites: (f.prerequisites ?? []).map((p) => ({
      id: newDraftId(),
      key: p.key,
      variant: p.variant ?? '',
      valueText: p.variant === undefined ? toJsonText(p.value as Json) : 'true',
    })),
    description: f.description ?? '',
    tags: f.tags ?? [],
    owner: f.owner ?? '',
    clientSide: f.client_side === true,
  }
}

/** Turns the lifecycle draft into flag fields; `problems` collects what blocks saving. `variants` is null for
 *  a flag without variants. */
export function fromLifecycleDraft(d: LifecycleDraft, problems: string[]) {
  const json = (text: string, where: string): Json => {
    const r = parseJson(text)
    if (!r.ok) problems.push(`${where}: ${r.error}`)
    return r.ok ? r.value : null
  }
  let variants: Record<string, Json> | null = null
  if (d.variants.length) {
    variants = {}
    let type: string | undefined
    for (const v of d.variants) {
      const name = v.name.trim()
      if (!KEY_PATTERN.test(name)) problems.push(`Variant "${name}": a name of letters, digits, . _ - (at most 128).`)
      else if (name in variants) problems.push(`Variant "${name}" is there twice.`)
      const value = json(v.valueText, `Variant "${name}"`)
      variants[name] = value
      if (value !== null && (type ??= typeOf(value)) !== typeOf(value))
        problems.push(`Variant "${name}": every variant must be a ${type}, like the first.`)
    }
    if (!(d.defaultVariant in variants)) problems.push('Variants: choose the default variant.')
    if (d.offVariant && !(d.offVariant in variants)) problems.push(`Variants: the off variant "${d.offVariant}" is not one of them.`)
  }
  const prerequisites = d.prerequisites.map((p, i) => {
    if (!p.key) problems.push(`Prerequisite ${i + 1}: choose a flag.`)
    return p.variant ? { key: p.key, variant: p.variant } : { key: p.key, value: json(p.valueText, `Prerequisite ${i + 1} value`) }
  })
  const tags = d.tags.filter((t) => t.trim())
  return {
    variants,
    default_variant: variants ? d.defaultVariant : null,
    off_variant: variants && d.offVariant ? d.offVariant : null,
    prerequisites: prerequisites.length ? prerequisites : null,
    description: d.description.trim() || null,
    tags: tags.length ? tags : null,
    owner: d.owner.trim() || null,
    client_side: d.clientSide ? true : null,
  }
}

/** A variant reference that names no variant of the draft: "Rule 2: unknown variant "red"" (so removing a
 *  variant still in use is refused before saving, as the server would). */
export const unknownVariant = (variants: Record<string, Json>, name: string, where: string, problems: string[]) => {
  if (!(name in variants)) problems.push(`${where}: ${name ? `unknown variant "${name}"` : 'choose a variant'}.`)
}
