// Named variants of a flag: names and values, the default one and the one a disabled flag serves. Turning
// variants on starts from the flag's current value; the rest of the editor then picks variants by name.
import { jsonOr, parseJson, toJsonText } from '../../format'
import { newDraftId } from '../../components/ConditionEditor'
import { evenly } from '../../split'
import type { FlagDraft } from './draft'

type Set = (p: Partial<FlagDraft>) => void

/** A select of the draft's variant names. */
export function VariantPicker({
  draft,
  label,
  value,
  onChange,
  allowNone,
}: {
  draft: FlagDraft
  label: string
  value: string
  onChange: (name: string) => void
  allowNone?: string
}) {
  return (
    <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
      {allowNone !== undefined && <option value="">{allowNone}</option>}
      {!allowNone && !draft.variants.some((v) => v.name === value) && (
        <option value={value}>{value ? `${value} (unknown)` : 'Choose…'}</option>
      )}
      {draft.variants.map((v) => (
        <option key={v.id} value={v.name}>
          {v.name}
        </option>
      ))}
    </select>
  )
}

export function VariantsCard({ draft, set }: { draft: FlagDraft; set: Set }) {
  const on = draft.variants.length > 0
  const names = draft.variants.map((v) => v.name)
  const start = () => {
    const current = jsonOr(draft.valueText, true)
    const variants = [
      { id: newDraftId(), name: 'control', valueText: toJsonText(current) },
      { id: newDraftId(), name: 'treatment', valueText: toJsonText(typeof current === 'boolean' ? !current : current) },
    ]
    set({
      variants,
      defaultVariant: 'control',
      offVariant: '',
      split: evenly(['control', 'treatment']),
      rules: draft.rules.map((r) => ({ ...r, variant: 'control' })),
      overrides: draft.overrides.map((o) => ({ ...o, variant: 'control' })),
    })
  }
  const setVariant = (i: number, p: { name?: string; valueText?: string }) => {
    const old = draft.variants[i]!.name
    const variants = draft.variants.map((v, n) => (n === i ? { ...v, ...p } : v))
    // A rename follows the variant everywhere the draft names it.
    const rename = (name: string) => (p.name !== undefined && name === old ? p.name : name)
    set({
      variants,
      ...(p.name !== undefined && {
        defaultVariant: rename(draft.defaultVariant),
        offVariant: rename(draft.offVariant),
        rules: draft.rules.map((r) => ({ ...r, variant: rename(r.variant) })),
        overrides: draft.overrides.map((o) => ({ ...o, variant: rename(o.variant) })),
        split: draft.split.map((s) => ({ ...s, variant: rename(s.variant) })),
      }),
    })
  }
  return (
    <section className="card">
      <h2 className="card-title">Variants</h2>
      {!on ? (
        <>
          <p className="hint">
            Name the values this flag can serve (A/B/n tests, weighted splits). Rules, overrides and environments then pick a variant.
          </p>
          <button type="button" className="btn" onClick={start}>
            Use variants
          </button>
        </>
      ) : (
        <>
          <ul className="variant-list">
            {draft.variants.map((v, i) => {
              const parsed = parseJson(v.valueText)
              return (
                <li key={v.id} className="variant-row">
                  <label className="field">
                    <span className="field-label">Name</span>
                    <input
                      aria-label={`Variant ${i + 1} name`}
                      value={v.name}
                      onChange={(e) => setVariant(i, { name: e.target.value })}
                      className="mono"
                    />
                  </label>
                  <label className="field">
                    <span className="field-label">Value (JSON)</span>
                    <input
                      aria-label={`Variant ${i + 1} value`}
                      value={v.valueText}
                      onChange={(e) => setVariant(i, { valueText: e.target.value })}
                      className="mono"
                      aria-invalid={!parsed.ok}
                    />
                  </label>
                  <button
                    type="button"
                    className="btn-icon btn-icon-danger"
                    aria-label={`Remove variant ${i + 1}`}
                    onClick={() => set({ variants: draft.variants.filter((_, n) => n !== i) })}
                  >
                    ✕
                  </button>
                </li>
              )
            })}
          </ul>
          <button
            type="button"
            className="btn"
            onClick={() =>
              set({
                variants: [
                  ...draft.variants,
                  { id: newDraftId(), name: `variant-${draft.variants.length + 1}`, valueText: draft.variants[0]?.valueText ?? 'true' },
                ],
              })
            }
          >
            + Add variant
          </button>
          <div className="row-fields">
            <label className="field">
              <span className="field-label">Default variant</span>
              <VariantPicker
                draft={draft}
                label="Default variant"
                value={draft.defaultVariant}
                onChange={(defaultVariant) => set({ defaultVariant })}
              />
            </label>
            <label className="field">
              <span className="field-label">When disabled</span>
              <VariantPicker
                draft={draft}
                label="Off variant"
                value={draft.offVariant}
                onChange={(offVariant) => set({ offVariant })}
                allowNone="the off value"
              />
            </label>
          </div>
          <p className="hint">
            Variants: {names.join(', ')}. A variant still used by a rule, an override, the split or an environment cannot be removed until
            that use is changed.
          </p>
        </>
      )}
    </section>
  )
}
