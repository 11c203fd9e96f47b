// One experiment: its setup, Start and Delete while draft, and once started its results: the health banner
// (sample-ratio mismatch, multiple exposures, too few units), each metric's rows with their interval bars,
// the units per variant over time, and the decision: Ship <variant>, Roll back, or stop as inconclusive.
import { useState } from 'react'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { experimentKeys, experimentsApi, type Experiment, type ExperimentResults, type StopBody } from '../../experiments-api'
import { daysRunning, healthIssues } from '../../experiment-view'
import { Link, navigate, pathFor } from '../../router'
import { useSession } from '../../session'
import { dateTime } from '../../format'
import { useApiMutation } from '../../mutations'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { ErrorMessage } from '../../components/ErrorMessage'
import { Loading, PageHeader } from '../../components/State'
import { decisionText, StatePill } from './parts'
import { MetricResults } from './ResultsTable'
import { UnitsChart } from './UnitsChart'

export function ExperimentPage({ experimentKey }: { experimentKey: string }) {
  const query = useQuery({ queryKey: experimentKeys.one(experimentKey), queryFn: () => experimentsApi.experiment(experimentKey) })
  if (query.isPending) return <Loading label="Loading the experiment…" />
  if (query.isError) return <ErrorMessage error={query.error} title={`Could not load experiment ${experimentKey}`} />
  return <Loaded e={query.data} />
}

function Loaded({ e }: { e: Experiment }) {
  const { can } = useSession()
  const qc = useQueryClient()
  const mayChange = can.writeEnv(e.environment)
  const [phase, setPhase] = useState<number | undefined>(undefined)
  const [confirm, setConfirm] = useState<StopBody | 'delete' | null>(null)
  const [pendingReview, setPendingReview] = useState<string | null>(null)
  const refreshAll = [experimentKeys.all] as const
  const start = useApiMutation(experimentsApi.start, refreshAll)
  const remove = useApiMutation(experimentsApi.deleteExperiment, refreshAll, () => navigate('/experiments', { force: true }))
  const stop = useApiMutation(experimentsApi.stop, refreshAll, (r) => {
    setConfirm(null)
    if (r.change_request) setPendingReview(r.change_request.id)
  })
  const days = daysRunning(e)

  return (
    <>
      <PageHeader
        back={<Link to="/experiments">← Experiments</Link>}
        title={e.name}
        subtitle={
          <>
            <span className="mono">{e.key}</span> · flag{' '}
            <Link to={pathFor.flag(e.flag)} className="mono">
              {e.flag}
            </Link>{' '}
            in <strong>{e.environment}</strong> · <StatePill state={e.state} />
            {days !== null && ` · ${days} ${days === 1 ? 'day' : 'days'}`}
            {decisionText(e) && ` · ${decisionText(e)}`}
          </>
        }
        actions={
          mayChange && (
            <>
              {e.state === 'draft' && (
                <>
                  <button type="button" className="btn btn-primary" disabled={start.isPending} onClick={() => start.mutate(e.key)}>
                    {start.isPending ? 'Starting…' : 'Start'}
                  </button>
                  <button type="button" className="btn btn-danger-outline" onClick={() => setConfirm('delete')}>
                    Delete
                  </button>
                </>
              )}
            </>
          )
        }
      />
      {e.hypothesis && <p className="hypothesis">{e.hypothesis}</p>}
      <ErrorMessage error={start.error} title="Could not start the experiment" />
      {(pendingReview ?? e.pending_change_request) && (
        <div className="alert alert-info" role="status">
          {e.environment} is protected: the decision waits for review in{' '}
          <Link to={`/changes/${pendingReview ?? e.pending_change_request}`}>its change request</Link>. The experiment stops when it is
          applied.
        </div>
      )}
      <Settings e={e} />
      {e.state === 'draft' ? (
        <p className="muted">Results appear once the experiment is started and units are exposed.</p>
      ) : (
        <Results
          e={e}
          phase={phase}
          setPhase={setPhase}
          onDecide={mayChange && e.state === 'running' && !e.pending_change_request ? setConfirm : undefined}
          onRefresh={() =>
            void qc.fetchQuery({
              queryKey: experimentKeys.results(e.key, phase),
              queryFn: () => experimentsApi.results(e.key, phase, true),
              staleTime: 0,
            })
          }
        />
      )}
      {confirm === 'delete' && (
        <ConfirmDialog
          title={`Delete ${e.key}?`}
          confirmLabel="Delete experiment"
          onConfirm={() => remove.mutate(e.key)}
          onCancel={() => setConfirm(null)}
          pending={remove.isPending}
          error={remove.error}
        >
          <p>The draft is removed. Nothing was measured yet.</p>
        </ConfirmDialog>
      )}
      {confirm && confirm !== 'delete' && (
        <ConfirmDialog
          title={
            confirm.decision === 'ship'
              ? `Ship ${confirm.variant}?`
              : confirm.decision === 'rollback'
                ? 'Roll back?'
                : 'Stop as inconclusive?'
          }
          confirmLabel={
            confirm.decision === 'ship' ? `Ship ${confirm.variant}` : confirm.decision === 'rollback' ? 'Roll back' : 'Stop experiment'
          }
          danger={confirm.decision !== 'ship'}
          onConfirm={() => stop.mutate({ key: e.key, body: confirm })}
          onCancel={() => setConfirm(null)}
          pending={stop.isPending}
          error={stop.error}
        >
          <p>
            {confirm.decision === 'ship' ? (
              <>
                Every unit that reaches the split in <strong>{e.environment}</strong> will be served{' '}
                <strong className="mono">{confirm.variant}</strong>.{' '}
              </>
            ) : confirm.decision === 'rollback' ? (
              <>
                Every unit that reaches the split in <strong>{e.environment}</strong> will be served the control,{' '}
                <strong className="mono">{e.control}</strong>.{' '}
              </>
            ) : (
              <>The flag keeps serving its split. </>
            )}
            The experiment stops and keeps its results. Other environments are not changed.
          </p>
        </ConfirmDialog>
      )}
    </>
  )
}

