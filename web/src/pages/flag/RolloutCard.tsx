// The rollout card: a percentage that gets the value (or the default variant), or, for a flag with variants,
// a split by weight between them; both bucket on one context attribute.
import { SplitEditor } from './SplitEditor'
import type { FlagDraft, TargetingDraft } from './draft'

export function RolloutCard({ draft, set, scope }: { draft: FlagDraft; set: (p: Partial<TargetingDraft>) => void; scope?: string }) {
  const withVariants = draft.variants.length > 0
  // An environment's own rules have their own radio group and labels (scope: the environment's name).
  const id = scope ? `${scope}-` : ''
  return (
    <section className="card">
      <h2 className="card-title">
        {scope ? `${scope}’s ` : ''}
        {withVariants ? 'Rollout or split' : 'Percentage rollout'}
      </h2>
      <label className="checkbox">
        <input type="checkbox" checked={draft.rolloutOn} onChange={(e) => set({ rolloutOn: e.target.checked })} />
        {withVariants ? 'Roll out by bucket' : 'Roll out to a percentage of contexts'}
      </label>
      {draft.rolloutOn && withVariants && (
        <div className="radio-row" role="radiogroup" aria-label={scope ? `${scope} rollout kind` : 'Rollout kind'}>
          <label className="checkbox">
            <input type="radio" name={`${id}rollout-kind`} checked={!draft.splitOn} onChange={() => set({ splitOn: false })} />A percentage
            gets the default variant
          </label>
          <label className="checkbox">
            <input type="radio" name={`${id}rollout-kind`} checked={draft.splitOn} onChange={() => set({ splitOn: true })} />
            Split by weight between variants
          </label>
        </div>
      )}
      {draft.rolloutOn && withVariants && draft.splitOn && <SplitEditor draft={draft} set={set} scope={scope} />}
      {draft.rolloutOn && (
        <div className="row-fields">
          {!(withVariants && draft.splitOn) && (
            <label className="field">
              <span className="field-label">{scope ? `${scope} percentage` : 'Percentage'}</span>
              <span className="input-suffix">
                <input
                  type="number"
                  min={0}
                  max={100}
                  step={0.01}
                  value={draft.percentage}
                  onChange={(e) => set({ percentage: e.target.value })}
                />
                <span aria-hidden="true">%</span>
              </span>
            </label>
          )}
          <label className="field">
            <span className="field-label">{scope ? `${scope} bucket by attribute` : 'Bucket by attribute'}</span>
            <input
              value={draft.attribute}
              onChange={(e) => set({ attribute: e.target.value })}
              list={`${id}rollout-attributes`}
              className="mono"
            />
            <datalist id={`${id}rollout-attributes`}>
              <option value="user_id" />
              <option value="custom.account_id" />
            </datalist>
          </label>
        </div>
      )}
      <p className="hint">
        Contexts whose bucket is below the percentage get the value; the rest get the off value. Contexts without the attribute are outside.
      </p>
    </section>
  )
}
