// Prerequisites: other flags that must serve a variant (or a value) for this one to be on. The picker offers
// the project's other flags and, for one with variants, its variant names; a choice that would close a cycle
// is shown at once, and saving is refused until it is undone (the server checks again).
import type { Flag, ListedFlag } from '../../api'
import { newDraftId } from '../../components/ConditionEditor'
import { cycleThrough } from '../../prerequisite-graph'
import type { FlagDraft } from './draft'

/** The cycle the draft's prerequisites would close, given the project's flags. */
export function draftCycle(flagKey: string, draft: FlagDraft, flags: readonly Flag[] | undefined): string[] | null {
  if (!flags || !draft.prerequisites.length) return null
  const graph = new Map(flags.map((f) => [f.key, (f.prerequisites ?? []).map((p) => p.key)]))
  return cycleThrough(flagKey, draft.prerequisites.map((p) => p.key).filter(Boolean), graph)
}

export function PrerequisitesCard({
  flagKey,
  draft,
  set,
  flags,
}: {
  flagKey: string
  draft: FlagDraft
  set: (p: Partial<FlagDraft>) => void
  flags: readonly ListedFlag[] | undefined
}) {
  const others = (flags ?? []).filter((f) => f.key !== flagKey)
  const byKey = new Map(others.map((f) => [f.key, f]))
  const setAt = (i: number, p: Partial<FlagDraft['prerequisites'][number]>) =>
    set({ prerequisites: draft.prerequisites.map((x, n) => (n === i ? { ...x, ...p } : x)) })
  const cycle = draftCycle(flagKey, draft, flags)
  return (
    <section className="card">
      <h2 className="card-title">Prerequisites</h2>
      <p className="hint">
        This flag is off (reason “prerequisite_failed”) unless every flag below, evaluated for the same context, is on and serves what is
        required.
      </p>
      {draft.prerequisites.length === 0 && <p className="muted">No prerequisites.</p>}
      <ul className="prereq-list">
        {draft.prerequisites.map((p, i) => {
          const other = byKey.get(p.key)
          const variants = Object.keys(other?.variants ?? {})
          return (
            <li key={p.id} className="prereq-row">
              <select
                aria-label={`Prerequisite ${i + 1} flag`}
                value={p.key}
                onChange={(e) => {
                  const next = byKey.get(e.target.value)
                  setAt(i, { key: e.target.value, variant: Object.keys(next?.variants ?? {})[0] ?? '', valueText: 'true' })
                }}
              >
                <option value="">Choose a flag…</option>
                {others.map((f) => (
                  <option key={f.key} value={f.key}>
                    {f.key}
                  </option>
                ))}
              </select>
              {variants.length ? (
                <select
                  aria-label={`Prerequisite ${i + 1} variant`}
                  value={p.variant}
                  onChange={(e) => setAt(i, { variant: e.target.value })}
                >
                  {variants.map((v) => (
                    <option key={v} value={v}>
                      serves {v}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  aria-label={`Prerequisite ${i + 1} value`}
                  className="mono"
                  value={p.valueText}
                  onChange={(e) => setAt(i, { valueText: e.target.value, variant: '' })}
                />
              )}
              <button
                type="button"
                className="btn-icon btn-icon-danger"
                aria-label={`Remove prerequisite ${i + 1}`}
                onClick={() => set({ prerequisites: draft.prerequisites.filter((_, n) => n !== i) })}
              >
                ✕
              </button>
            </li>
          )
        })}
      </ul>
      {cycle && (
        <p className="field-error" role="alert">
          Would create a cycle: {cycle.join(' → ')}
        </p>
      )}
      <button
        type="button"
        className="btn"
        onClick={() => set({ prerequisites: [...draft.prerequisites, { id: newDraftId(), key: '', variant: '', valueText: 'true' }] })}
      >
        + Add prerequisite
      </button>
    </section>
  )
}
