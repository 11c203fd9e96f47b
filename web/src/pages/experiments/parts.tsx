// What the experiment pages share: an experiment's address, its state as a pill, its decision in words.
import type { Experiment, ExperimentState } from '../../experiments-api'

export const experimentPath = (key: string) => `/experiments/${encodeURIComponent(key)}`

export function StatePill({ state }: { state: ExperimentState }) {
  return <span className={`pill experiment-state experiment-${state}`}>{state}</span>
}

export function decisionText(e: Pick<Experiment, 'decision' | 'pending_change_request' | 'state'>): string {
  if (e.pending_change_request) return 'awaiting review'
  if (!e.decision) return e.state === 'stopped' ? '—' : ''
  if (e.decision.decision === 'ship') return `shipped ${e.decision.variant ?? ''}`.trim()
  return e.decision.decision === 'rollback' ? 'rolled back' : 'inconclusive'
}
