// A flag's edit form: value or variants, rules, individual targeting, rollout or split, environments, active
// window, prerequisites and metadata, saved with If-Match through the document editor. The draft, whenever it
// is valid, goes to `onDraft` (the playground evaluates it).
import { useEffect, useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { api, keys, type Flag } from '../../api'
import { flagQueries } from '../../queries'
import { jsonOr, parseJson, toJsonText, valueType } from '../../format'
import { ConditionEditor, emptyCondition, move, newDraftId } from '../../components/ConditionEditor'
import { DocumentForm, useDocumentEditor } from '../../components/DocumentEditor'
import { JsonEditor } from '../../components/JsonEditor'
import { Switch } from '../../components/Switch'
import { bodyOf, fromDraft, toDraft, type FlagBody, type FlagDraft, type OverrideDraft, type RuleDraft } from './draft'
import { EnvironmentsCards } from './EnvironmentsCards'
import { MetadataCard } from './MetadataCard'
import { draftCycle, PrerequisitesCard } from './PrerequisitesCard'
import { RolloutCard } from './RolloutCard'
import { VariantPicker, VariantsCard } from './VariantsCard'

interface Props {
  flag: Flag
  environments: string[]
  fetchCurrent: () => Promise<Flag | undefined>
  deleted: boolean
  /** the draft as flag fields while it is valid, else null */
  onDraft?: (body: FlagBody | null) => void
}

export function FlagEditor({ flag, environments, fetchCurrent, deleted, onDraft }: Props) {
  // Every flag of the project, for the prerequisites picker and its cycle check: read only once the flag has
  // (or is given) a prerequisite, so opening a flag never reads the whole list.
  const [needFlags, setNeedFlags] = useState(!!flag.prerequisites?.length)
  const flags = useQuery({ ...flagQueries.all(), enabled: needFlags })
  const build = (d: FlagDraft, b: Flag) => {
    const built = fromDraft(d, b)
    const cycle = draftCycle(flag.key, d, flags.data)
    return cycle ? { ok: false as const, problems: [...(built.ok ? [] : built.problems), `Prerequisites: would create a cycle: ${cycle.join(' → ')}`] } : built
  }
  const { draft, base, setDraft, form } = useDocumentEditor({
    resource: { type: 'flag', key: flag.key },
    doc: flag,
    deleted,
    name: `Flag “${flag.key}”`,
    toDraft: (f: Flag) => toDraft(f, environments),
    build,
    bodyOf,
    put: async (p, version) => (await api.updateFlag(flag.key, p as Partial<Flag>, version)).flag,
    fetchCurrent,
    invalidate: [keys.flags],
    listPath: '/',
  })

  const built = base && draft ? fromDraft(draft, base) : null
  const draftText = built?.ok ? JSON.stringify(built.body) : null
  useEffect(() => onDraft?.(draftText === null ? null : (JSON.parse(draftText) as FlagBody)), [draftText, onDraft])

  if (!base || !draft) return null
  const withVariants = draft.variants.length > 0
  const ownSwitches = Object.entries(draft.envs).filter(([, e]) => e.overridden).map(([env]) => env)
  const set = (p: Partial<FlagDraft>) => setDraft({ ...draft, ...p })
  const setRule = (i: number, p: Partial<RuleDraft>) => set({ rules: draft.rules.map((r, n) => (n === i ? { ...r, ...p } : r)) })
  const setOverride = (i: number, p: Partial<OverrideDraft>) => set({ overrides: draft.overrides.map((o, n) => (n === i ? { ...o, ...p } : o)) })

  return (
    <DocumentForm form={form} label="Edit flag" className="form flag-form">
      <section className="card">
        <h2 className="card-title">Status and value</h2>
        <Switch checked={draft.enabled} onChange={(enabled) => set({ enabled })} label="Main switch" showLabel />
        <p className="hint">
          On or off in every environment without a switch of its own{ownSwitches.length > 0 ? <> (<strong>{ownSwitches.join(', ')}</strong> {ownSwitches.length === 1 ? 'has its own and keeps it' : 'have their own and keep them'}: see Environments, or use Turn off everywhere)</> : ''}. Where
          it is off, evaluation returns the off value ({valueType(jsonOr(draft.valueText, null)) === 'boolean' ? 'false' : 'null'}) with reason “disabled”.
        </p>
        {!withVariants && <JsonEditor label="Value" value={draft.valueText} onChange={(valueText) => set({ valueText })} hint="Served when the flag is on and no override, rule or rollout decides otherwise." />}
      </section>

      <VariantsCard draft={draft} set={set} />

      <section className="card">
        <h2 className="card-title">Targeting rules</h2>
        <p className="hint">Rules are checked top to bottom; the first whose conditions all hold serves its value.</p>
        {draft.rules.length === 0 && <p className="muted">No rules yet.</p>}
        <ol className="rules">
          {draft.rules.map((r, i) => (
            <li key={r.id} className="rule">
              <div className="rule-head">
                <h3>Rule {i + 1}</h3>
                <div className="btn-group">
                  <button type="button" className="btn-icon" aria-label={`Move rule ${i + 1} up`} disabled={i === 0} onClick={() => set({ rules: move(draft.rules, i, -1) })}>
                    ↑
                  </button>
                  <button type="button" className="btn-icon" aria-label={`Move rule ${i + 1} down`} disabled={i === draft.rules.length - 1} onClick={() => set({ rules: move(draft.rules, i, 1) })}>
                    ↓
                  </button>
                  <button type="button" className="btn btn-small btn-danger-outline" aria-label={`Remove rule ${i + 1}`} onClick={() => set({ rules: draft.rules.filter((_, n) => n !== i) })}>
                    Remove
                  </button>
                </div>
              </div>
              <ConditionEditor label={`Rule ${i + 1}`} conditions={r.conditions} onChange={(conditions) => setRule(i, { conditions })} />
              {withVariants ? (
                <label className="field">
                  <span className="field-label">Serves</span>
                  <VariantPicker draft={draft} label={`Rule ${i + 1} variant`} value={r.variant} onChange={(variant) => setRule(i, { variant })} />
                </label>
              ) : (
                <JsonEditor label={`Rule ${i + 1} value`} value={r.valueText} onChange={(valueText) => setRule(i, { valueText })} rows={1} hint="Served when every condition holds." />
              )}
            </li>
          ))}
        </ol>
        <button
          type="button"
          className="btn"
          onClick={() => set({ rules: [...draft.rules, { id: newDraftId(), conditions: [emptyCondition()], valueText: toJsonText(jsonOr(draft.valueText, true)), variant: draft.defaultVariant }] })}
        >
          + Add rule
        </button>
      </section>

      <section className="card">
        <h2 className="card-title">Individual targeting</h2>
        <p className="hint">Specific users get a fixed value, before any rule.</p>
        {draft.overrides.length > 0 && (
          <ul className="override-list">
            {draft.overrides.map((o, i) => {
              const parsed = parseJson(o.valueText)
              return (
                <li key={o.id} className="override-row">
                  <label className="field">
                    <span className="field-label">User id</span>
                    <input aria-label={`Override ${i + 1} user id`} value={o.userId} onChange={(e) => setOverride(i, { userId: e.target.value })} className="mono" />
                  </label>
                  {withVariants ? (
                    <label className="field">
                      <span className="field-label">Variant</span>
                      <VariantPicker draft={draft} label={`Override ${i + 1} variant`} value={o.variant} onChange={(variant) => setOverride(i, { variant })} />
                    </label>
                  ) : (
                    <label className="field">
                      <span className="field-label">Value (JSON)</span>
                      <input aria-label={`Override ${i + 1} value`} value={o.valueText} onChange={(e) => setOverride(i, { valueText: e.target.value })} className="mono" aria-invalid={!parsed.ok} />
                    </label>
                  )}
                  <button type="button" className="btn-icon btn-icon-danger" aria-label={`Remove override ${i + 1}`} onClick={() => set({ overrides: draft.overrides.filter((_, n) => n !== i) })}>
                    ✕
                  </button>
                  {!withVariants && !parsed.ok && <p className="field-error override-error">{parsed.error}</p>}
                </li>
              )
            })}
          </ul>
        )}
        <button type="button" className="btn" onClick={() => set({ overrides: [...draft.overrides, { id: newDraftId(), userId: '', valueText: toJsonText(jsonOr(draft.valueText, true), false), variant: draft.defaultVariant }] })}>
          + Add user override
        </button>
      </section>

      <RolloutCard draft={draft} set={set} />
      <EnvironmentsCards draft={draft} set={set} environments={environments} />
      <PrerequisitesCard flagKey={flag.key} draft={draft} set={(p) => { if (p.prerequisites?.length) setNeedFlags(true); set(p) }} flags={flags.data} />
      <MetadataCard draft={draft} set={set} />
    </DocumentForm>
  )
}
