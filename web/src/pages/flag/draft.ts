// The editable form of a flag: the draft the editor's fields hold, made from a stored flag and turned back
// into flag fields (or the problems that block saving), checked as the server checks them.
import type { Flag, Json, Rule, Targeting } from '../../api'
import { isoToLocalInput, localInputToIso, parseJson, toJsonText } from '../../format'
import { conditionToDraft, draftsToConditions, newDraftId, type ConditionDraft } from '../../components/ConditionEditor'
import type { Built } from '../../components/DocumentEditor'
import { flagValueTypeIssues } from '../../../../server/engine/validate'
import { fromLifecycleDraft, toLifecycleDraft, unknownVariant, type LifecycleDraft } from './draft-lifecycle'

// `variant`: what the rule, override or environment serves when the flag has variants (instead of the value).
export interface RuleDraft {
  id: string
  conditions: ConditionDraft[]
  valueText: string
  variant: string
}
export interface OverrideDraft {
  id: string
  userId: string
  valueText: string
  variant: string
}
/** The parts of a draft one `targeting` is made of: the flag's, or an environment's own rules. */
export type TargetingDraft = Pick<
  FlagDraft,
  'rules' | 'overrides' | 'rolloutOn' | 'percentage' | 'attribute' | 'splitOn' | 'split' | 'savedSplit'
>
/** `own`: the environment's own rules (docs/flag-switches.md), null while it uses the flag's. */
export interface EnvDraft {
  overridden: boolean
  enabled: boolean
  hasValue: boolean
  valueText: string
  variant: string
  own: TargetingDraft | null
}
export interface FlagDraft extends LifecycleDraft {
  enabled: boolean
  valueText: string
  rules: RuleDraft[]
  overrides: OverrideDraft[]
  rolloutOn: boolean
  percentage: string
  attribute: string
  envs: Record<string, EnvDraft>
  activeFrom: string
  activeUntil: string
}

/** The editable fields of a flag, with empty optional parts normalised so equal flags compare equal. */
export type FlagBody = Pick<
  Flag,
  | 'enabled'
  | 'value'
  | 'targeting'
  | 'environments'
  | 'active_from'
  | 'active_until'
  | 'variants'
  | 'default_variant'
  | 'off_variant'
  | 'prerequisites'
> & { description: string | null; tags: string[] | null; owner: string | null; client_side: boolean | null }

function normaliseTargeting(t: Targeting | null | undefined): Targeting | null {
  if (!t) return null
  const out: Targeting = {}
  if (t.rules?.length) out.rules = t.rules
  if (t.overrides && Object.keys(t.overrides).length) out.overrides = t.overrides
  if (t.rollout) out.rollout = t.rollout
  return Object.keys(out).length ? out : null
}

export function bodyOf(f: Flag): FlagBody {
  return {
    enabled: f.enabled,
    value: f.value,
    targeting: normaliseTargeting(f.targeting),
    environments: f.environments ?? {},
    active_from: f.active_from ?? null,
    active_until: f.active_until ?? null,
    variants: f.variants ?? null,
    default_variant: f.default_variant ?? null,
    off_variant: f.off_variant ?? null,
    prerequisites: f.prerequisites?.length ? f.prerequisites : null,
    description: f.description || null,
    tags: f.tags?.length ? f.tags : null,
    owner: f.owner || null,
    client_side: f.client_side ? true : null,
  }
}

/** One `targeting` as a draft (the split's parts as toLifecycleDraft makes them). */
export function targetingDraftOf(f: Flag, targeting: Targeting | null | undefined): TargetingDraft {
  const t = targeting ?? {}
  const { splitOn, split, savedSplit } = toLifecycleDraft({ ...f, targeting: t })
  return {
    rules: (t.rules ?? []).map((r) => ({
      id: newDraftId(),
      conditions: r.conditions.map(conditionToDraft),
      valueText: toJsonText(r.value ?? f.value),
      variant: r.variant ?? '',
    })),
    overrides: Object.entries(t.overrides ?? {}).map(([userId, v]) => ({
      id: newDraftId(),
      userId,
      valueText: toJsonText(v, false),
      variant: typeof v === 'string' ? v : '',
    })),
    rolloutOn: !!t.rollout,
    percentage: t.rollout?.percentage !== undefined ? String(t.rollout.percentage) : '50',
    attribute: t.rollout?.attribute ?? 'user_id',
    splitOn,
    split,
    savedSplit,
  }
}

/** A copy of the flag's rules as a draft of an environment's own (Give <env> its own rules). */
export const copyOfTargeting = (d: FlagDraft): TargetingDraft => ({
  rules: d.rules.map((r) => ({ ...r, id: newDraftId(), conditions: r.conditions.map((c) => ({ ...c, id: newDraftId() })) })),
  overrides: d.overrides.map((o) => ({ ...o, id: newDraftId() })),
  rolloutOn: d.rolloutOn,
  percentage: d.percentage,
  attribute: d.attribute,
  splitOn: d.splitOn,
  split: [...d.split],
  savedSplit: [],
})

