// Environment settings: each environment's change-request policy (docs/change-requests.md §1), for admins.
import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { crApi, crKeys, type Policy } from '../../change-requests-api'
import { useApiMutation } from '../../mutations'
import { ErrorMessage } from '../../components/ErrorMessage'

export function PoliciesCard() {
  const policies = useQuery({ queryKey: crKeys.policies, queryFn: crApi.policies })
  return (
    <section className="card" aria-label="Change requests">
      <h2 className="card-title">Change requests</h2>
      <p className="hint">
        In a protected environment nobody changes anything directly: changes are proposed, approved by someone else, then applied. With{' '}
        <em>emergency off</em>, a change that only stops serving there (a switch off, a rollout lowered to 0) applies at once. Lowering
        protection takes a project admin signed in here: tokens may only raise it.
      </p>
      <ErrorMessage error={policies.error} title="Could not load the policies" />
      <ul className="list">
        {policies.data?.map((p) => (
          <PolicyRow key={p.environment} policy={p} />
        ))}
      </ul>
    </section>
  )
}

function PolicyRow({ policy }: { policy: Policy }) {
  const [draft, setDraft] = useState({
    protected: policy.protected,
    required_approvals: policy.required_approvals,
    approver_role: policy.approver_role,
    allow_emergency_off: policy.allow_emergency_off,
  })
  const save = useApiMutation(() => crApi.putPolicy(policy.environment, draft), [crKeys.policies])
  const changed =
    draft.protected !== policy.protected ||
    draft.required_approvals !== policy.required_approvals ||
    draft.approver_role !== policy.approver_role ||
    draft.allow_emergency_off !== policy.allow_emergency_off
  const env = policy.environment
  return (
    <li className="inline-form" aria-label={`Policy ${env}`}>
      <span className="mono">{env}</span>
      <label>
        <input
          type="checkbox"
          checked={draft.protected}
          onChange={(e) => setDraft({ ...draft, protected: e.target.checked })}
          aria-label={`Protect ${env}`}
        />{' '}
        protected
      </label>
      <label>
        approvals{' '}
        <input
          type="number"
          min={1}
          max={5}
          value={draft.required_approvals}
          aria-label={`Approvals for ${env}`}
          onChange={(e) => setDraft({ ...draft, required_approvals: Number(e.target.value) })}
        />
      </label>
      <label>
        from{' '}
        <select
          value={draft.approver_role}
          aria-label={`Approver role for ${env}`}
          onChange={(e) => setDraft({ ...draft, approver_role: e.target.value as 'editor' | 'admin' })}
        >
          <option value="editor">editors</option>
          <option value="admin">admins</option>
        </select>
      </label>
      <label>
        <input
          type="checkbox"
          checked={draft.allow_emergency_off}
          onChange={(e) => setDraft({ ...draft, allow_emergency_off: e.target.checked })}
          aria-label={`Emergency off in ${env}`}
        />{' '}
        emergency off without review
      </label>
      <button type="button" className="btn btn-small" disabled={!changed || save.isPending} onClick={() => save.mutate(undefined)}>
        Save policy
      </button>
      <ErrorMessage error={save.error} title={`Could not save the policy of ${env}`} />
    </li>
  )
}