function Settings({ e }: { e: Experiment }) {
  return (
    <dl className="experiment-settings">
      <div>
        <dt>Engine</dt>
        <dd>{e.engine === 'bayesian' ? 'Bayesian' : e.sequential ? 'Frequentist, sequential' : 'Frequentist, fixed horizon'}</dd>
      </div>
      <div>
        <dt>Alpha</dt>
        <dd>{e.alpha}</dd>
      </div>
      {e.engine === 'frequentist' && (
        <div>
          <dt>Correction</dt>
          <dd>{e.correction}</dd>
        </div>
      )}
      <div>
        <dt>CUPED</dt>
        <dd>{e.cuped ? 'on' : 'off'}</dd>
      </div>
      <div>
        <dt>Control</dt>
        <dd className="mono">{e.control}</dd>
      </div>
      <div>
        <dt>Unit</dt>
        <dd className="mono">{e.unit}</dd>
      </div>
      <div>
        <dt>Goals</dt>
        <dd className="mono">{e.goal_metrics.join(', ')}</dd>
      </div>
      {e.guardrail_metrics.length > 0 && (
        <div>
          <dt>Guardrails</dt>
          <dd className="mono">{e.guardrail_metrics.join(', ')}</dd>
        </div>
      )}
      {e.secondary_metrics.length > 0 && (
        <div>
          <dt>Secondary</dt>
          <dd className="mono">{e.secondary_metrics.join(', ')}</dd>
        </div>
      )}
    </dl>
  )
}

interface ResultsProps {
  e: Experiment
  phase: number | undefined
  setPhase: (p: number | undefined) => void
  onDecide?: (d: StopBody) => void
  onRefresh: () => void
}

