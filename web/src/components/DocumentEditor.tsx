// The edit form of a stored document (flag, config, segment): a draft taken from the server's copy, what it
// changes, a warning before leaving with unsaved edits, and saving with If-Match (409 -> the conflict dialog).
import { useState, type FormEvent, type ReactNode } from 'react'
import type { QueryKey } from '@tanstack/react-query'
import { navigate, useLeaveGuard } from '../router'
import { dateTime, relativeTime } from '../format'
import { changedFields, useVersionedSave, type Doc } from './ConflictDialog'
import { SaveBar } from './SaveBar'

export type Built<B> = { ok: true; body: B } | { ok: false; problems: string[] }

interface Options<R extends Doc, D, B extends object> {
  /** the server's copy, refreshed by its query */
  doc: R
  /** for messages, e.g. `Flag “checkout”` */
  name: string
  toDraft: (doc: R) => D
  /** the draft as the document's editable fields, or what blocks saving */
  build: (draft: D, base: R) => Built<B>
  /** the editable fields of a stored copy, compared with what `build` returns */
  bodyOf: (doc: R) => B
  put: (patch: Record<string, unknown>, version: number) => Promise<unknown>
  fetchCurrent: () => Promise<R | undefined>
  invalidate: readonly QueryKey[]
  /** where to go when the document turns out to be deleted */
  listPath: string
}

export function useDocumentEditor<R extends Doc, D, B extends object>(o: Options<R, D, B>) {
  const [base, setBase] = useState<R | null>(null)
  const [draft, setDraft] = useState<D | null>(null)
  const built = base && draft !== null ? o.build(draft, base) : null
  const patch = base && built?.ok ? changedFields(o.bodyOf(base), built.body) : {}
  const dirty = !!built && (!built.ok || Object.keys(patch).length > 0)
  const load = (doc: R) => {
    setBase(doc)
    setDraft(o.toDraft(doc))
  }

  // Take the server's copy when starting, and whenever it changes while there is nothing unsaved.
  if (!base || (o.doc.version !== base.version && !dirty)) load(o.doc)

  useLeaveGuard(dirty)

  const saver = useVersionedSave<R>({
    name: o.name,
    put: o.put,
    fetchCurrent: o.fetchCurrent,
    invalidate: o.invalidate,
    onSaved: () => setBase(null),
    onReload: (current) => (current ? load(current) : navigate(o.listPath, { force: true })),
  })

  return {
    base,
    draft,
    setDraft,
    form: {
      dirty,
      problems: built && !built.ok ? built.problems : [],
      /** versions when someone else saved since the draft was taken */
      stale: base && o.doc.version !== base.version ? { now: o.doc.version, from: base.version } : null,
      submit: (e: FormEvent) => {
        e.preventDefault()
        if (base && built?.ok && Object.keys(patch).length) saver.save(patch, base)
      },
      discard: () => base && setDraft(o.toDraft(base)),
      pending: saver.pending,
      error: saver.error,
      dialog: saver.dialog,
    },
  }
}

type FormState = ReturnType<typeof useDocumentEditor>['form']

/** The form around an editor's fields: the "changed meanwhile" notice, the save bar and the conflict dialog. */
export function DocumentForm({ form, label, className = 'form', children }: { form: FormState; label: string; className?: string; children: ReactNode }) {
  return (
    <form className={className} onSubmit={form.submit} aria-label={label}>
      {form.stale && (
        <div className="alert alert-warning" role="status">
          Someone saved version {form.stale.now} while you were editing (you started from version {form.stale.from}). Saving will ask how to merge.
        </div>
      )}
      {children}
      <SaveBar dirty={form.dirty} problems={form.problems} pending={form.pending} error={form.error} onDiscard={form.discard} />
      {form.dialog}
    </form>
  )
}

/** "version 3 · changed 5 minutes ago", for a detail page's header. */
export function VersionStamp({ doc }: { doc: Doc & { updated_at: string } }) {
  return (
    <>
      version {doc.version} · changed{' '}
      <time dateTime={doc.updated_at} title={dateTime(doc.updated_at)}>
        {relativeTime(doc.updated_at)}
      </time>
    </>
  )
}
