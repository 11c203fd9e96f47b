// A flag's release plans on its page (docs/experiments.md §7): per environment its latest plan, its steps as
// a timeline with where it is, each guardrail's latest interval, and the buttons (start, pause, resume, roll
// back) for people who may change that environment; "New release plan" sets one up. The server checks the
// rest and names the field it refuses.
import { useId, useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import type { Flag } from '../../api'
import { experimentKeys, experimentsApi } from '../../experiments-api'
import {
  releasePlanKeys,
  releasePlansApi,
  type GuardrailReading,
  type PlanAction,
  type ReleasePlan,
  type ReleasePlanInput,
} from '../../release-plans-api'
import { useApiMutation } from '../../mutations'
import { useSession } from '../../session'
import { Link } from '../../router'
import { keys } from '../../api'
import { CreateDialog } from '../../components/CreateDialog'
import { ErrorMessage } from '../../components/ErrorMessage'
import { Loading } from '../../components/State'

const STATE_TEXT: Record<ReleasePlan['state'], string> = {
  draft: 'Draft',
  awaiting_approval: 'Awaiting approval',
  running: 'Running',
  paused: 'Paused',
  rolled_back: 'Rolled back',
  completed: 'Completed',
}
const pct = (x: number) => `${x > 0 ? '+' : ''}${(x * 100).toFixed(1)} %`
const minutes = (m: number) =>
  m >= 1440
    ? `${+(m / 1440).toFixed(1)} d`
    : m >= 60
      ? `${+(m / 60).toFixed(1)} h`
      : m >= 1
        ? `${+m.toFixed(1)} min`
        : `${Math.round(m * 60)} s`

export function ReleasePlans({ flag, environments }: { flag: Flag; environments: string[] }) {
  const { can } = useSession()
  const titleId = useId()
  const query = useQuery({
    queryKey: releasePlanKeys.flag(flag.key),
    queryFn: () => releasePlansApi.list(flag.key),
    refetchInterval: (q) => (q.state.data?.some((p) => p.state === 'running' || p.state === 'awaiting_approval') ? 3000 : false),
  })
  const [creating, setCreating] = useState(false)
  const latest = environments.map((env) => [env, query.data?.find((p) => p.environment === env)] as const).filter(([, p]) => p)
  const mayCreate = environments.some((e) => can.writeEnv(e))

  return (
    <section className="card release-plans-card" aria-labelledby={titleId}>
      <div className="card-head">
        <h2 className="card-title" id={titleId}>
          Release plans
        </h2>
      </div>
      {query.isPending ? (
        <Loading label="Loading release plans…" />
      ) : query.isError ? (
        <ErrorMessage error={query.error} title="Could not load the release plans" />
      ) : latest.length === 0 ? (
        <p className="muted">No release plan: raise the rollout step by step, rolled back by itself when a guardrail metric gets worse.</p>
      ) : (
        latest.map(([env, plan]) => <PlanView key={env} plan={plan!} canAct={can.writeEnv(env)} />)
      )}
      {mayCreate && (
        <button type="button" className="btn" onClick={() => setCreating(true)}>
          New release plan
        </button>
      )}
      {creating && (
        <NewReleasePlan flag={flag} environments={environments.filter((e) => can.writeEnv(e))} onClose={() => setCreating(false)} />
      )}
    </section>
  )
}

function PlanView({ plan, canAct }: { plan: ReleasePlan; canAct: boolean }) {
  const act = useApiMutation(releasePlansApi.act, [releasePlanKeys.flag(plan.flag), keys.flags])
  const actions: [PlanAction, string][] =
    plan.state === 'draft'
      ? [['start', 'Start']]
      : plan.state === 'running'
        ? [
            ['pause', 'Pause'],
            ['rollback', 'Roll back'],
          ]
        : plan.state === 'paused'
          ? [
              ['resume', 'Resume'],
              ['rollback', 'Roll back'],
            ]
          : []
  return (
    <article className={`release-plan release-plan-${plan.state}`} aria-label={`Release plan in ${plan.environment}`}>
      <div className="release-plan-head">
        <strong>{plan.environment}</strong>
        <span className={`badge release-state-${plan.state}`} data-testid="plan-state">
          {STATE_TEXT[plan.state]}
        </span>
        {plan.current_step > 0 && (
          <span className="muted small">
            step {plan.current_step} of {plan.steps.length} · {plan.percentage} %{plan.variant ? ` ${plan.variant}` : ''}
          </span>
        )}
      </div>
      <ol className="release-steps" aria-label="Steps">
        {plan.steps.map((s, i) => {
          const n = i + 1
          const where = n < plan.current_step || plan.state === 'completed' ? 'done' : n === plan.current_step ? 'current' : 'todo'
          return (
            <li key={n} className={`release-step release-step-${where}`} aria-current={where === 'current' ? 'step' : undefined}>
              <span className="release-step-pct">{s.percentage} %</span>
              <span className="release-step-hold muted small">hold {minutes(s.hold_minutes)}</span>
            </li>
          )
        })}
      </ol>
      {plan.reason && (
        <p className={`alert ${plan.state === 'rolled_back' ? 'alert-error' : 'alert-warning'}`} role="status">
          {plan.reason === 'regression'
            ? `Regression on ${plan.metric}`
            : plan.reason === 'srm'
              ? 'Sample-ratio mismatch: the arms are not in the rollout’s proportions'
              : 'By hand'}
        </p>
      )}
      {plan.state === 'awaiting_approval' && plan.pending_change_request && (
        <p className="hint">
          Starts when <Link to={`/change-requests/${plan.pending_change_request}`}>its change request</Link> is applied.
        </p>
      )}
      {plan.checked_at && (
        <p className="muted small">
          Units in this step: {plan.units.treatment} with the new value, {plan.units.control} without (at least {plan.min_units} each to
          advance).
        </p>
      )}
      {plan.guardrails.length > 0 && (
        <table className="table compact release-guardrails">
          <caption className="sr-only">Guardrails</caption>
          <thead>
            <tr>
              <th scope="col">Guardrail</th>
              <th scope="col">Change (95 %)</th>
              <th scope="col">Interval</th>
            </tr>
          </thead>
          <tbody>
            {plan.guardrails.map((g) => (
              <GuardrailRow
                key={g.metric}
                metric={g.metric}
                allowed={g.max_degradation}
                reading={plan.guardrail_results.find((r) => r.metric === g.metric)}
              />
            ))}
          </tbody>
        </table>
      )}
      {canAct && actions.length > 0 && (
        <div className="btn-group">
          {actions.map(([action, label]) => (
            <button
              key={action}
              type="button"
              className={`btn${action === 'rollback' ? ' btn-danger-outline' : action === 'start' ? ' btn-primary' : ''}`}
              disabled={act.isPending}
              onClick={() => act.mutate({ flag: plan.flag, id: plan.id, action })}
            >
              {label}
            </button>
          ))}
        </div>
      )}
      <ErrorMessage error={act.error} title="Could not change the release plan" />
    </article>
  )
}

/** One guardrail: its interval as a bar against zero (green when wholly good, red when a regression). */
function GuardrailRow({ metric, allowed, reading }: { metric: string; allowed: number; reading?: GuardrailReading }) {
  const ci = reading?.ci
  const span = ci ? Math.max(0.05, Math.abs(ci[0]!), Math.abs(ci[1]!)) : 1
  const at = (x: number) => 50 + (x / span) * 50
  const tone = !ci ? '' : reading!.regressed ? 'bad' : ci[0]! > 0 ? 'good' : ''
  return (
    <tr className={reading?.regressed ? 'regressed' : undefined}>
      <th scope="row">
        <span className="mono">{metric}</span>
        {allowed > 0 && <span className="muted small"> (−{(allowed * 100).toFixed(1)} % allowed)</span>}
      </th>
      <td data-testid={`interval-${metric}`}>{ci ? `${pct(ci[0]!)} to ${pct(ci[1]!)}` : 'not measured yet'}</td>
      <td>
        {ci && (
          <svg className="interval-bar" viewBox="0 0 100 10" width="120" height="12" role="img" aria-label={`Interval of ${metric}`}>
            <line x1="50" x2="50" y1="0" y2="10" className="interval-zero" />
            <rect x={at(ci[0]!)} width={Math.max(1, at(ci[1]!) - at(ci[0]!))} y="2" height="6" className={`interval-${tone || 'none'}`} />
          </svg>
        )}
      </td>
    </tr>
  )
}

function NewReleasePlan({ flag, environments, onClose }: { flag: Flag; environments: string[]; onClose: () => void }) {
  const metrics = useQuery({ queryKey: experimentKeys.metrics, queryFn: experimentsApi.metrics })
  const [environment, setEnvironment] = useState(environments[0] ?? '')
  const variantNames = Object.keys(flag.variants ?? {})
  const [variant, setVariant] = useState(variantNames.find((v) => v !== flag.default_variant) ?? '')
  const [steps, setSteps] = useState([
    { percentage: '5', hold: '60' },
    { percentage: '25', hold: '60' },
    { percentage: '50', hold: '60' },
    { percentage: '100', hold: '60' },
  ])
  const [guardrails, setGuardrails] = useState<string[]>([])
  const [minUnits, setMinUnits] = useState('100')
  const [onRegression, setOnRegression] = useState<'rollback' | 'pause'>('rollback')
  const create = useApiMutation(releasePlansApi.create, [releasePlanKeys.flag(flag.key)], () => onClose())
  const submit = () => {
    const body: ReleasePlanInput = {
      environment,
      ...(variantNames.length > 0 && { variant }),
      steps: steps.map((s) => ({ percentage: Number(s.percentage), hold_minutes: Number(s.hold) })),
      guardrails: guardrails.map((metric) => ({ metric })),
      min_units: Number(minUnits),
      on_regression: onRegression,
    }
    create.mutate({ flag: flag.key, body })
  }
  const setStep = (i: number, field: 'percentage' | 'hold', v: string) =>
    setSteps(steps.map((s, k) => (k === i ? { ...s, [field]: v } : s)))
  return (
    <CreateDialog noun="release plan" mutation={create} onClose={onClose} disabled={!environment || steps.length < 2} onSubmit={submit}>
      <label className="field">
        <span className="field-label">Environment</span>
        <select value={environment} onChange={(e) => setEnvironment(e.target.value)}>
          {environments.map((e) => (
            <option key={e} value={e}>
              {e}
            </option>
          ))}
        </select>
      </label>
      {variantNames.length > 0 && (
        <label className="field">
          <span className="field-label">New variant</span>
          <select value={variant} onChange={(e) => setVariant(e.target.value)}>
            {variantNames.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
          <span className="hint">Its weight rises with the steps; the rest is served {flag.default_variant ?? 'the default variant'}.</span>
        </label>
      )}
      <fieldset className="field fieldset">
        <legend className="field-label">Steps</legend>
        {steps.map((s, i) => (
          <div className="row-fields" key={i}>
            <label className="field">
              <span className="field-label">Step {i + 1} %</span>
              <input
                inputMode="decimal"
                value={s.percentage}
                onChange={(e) => setStep(i, 'percentage', e.target.value)}
                aria-label={`Step ${i + 1} percentage`}
              />
            </label>
            <label className="field">
              <span className="field-label">Hold (minutes)</span>
              <input
                inputMode="decimal"
                value={s.hold}
                onChange={(e) => setStep(i, 'hold', e.target.value)}
                aria-label={`Step ${i + 1} hold minutes`}
              />
            </label>
          </div>
        ))}
        <div className="btn-group">
          {steps.length < 20 && (
            <button type="button" className="btn btn-small" onClick={() => setSteps([...steps, { percentage: '100', hold: '60' }])}>
              Add a step
            </button>
          )}
          {steps.length > 2 && (
            <button type="button" className="btn btn-small" onClick={() => setSteps(steps.slice(0, -1))}>
              Remove the last step
            </button>
          )}
        </div>
      </fieldset>
      <fieldset className="field fieldset">
        <legend className="field-label">Guardrails</legend>
        {metrics.data?.length ? (
          metrics.data.map((m) => (
            <label key={m.key} className="checkbox">
              <input
                type="checkbox"
                checked={guardrails.includes(m.key)}
                onChange={(e) => setGuardrails(e.target.checked ? [...guardrails, m.key] : guardrails.filter((k) => k !== m.key))}
              />
              <span className="mono">{m.key}</span>{' '}
              <span className="muted small">{m.higher_is_better ? 'higher is better' : 'lower is better'}</span>
            </label>
          ))
        ) : (
          <p className="muted small">No metrics yet: define them under Metrics to watch them.</p>
        )}
      </fieldset>
      <div className="row-fields">
        <label className="field">
          <span className="field-label">Units per arm to advance</span>
          <input inputMode="numeric" value={minUnits} onChange={(e) => setMinUnits(e.target.value)} />
        </label>
        <label className="field">
          <span className="field-label">On a regression</span>
          <select value={onRegression} onChange={(e) => setOnRegression(e.target.value as 'rollback' | 'pause')}>
            <option value="rollback">roll back to 0 %</option>
            <option value="pause">pause</option>
          </select>
        </label>
      </div>
    </CreateDialog>
  )
}
