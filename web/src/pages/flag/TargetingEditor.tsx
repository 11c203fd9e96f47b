// The rules of one targeting: the flag's, or an environment's own (docs/flag-switches.md, "Own rules per
// environment"): targeting rules, individual targeting and the rollout or split, one component for both.
// `draft` is the flag's draft with this targeting's parts in it; `set` takes changes to those parts.
// `scope` (an environment's name) prefixes headings and labels, so several editors share a page.
import { ConditionEditor, emptyCondition, move, newDraftId } from '../../components/ConditionEditor'
import { JsonEditor } from '../../components/JsonEditor'
import { jsonOr, parseJson, toJsonText } from '../../format'
import type { FlagDraft, OverrideDraft, RuleDraft, TargetingDraft } from './draft'
import { RolloutCard } from './RolloutCard'
import { VariantPicker } from './VariantsCard'

export function TargetingEditor({ draft, set, scope }: { draft: FlagDraft; set: (p: Partial<TargetingDraft>) => void; scope?: string }) {
  const withVariants = draft.variants.length > 0
  const L = (label: string) => (scope ? `${scope} ${label}` : label)
  const setRule = (i: number, p: Partial<RuleDraft>) => set({ rules: draft.rules.map((r, n) => (n === i ? { ...r, ...p } : r)) })
  const setOverride = (i: number, p: Partial<OverrideDraft>) =>
    set({ overrides: draft.overrides.map((o, n) => (n === i ? { ...o, ...p } : o)) })
  return (
    <>
      <section className="card">
        <h2 className="card-title">{scope ? `${scope}’s own rules` : 'Targeting rules'}</h2>
        <p className="hint">Rules are checked top to bottom; the first whose conditions all hold serves its value.</p>
        {draft.rules.length === 0 && <p className="muted">No rules yet.</p>}
        <ol className="rules">
          {draft.rules.map((r, i) => (
            <li key={r.id} className="rule">
              <div className="rule-head">
                <h3>{L(`Rule ${i + 1}`)}</h3>
                <div className="btn-group">
                  <button
                    type="button"
                    className="btn-icon"
                    aria-label={L(`Move rule ${i + 1} up`)}
                    disabled={i === 0}
                    onClick={() => set({ rules: move(draft.rules, i, -1) })}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    className="btn-icon"
                    aria-label={L(`Move rule ${i + 1} down`)}
                    disabled={i === draft.rules.length - 1}
                    onClick={() => set({ rules: move(draft.rules, i, 1) })}
                  >
                    ↓
                  </button>
                  <button
                    type="button"
                    className="btn btn-small btn-danger-outline"
                    aria-label={L(`Remove rule ${i + 1}`)}
                    onClick={() => set({ rules: draft.rules.filter((_, n) => n !== i) })}
                  >
                    Remove
                  </button>
                </div>
              </div>
              <ConditionEditor label={L(`Rule ${i + 1}`)} conditions={r.conditions} onChange={(conditions) => setRule(i, { conditions })} />
              {withVariants ? (
                <label className="field">
                  <span className="field-label">Serves</span>
                  <VariantPicker
                    draft={draft}
                    label={L(`Rule ${i + 1} variant`)}
                    value={r.variant}
                    onChange={(variant) => setRule(i, { variant })}
                  />
                </label>
              ) : (
                <JsonEditor
                  label={L(`Rule ${i + 1} value`)}
                  value={r.valueText}
                  onChange={(valueText) => setRule(i, { valueText })}
                  rows={1}
                  hint="Served when every condition holds."
                />
              )}
            </li>
          ))}
        </ol>
        <button
          type="button"
          className="btn"
          onClick={() =>
            set({
              rules: [
                ...draft.rules,
                {
                  id: newDraftId(),
                  conditions: [emptyCondition()],
                  valueText: toJsonText(jsonOr(draft.valueText, true)),
                  variant: draft.defaultVariant,
                },
              ],
            })
          }
        >
          + Add rule
        </button>
      </section>

      <section className="card">
        <h2 className="card-title">{scope ? `${scope}’s individual targeting` : 'Individual targeting'}</h2>
        <p className="hint">Specific users get a fixed value, before any rule.</p>
        {draft.overrides.length > 0 && (
          <ul className="override-list">
            {draft.overrides.map((o, i) => {
              const parsed = parseJson(o.valueText)
              return (
                <li key={o.id} className="override-row">
                  <label className="field">
                    <span className="field-label">User id</span>
                    <input
                      aria-label={L(`Override ${i + 1} user id`)}
                      value={o.userId}
                      onChange={(e) => setOverride(i, { userId: e.target.value })}
                      className="mono"
                    />
                  </label>
                  {withVariants ? (
                    <label className="field">
                      <span className="field-label">Variant</span>
                      <VariantPicker
                        draft={draft}
                        label={L(`Override ${i + 1} variant`)}
                        value={o.variant}
                        onChange={(variant) => setOverride(i, { variant })}
                      />
                    </label>
                  ) : (
                    <label className="field">
                      <span className="field-label">Value (JSON)</span>
                      <input
                        aria-label={L(`Override ${i + 1} value`)}
                        value={o.valueText}
                        onChange={(e) => setOverride(i, { valueText: e.target.value })}
                        className="mono"
                        aria-invalid={!parsed.ok}
                      />
                    </label>
                  )}
                  <button
                    type="button"
                    className="btn-icon btn-icon-danger"
                    aria-label={L(`Remove override ${i + 1}`)}
                    onClick={() => set({ overrides: draft.overrides.filter((_, n) => n !== i) })}
                  >
                    ✕
                  </button>
                  {!withVariants && !parsed.ok && <p className="field-error override-error">{parsed.error}</p>}
                </li>
              )
            })}
          </ul>
        )}
        <button
          type="button"
          className="btn"
          onClick={() =>
            set({
              overrides: [
                ...draft.overrides,
                {
                  id: newDraftId(),
                  userId: '',
                  valueText: toJsonText(jsonOr(draft.valueText, true), false),
                  variant: draft.defaultVariant,
                },
              ],
            })
          }
        >
          + Add user override
        </button>
      </section>

      <RolloutCard draft={draft} set={set} scope={scope} />
    </>
  )
}
