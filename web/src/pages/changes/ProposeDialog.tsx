// *Propose change*: in a project with a protected environment, an editor's save becomes a change request
// (docs/change-requests.md §5) with the same edit as its one item, written against the version being edited.
// Lands on the request.
import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { ApiError } from '../../api'
import { crApi, crKeys, directWrite, type ItemInput } from '../../change-requests-api'
import { BreakGlass, useMayBreakGlass } from '../../components/BreakGlass'
import { useApiMutation } from '../../mutations'
import { navigate } from '../../router'
import { localInputToIso } from '../../format'
import { Dialog } from '../../components/Dialog'
import { ErrorMessage } from '../../components/ErrorMessage'

/** The protected environments of the project (none: editors save directly). */
export function useProtectedEnvironments(): string[] {
  const policies = useQuery({ queryKey: crKeys.policies, queryFn: crApi.policies, staleTime: 10_000 })
  return (policies.data ?? []).filter((p) => p.protected).map((p) => p.environment)
}

interface Props {
  name: string
  item: ItemInput
  onClose: () => void
}

export function ProposeDialog({ name, item, onClose }: Props) {
  const [title, setTitle] = useState(`Change ${name}`)
  const [description, setDescription] = useState('')
  const [at, setAt] = useState('')
  const mayBreakGlass = useMayBreakGlass()
  const create = useApiMutation(
    () =>
      crApi.create({
        title: title.trim(),
        ...(description.trim() && { description }),
        items: [item],
        ...(at && { apply_at: localInputToIso(at) ?? undefined }),
      }),
    [crKeys.all],
    (cr) => navigate(`/changes/${cr.id}`, { force: true }),
  )
  return (
    <Dialog
      title="Propose change"
      onClose={onClose}
      footer={
        <div className="btn-group">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={!title.trim() || create.isPending}
            onClick={() => create.mutate(undefined)}
          >
            {create.isPending ? 'Proposing…' : 'Propose'}
          </button>
        </div>
      }
    >
      <p className="hint">A protected environment is affected: this change needs approval before it is applied.</p>
      <label className="field">
        <span className="field-label">Title</span>
        <input value={title} onChange={(e) => setTitle(e.target.value)} maxLength={200} />
      </label>
      <label className="field">
        <span className="field-label">Description</span>
        <textarea value={description} onChange={(e) => setDescription(e.target.value)} rows={3} />
      </label>
      <label className="field">
        <span className="field-label">Apply at (optional)</span>
        <input type="datetime-local" value={at} onChange={(e) => setAt(e.target.value)} />
      </label>
      <ErrorMessage error={create.error} title="Could not propose the change" />
      <WhyNotPropose error={create.error} />
      {mayBreakGlass && <BreakGlass run={(reason) => directWrite(item, reason)} onDone={onClose} />}
    </Dialog>
  )
}

/** Who may propose is who may write (write rights in every environment the change affects, protection
 *  aside): when the server says this person may not, say why and who can change that. */
export function WhyNotPropose({ error }: { error: unknown }) {
  if (!(error instanceof ApiError) || error.status !== 403) return null
  const envs = Array.isArray(error.details?.environments) ? (error.details.environments as string[]) : []
  return (
    <p className="hint" role="note" aria-label="Why you cannot propose">
      Proposing a change takes the same rights as making it: write rights in every environment it affects
      {envs.length > 0 ? (
        <>
          {' '}
          (you have none in <strong>{envs.join(', ')}</strong>)
        </>
      ) : null}
      . A project admin can change your role or environment rights under <strong>Members</strong>; a token needs the write permissions for
      what it proposes.
    </p>
  )
}