export function toDraft(f: Flag, environments: string[]): FlagDraft {
  const envs: Record<string, EnvDraft> = {}
  for (const env of new Set([...environments, ...Object.keys(f.environments ?? {})])) {
    const o = f.environments?.[env]
    const hasValue = o?.value !== undefined || o?.variant !== undefined
    envs[env] = {
      overridden: !!o,
      enabled: o?.enabled ?? f.enabled,
      hasValue,
      valueText: toJsonText(o?.value !== undefined ? o.value : f.value),
      variant: o?.variant ?? f.default_variant ?? '',
      own: o?.targeting ? targetingDraftOf(f, o.targeting) : null,
    }
  }
  return {
    enabled: f.enabled,
    valueText: toJsonText(f.value),
    ...targetingDraftOf(f, f.targeting),
    envs,
    activeFrom: isoToLocalInput(f.active_from),
    activeUntil: isoToLocalInput(f.active_until),
    ...toLifecycleDraft(f),
  }
}

/** The draft as flag fields, or the problems that block saving. */
export function fromDraft(d: FlagDraft, base: Flag): Built<FlagBody> {
  const problems: string[] = []
  const ownRulesForTypes: { rules: Rule[]; overrides: Record<string, Json> }[] = []
  const json = (text: string, where: string): Json => {
    const r = parseJson(text)
    if (!r.ok) problems.push(`${where}: ${r.error}`)
    return r.ok ? r.value : null
  }
  const lifecycle = fromLifecycleDraft(d, problems)
  const variants = lifecycle.variants
  // A flag with variants serves variants: its value mirrors the default one, the rest name theirs.
  const value = variants ? (variants[d.defaultVariant] ?? null) : json(d.valueText, 'Value')
  // One targeting (the flag's, or an environment's own rules: `where` names it in problems).
  const targetingOf = (t: TargetingDraft, where: string) => {
    const rules: Rule[] = t.rules.map((r, i) => {
      const c = draftsToConditions(r.conditions, `${where}Rule ${i + 1}`)
      if (!c.ok) problems.push(c.error)
      if (variants) unknownVariant(variants, r.variant, `${where}Rule ${i + 1}`, problems)
      return variants
        ? { conditions: c.ok ? c.conditions : [], variant: r.variant }
        : { conditions: c.ok ? c.conditions : [], value: json(r.valueText, `${where}Rule ${i + 1} value`) }
    })
    const overrides: Record<string, Json> = {}
    for (const o of t.overrides) {
      const id = o.userId.trim()
      if (!id) problems.push(`${where}Individual targeting: every row needs a user id.`)
      else if (id in overrides) problems.push(`${where}Individual targeting: user "${id}" appears twice.`)
      if (variants) unknownVariant(variants, o.variant, `${where}Override for user "${id}"`, problems)
      overrides[id] = variants ? o.variant : json(o.valueText, `${where}Value for user "${id}"`)
    }
    let rollout: Targeting['rollout'] = null
    if (t.rolloutOn) {
      if (!t.attribute.trim()) problems.push(`${where}Rollout: name the context attribute used for bucketing.`)
      if (variants && t.splitOn) {
        t.split.forEach((s, i) => unknownVariant(variants, s.variant, `${where}Split slice ${i + 1}`, problems))
        rollout = { attribute: t.attribute.trim(), distribution: t.split.map((s) => ({ variant: s.variant, weight: s.hundredths / 100 })) }
      } else {
        const pct = Number(t.percentage)
        if (t.percentage.trim() === '' || !Number.isFinite(pct) || pct < 0 || pct > 100)
          problems.push(`${where}Rollout: percentage must be a number from 0 to 100.`)
        rollout = { percentage: pct, attribute: t.attribute.trim() }
      }
    }
    return { rules, overrides, rollout }
  }
  const { rules, overrides, rollout } = targetingOf(d, '')
  const environments: NonNullable<Flag['environments']> = {}
  for (const [env, e] of Object.entries(d.envs)) {
    if (!e.overridden) continue
    if (e.hasValue && variants) unknownVariant(variants, e.variant, `${env} variant`, problems)
    environments[env] = !e.hasValue
      ? { enabled: e.enabled }
      : variants
        ? { enabled: e.enabled, variant: e.variant }
        : { enabled: e.enabled, value: json(e.valueText, `${env} value`) }
    // Own rules, even none at all (`{}`: nobody targeted there), replace the flag's in the environment.
    if (e.own) {
      const own = targetingOf(e.own, `${env}'s own rules, `)
      environments[env]!.targeting = normaliseTargeting(own) ?? {}
      if (!variants) ownRulesForTypes.push(own)
    }
  }
  const date = (local: string, original: string | null | undefined) =>
    local && local === isoToLocalInput(original) ? (original as string) : localInputToIso(local)
  const active_from = date(d.activeFrom, base.active_from)
  const active_until = date(d.activeUntil, base.active_until)
  if (active_from && active_until && Date.parse(active_from) >= Date.parse(active_until))
    problems.push('Active window: "until" must be after "from".')
  // Every answer has the flag value's type (null aside), as the server requires, said as it says it.
  if (!problems.length && !variants)
    problems.push(...flagValueTypeIssues({ value, targeting: { rules, overrides }, environments }).map((i) => i.message))
  for (const own of ownRulesForTypes)
    if (!problems.length) problems.push(...flagValueTypeIssues({ value, targeting: own }).map((i) => `Own rules: ${i.message}`))
  if (problems.length) return { ok: false, problems }
  return {
    ok: true,
    body: {
      enabled: d.enabled,
      value,
      targeting: normaliseTargeting({ rules, overrides, rollout }),
      environments,
      active_from,
      active_until,
      ...lifecycle,
    },
  }
}
