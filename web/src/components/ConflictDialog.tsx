// Optimistic-concurrency saves: every edit form sends If-Match; on 409 CONFLICT the admin sees what the server
// has now next to their edit and chooses Reload (discard) or Overwrite (resend at the current version).
import { useState } from 'react'
import type { QueryKey } from '@tanstack/react-query'
import { ApiError, type Json } from '../api'
import { jsonEqual } from '../format'
import { useApiMutation } from '../mutations'
import { Dialog } from './Dialog'
import { DiffView } from './DiffView'
import { ErrorMessage } from './ErrorMessage'

/** A stored document: any resource with a version. */
export interface Doc {
  version: number
}
const META = new Set(['key', 'version', 'created_at', 'updated_at'])

const field = (doc: object, f: string) => (doc as Record<string, unknown>)[f]
const pick = (doc: object, fields: string[]) => Object.fromEntries(fields.map((f) => [f, field(doc, f) ?? null])) as Json

/** The top-level fields of `draft` that differ from `base` (absent and null count as equal). */
export function changedFields(base: object, draft: object): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(draft)) if (!jsonEqual(field(base, k) ?? null, v ?? null)) out[k] = v
  return out
}

interface Conflict<R extends Doc> {
  patch: Record<string, unknown>
  base: R
  current: R | undefined
}

interface Options<R extends Doc> {
  /** what the resource is called in messages, e.g. `flag "checkout"` */
  name: string
  /** sends the edit with If-Match; answers the stored copy (its new version) */
  put: (patch: Record<string, unknown>, version: number) => Promise<Doc>
  fetchCurrent: () => Promise<R | undefined>
  invalidate: readonly QueryKey[]
  onSaved: (saved: Doc) => void
  onReload: (current: R | undefined) => void
}

export function useVersionedSave<R extends Doc>({ name, put, fetchCurrent, invalidate, onSaved, onReload }: Options<R>) {
  const [conflict, setConflict] = useState<Conflict<R> | null>(null)
  const [checking, setChecking] = useState(false)
  const mutation = useApiMutation(
    ({ patch, version }: { patch: Record<string, unknown>; version: number; base: R }) => put(patch, version),
    invalidate,
    (saved) => {
      setConflict(null)
      onSaved(saved)
    },
  )

  const save = (patch: Record<string, unknown>, base: R, version = base.version) => {
    mutation.mutate(
      { patch, version, base },
      {
        onError: async (e) => {
          if (!(e instanceof ApiError) || !e.isConflict) return
          setChecking(true)
          try {
            setConflict({ patch, base, current: await fetchCurrent() })
          } catch {
            setConflict({ patch, base, current: undefined })
          } finally {
            setChecking(false)
          }
        },
      },
    )
  }

  const isConflict = mutation.error instanceof ApiError && mutation.error.isConflict
  const dialog = conflict && (
    <ConflictDialog
      name={name}
      conflict={conflict}
      pending={mutation.isPending}
      error={isConflict ? null : mutation.error}
      onCancel={() => {
        setConflict(null)
        mutation.reset()
      }}
      onReload={() => {
        const current = conflict.current
        setConflict(null)
        mutation.reset()
        onReload(current)
      }}
      onOverwrite={() => conflict.current && save(conflict.patch, conflict.current, conflict.current.version)}
    />
  )
  return {
    save,
    pending: mutation.isPending || checking,
    /** errors other than the conflict, which the dialog explains */
    error: isConflict ? null : mutation.error,
    dialog,
  }
}

interface DialogProps<R extends Doc> {
  name: string
  conflict: Conflict<R>
  pending: boolean
  error: unknown
  onCancel: () => void
  onReload: () => void
  onOverwrite: () => void
}

function ConflictDialog<R extends Doc>({ name, conflict, pending, error, onCancel, onReload, onOverwrite }: DialogProps<R>) {
  const { patch, base, current } = conflict
  const mine = Object.keys(patch)
  const others = current ? Object.keys({ ...base, ...current }).filter((k) => !META.has(k) && !mine.includes(k)) : []
  const otherChanges = current ? others.filter((k) => !jsonEqual(field(base, k) ?? null, field(current, k) ?? null)) : []
  return (
    <Dialog
      title="This was changed by someone else"
      onClose={onCancel}
      wide
      footer={
        <>
          <button type="button" className="btn" onClick={onCancel}>
            Keep editing
          </button>
          <button type="button" className="btn" onClick={onReload}>
            Reload (discard my changes)
          </button>
          {current && (
            <button type="button" className="btn btn-primary" onClick={onOverwrite} disabled={pending}>
              {pending ? 'Saving…' : 'Overwrite with my changes'}
            </button>
          )}
        </>
      }
    >
      {current ? (
        <>
          <p>
            {name} is now at version <strong>{current.version}</strong>; your edit started from version <strong>{base.version}</strong>.
            Compare the fields you edited with what the server has now:
          </p>
          <DiffView
            before={pick(current, mine)}
            after={pick(patch, mine)}
            beforeLabel="On the server now"
            afterLabel="Your edit"
            caption="Your edit versus the server"
          />
          {otherChanges.length > 0 && (
            <>
              <h3 className="section-title">Also changed on the server (kept either way)</h3>
              <DiffView
                before={pick(base, otherChanges)}
                after={pick(current, otherChanges)}
                beforeLabel="When you loaded it"
                afterLabel="On the server now"
                caption="Other changes on the server"
              />
            </>
          )}
          <p className="muted small">Overwrite sends only the fields you edited, at the server's current version.</p>
        </>
      ) : (
        <p>{name} no longer exists on the server (it was deleted). Your edit cannot be saved; copy anything you need and reload.</p>
      )}
      <ErrorMessage error={error} title="Could not save" />
    </Dialog>
  )
}
