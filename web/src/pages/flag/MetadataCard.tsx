// What a flag is for and who looks after it: description, tags (chips: Enter or comma adds one), owner, and
// whether client keys (pages, apps) may evaluate it.
import { useState, type KeyboardEvent } from 'react'
import type { FlagDraft } from './draft'

const TAG = /^[a-z0-9][a-z0-9_-]{0,62}$/

export function MetadataCard({ draft, set }: { draft: FlagDraft; set: (p: Partial<FlagDraft>) => void }) {
  const [tagText, setTagText] = useState('')
  const tag = tagText.trim().toLowerCase()
  const tagOk = TAG.test(tag) && !draft.tags.includes(tag)
  const add = () => {
    if (!tagOk) return
    set({ tags: [...draft.tags, tag] })
    setTagText('')
  }
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter' || e.key === ',') {
      e.preventDefault()
      add()
    }
  }
  return (
    <section className="card">
      <h2 className="card-title">About this flag</h2>
      <label className="field">
        <span className="field-label">Description</span>
        <textarea
          aria-label="Description"
          rows={2}
          maxLength={2000}
          value={draft.description}
          onChange={(e) => set({ description: e.target.value })}
        />
      </label>
      <div className="field">
        <span className="field-label">Tags</span>
        <ul className="chips" aria-label="Tags">
          {draft.tags.map((t) => (
            <li key={t} className="chip">
              {t}
              <button
                type="button"
                className="chip-remove"
                aria-label={`Remove tag ${t}`}
                onClick={() => set({ tags: draft.tags.filter((x) => x !== t) })}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
        <div className="input-row">
          <input
            aria-label="New tag"
            value={tagText}
            onChange={(e) => setTagText(e.target.value)}
            onKeyDown={onKey}
            placeholder="e.g. checkout"
            className="mono"
            aria-invalid={tagText !== '' && !tagOk}
          />
          <button type="button" className="btn btn-small" disabled={!tagOk} onClick={add}>
            Add tag
          </button>
        </div>
        {tagText !== '' && !TAG.test(tag) && <p className="field-error">Lowercase letters, digits, - and _ (at most 63).</p>}
      </div>
      <label className="field">
        <span className="field-label">Owner</span>
        <input
          aria-label="Owner"
          maxLength={200}
          value={draft.owner}
          onChange={(e) => set({ owner: e.target.value })}
          placeholder="a person or a team"
        />
      </label>
      <label className="checkbox">
        <input type="checkbox" checked={draft.clientSide} onChange={(e) => set({ clientSide: e.target.checked })} />
        <span>
          Available to client keys
          <span className="muted small block">Pages and apps holding a client key may evaluate this flag (they never see its rules).</span>
        </span>
      </label>
    </section>
  )
}
