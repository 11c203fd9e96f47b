// The edit form of a stored document (flag, config, segment): a draft taken from the server's copy, what it
// changes, a warning before leaving with unsaved edits, and saving with If-Match (409 -> the conflict dialog).
// The server's copy is read again whenever it changes (live updates): without unsaved edits the form takes
// it; with some, the draft is kept and a notice says someone else changed it, before any save is tried.
import { useState, type FormEvent, type ReactNode } from 'react'
import type { QueryKey } from '@tanstack/react-query'
import { navigate, useLeaveGuard } from '../router'
import { ChangedNotice } from './ChangedNotice'
import { changedFields, useVersionedSave, type Doc } from './ConflictDialog'
import { RelativeTime } from './RelativeTime'
import { SaveBar } from './SaveBar'
import { ProposeDialog, useProtectedEnvironments } from '../pages/changes/ProposeDialog'
import type { ItemInput } from '../change-requests-api'

export type Built<B> = { ok: true; body: B } | { ok: false; problems: string[] }

interface Options<R extends Doc, D, B extends object> {
  /** the server's copy, refreshed by its query */
  doc: R
  /** the server answers that the document no longer exists (its last copy is still shown) */
  deleted?: boolean
  /** for messages, e.g. `Flag “checkout”` */
  name: string
  toDraft: (doc: R) => D
  /** the draft as the document's editable fields, or what blocks saving */
  build: (draft: D, base: R) => Built<B>
  /** the editable fields of a stored copy, compared with what `build` returns */
  bodyOf: (doc: R) => B
  /** sends the edit with If-Match; answers the stored copy */
  put: (patch: Record<string, unknown>, version: number) => Promise<Doc>
  fetchCurrent: () => Promise<R | undefined>
  invalidate: readonly QueryKey[]
  /** where to go when the document turns out to be deleted */
  listPath: string
  /** what a change request's item names (a save affects every environment: in a project with a protected
   *  environment, Save becomes Propose change) */
  resource?: { type: ItemInput['resource_type']; key: string }
}

export function useDocumentEditor<R extends Doc, D, B extends object>(o: Options<R, D, B>) {
  const [base, setBase] = useState<R | null>(null)
  const [draft, setDraft] = useState<D | null>(null)
  /** the version this form's own last save made, until the server's copy shown here reaches it */
  const [ownSave, setOwnSave] = useState<number | null>(null)
  /** a newer version whose notice the user dismissed to keep editing (saving then asks how to merge) */
  const [kept, setKept] = useState<number | null>(null)
  const built = base && draft !== null ? o.build(draft, base) : null
  const patch = base && built?.ok ? changedFields(o.bodyOf(base), built.body) : {}
  const dirty = !!built && (!built.ok || Object.keys(patch).length > 0)
  const load = (doc: R) => {
    setBase(doc)
    setDraft(o.toDraft(doc))
    setOwnSave(null)
    setKept(null)
  }

  // Take the server's copy when starting; whenever it changes while there is nothing unsaved; and once it
  // shows this form's own save (the draft is what was saved).
  const caughtUp = ownSave !== null && o.doc.version >= ownSave
  if (!base || (o.doc.version !== base.version && (!dirty || caughtUp))) load(o.doc)

  useLeaveGuard(dirty)
  const protectedEnvs = useProtectedEnvironments()
  const proposing = !!o.resource && protectedEnvs.length > 0
  const [proposal, setProposal] = useState<ItemInput | null>(null)

  const saver = useVersionedSave<R>({
    name: o.name,
    put: o.put,
    fetchCurrent: o.fetchCurrent,
    invalidate: o.invalidate,
    onSaved: (saved) => setOwnSave(saved.version),
    onReload: (current) => (current ? load(current) : navigate(o.listPath, { force: true })),
  })

  // Someone else's version, with edits here: while a save is under way the new version may be that save's
  // own (its change event can come before its answer), so nothing is said until the answer tells.
  const other = base && dirty && !o.deleted && ownSave === null && !saver.pending && o.doc.version !== base.version ? o.doc.version : null

  return {
    base,
    draft,
    setDraft,
    form: {
      dirty,
      problems: built && !built.ok ? built.problems : [],
      deleted: !!o.deleted,
      /** someone else saved version `now` while the draft (from version `from`) has unsaved edits */
      changed: base && other !== null ? { now: other, from: base.version, kept: other === kept } : null,
      reload: () => load(o.doc),
      keepEditing: () => setKept(o.doc.version),
      submit: (e: FormEvent) => {
        e.preventDefault()
        if (!base || !built?.ok || !Object.keys(patch).length || o.deleted) return
        if (proposing && o.resource)
          setProposal({ resource_type: o.resource.type, key: o.resource.key, action: 'update', body: patch, base_version: base.version })
        else saver.save(patch, base)
      },
      discard: () => base && setDraft(o.toDraft(base)),
      pending: saver.pending,
      error: saver.error,
      dialog: proposal ? <ProposeDialog name={o.name} item={proposal} onClose={() => setProposal(null)} /> : saver.dialog,
      name: o.name,
      proposing,
    },
  }
}

type FormState = ReturnType<typeof useDocumentEditor>['form']

/** The form around an editor's fields: the "changed by someone else" notice, the save bar and the conflict dialog. */
export function DocumentForm({
  form,
  label,
  className = 'form',
  children,
}: {
  form: FormState
  label: string
  className?: string
  children: ReactNode
}) {
  return (
    <form className={className} onSubmit={form.submit} aria-label={label}>
      {form.changed && <ChangedNotice name={form.name} {...form.changed} onReload={form.reload} onKeepEditing={form.keepEditing} />}
      {children}
      <SaveBar
        dirty={form.dirty}
        problems={form.problems}
        pending={form.pending}
        error={form.error}
        onDiscard={form.discard}
        proposing={form.proposing}
        blocked={form.deleted ? 'Deleted on the server: this cannot be saved' : undefined}
      />
      {form.dialog}
    </form>
  )
}

/** "version 3 · changed 5 minutes ago", for a detail page's header. */
export function VersionStamp({ doc }: { doc: Doc & { updated_at: string } }) {
  return (
    <>
      version {doc.version} · changed <RelativeTime at={doc.updated_at} />
    </>
  )
}
