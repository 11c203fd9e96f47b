// Said above an edit form when someone else saved the document while it has unsaved edits here (the change
// stream brought the new version). The draft is kept until the user chooses: reload the new version, or keep
// editing, in which case saving goes through the conflict dialog (If-Match) and nothing is overwritten unasked.

interface Props {
  /** e.g. `Flag “checkout”` */
  name: string
  /** the version on the server now */
  now: number
  /** the version the draft started from */
  from: number
  /** the user chose to keep editing over this version: a shorter reminder */
  kept: boolean
  onReload: () => void
  onKeepEditing: () => void
}

export function ChangedNotice({ name, now, from, kept, onReload, onKeepEditing }: Props) {
  if (kept) {
    return (
      <div className="alert alert-info" role="status">
        Version {now} (by someone else) is on the server; your draft is based on version {from}. Saving will show both and ask before
        overwriting.{' '}
        <button type="button" className="btn-link" onClick={onReload}>
          Reload version {now}
        </button>
      </div>
    )
  }
  return (
    <div className="alert alert-warning changed-notice" role="alert" aria-label="Changed by someone else">
      <div>
        <strong>Changed by someone else.</strong> {name} was saved as version {now} while you were editing; your unsaved draft is based on
        version {from} and has been kept.
      </div>
      <div className="btn-group">
        <button type="button" className="btn btn-small" onClick={onReload}>
          Reload version {now} (discard my draft)
        </button>
        <button type="button" className="btn btn-small" onClick={onKeepEditing}>
          Keep editing
        </button>
      </div>
    </div>
  )
}