function Results({ e, phase, setPhase, onDecide, onRefresh }: ResultsProps) {
  const results = useQuery({
    queryKey: experimentKeys.results(e.key, phase),
    queryFn: () => experimentsApi.results(e.key, phase),
    refetchInterval: 60_000,
  })
  return (
    <section className="section" aria-label="Results">
      <div className="results-toolbar">
        <h2 className="section-title">Results</h2>
        {e.phases.length > 1 && (
          <label className="inline-field">
            Phase{' '}
            <select
              value={phase ?? e.phase}
              onChange={(ev) => setPhase(Number(ev.target.value) === e.phase ? undefined : Number(ev.target.value))}
            >
              {e.phases.map((p) => (
                <option key={p.number} value={p.number}>
                  {p.number}: since {dateTime(p.started_at)} ({p.reason})
                </option>
              ))}
            </select>
          </label>
        )}
        {results.data && <span className="muted small">computed {dateTime(results.data.computed_at)}</span>}
        <button type="button" className="btn btn-small" onClick={onRefresh} disabled={results.isFetching}>
          {results.isFetching ? 'Computing…' : 'Refresh'}
        </button>
      </div>
      {results.isPending ? (
        <Loading label="Computing the results…" />
      ) : results.isError ? (
        <ErrorMessage error={results.error} title="Could not compute the results" />
      ) : (
        <>
          <HealthBanner r={results.data} />
          {onDecide && <Decide e={e} r={results.data} onDecide={onDecide} />}
          {results.data.metrics.map((m) => (
            <MetricResults key={m.metric} m={m} engine={e.engine} />
          ))}
          <UnitsOverTime e={e} phase={phase} r={results.data} />
        </>
      )}
    </section>
  )
}

/** The cumulative units per variant per day (read on its own: the results do not carry it). */
function UnitsOverTime({ e, phase, r }: { e: Experiment; phase: number | undefined; r: ExperimentResults }) {
  const units = useQuery({
    queryKey: experimentKeys.units(e.key, phase, true),
    queryFn: () => experimentsApi.units(e.key, phase, true),
    refetchInterval: 60_000,
  })
  const timeline = units.data?.timeline
  return (
    <section className="section" aria-label="Units over time">
      <h3 className="section-title">Units per variant</h3>
      <ErrorMessage error={units.error} title="Could not read the units over time" />
      {timeline && timeline.at.length > 0 ? (
        <UnitsChart timeline={timeline} />
      ) : (
        <p className="muted">
          {Object.entries(r.units)
            .map(([v, n]) => `${v}: ${n.toLocaleString('en')}`)
            .join(' · ')}
        </p>
      )}
    </section>
  )
}

export function HealthBanner({ r }: { r: ExperimentResults }) {
  const issues = healthIssues(r)
  if (!issues.length) {
    return (
      <div className="alert alert-info health-ok" role="status" aria-label="Health">
        Healthy: the split matches its weights (SRM p = {r.srm.p_value.toFixed(3)}), no unit saw two variants, every variant has enough
        units.
      </div>
    )
  }
  return (
    <div
      className={issues.some((i) => i.kind === 'srm') ? 'alert alert-error health' : 'alert alert-warning health'}
      role="alert"
      aria-label="Health"
    >
      <ul className="health-issues">
        {issues.map((i) => (
          <li key={i.kind} data-issue={i.kind}>
            <strong>{i.title}.</strong> {i.detail}
          </li>
        ))}
      </ul>
    </div>
  )
}

function Decide({ e, r, onDecide }: { e: Experiment; r: ExperimentResults; onDecide: (d: StopBody) => void }) {
  const treatments = Object.keys(r.units).filter((v) => v !== e.control)
  return (
    <div className="decide btn-group" role="group" aria-label="Decision">
      {treatments.map((v) => (
        <button key={v} type="button" className="btn btn-primary" onClick={() => onDecide({ decision: 'ship', variant: v })}>
          Ship {v}
        </button>
      ))}
      <button type="button" className="btn btn-danger-outline" onClick={() => onDecide({ decision: 'rollback' })}>
        Roll back
      </button>
      <button type="button" className="btn" onClick={() => onDecide({ decision: 'inconclusive' })}>
        Stop: inconclusive
      </button>
    </div>
  )
}
