// A weighted split over the flag's variants: the weights always sum to 100 % (editing one rebalances the
// slices after it), and a preview says how many users would get another variant than with the saved split.
import { movedShare, setWeight, evenly } from '../../split'
import { VariantPicker } from './VariantsCard'
import type { FlagDraft, TargetingDraft } from './draft'

export function SplitEditor({ draft, set, scope }: { draft: FlagDraft; set: (p: Partial<TargetingDraft>) => void; scope?: string }) {
  const L = (label: string) => (scope ? `${scope} ${label}` : label)
  const total = draft.split.reduce((t, s) => t + s.hundredths, 0) / 100
  const moved = draft.savedSplit.length ? movedShare(draft.savedSplit, draft.split) : null
  return (
    <div className="split-editor">
      <ol className="split-list">
        {draft.split.map((s, i) => (
          <li key={i} className="split-row">
            <VariantPicker
              draft={draft}
              label={L(`Split slice ${i + 1} variant`)}
              value={s.variant}
              onChange={(variant) => set({ split: draft.split.map((x, n) => (n === i ? { ...x, variant } : x)) })}
            />
            <span className="input-suffix">
              <input
                type="number"
                min={0}
                max={100}
                step={0.01}
                aria-label={L(`Split slice ${i + 1} weight`)}
                value={s.hundredths / 100}
                onChange={(e) => e.target.value !== '' && set({ split: setWeight(draft.split, i, Number(e.target.value) * 100) })}
              />
              <span aria-hidden="true">%</span>
            </span>
            <button
              type="button"
              className="btn-icon btn-icon-danger"
              aria-label={L(`Remove split slice ${i + 1}`)}
              disabled={draft.split.length < 2}
              onClick={() => set({ split: evenly(draft.split.filter((_, n) => n !== i).map((x) => x.variant)) })}
            >
              ✕
            </button>
          </li>
        ))}
      </ol>
      <button
        type="button"
        className="btn btn-small"
        onClick={() =>
          set({
            split: evenly([
              ...draft.split.map((x) => x.variant),
              draft.variants.find((v) => !draft.split.some((x) => x.variant === v.name))?.name ?? draft.defaultVariant,
            ]),
          })
        }
      >
        + Add slice
      </button>
      <p className="small" data-testid={scope ? `${scope}-split-total` : 'split-total'}>
        Total: {total}%
      </p>
      {moved !== null && (
        <p className="hint" data-testid={scope ? `${scope}-split-moved` : 'split-moved'}>
          {moved === 0
            ? 'Nobody changes variant compared with the saved split.'
            : `${(moved * 100).toFixed(2)}% of users would get a different variant than with the saved split.`}
        </p>
      )}
    </div>
  )
}
