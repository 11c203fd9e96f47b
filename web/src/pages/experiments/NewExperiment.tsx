// The form that sets up an experiment (a draft) on a flag with variants and a split in one environment:
// which variant is the control, which metrics decide (goal), protect (guardrail) or inform (secondary), and
// the statistics' settings with the API's defaults. The server checks the rest and names the field it refuses.
import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { flagQueries } from '../../queries'
import { experimentKeys, experimentsApi, type Correction, type Engine, type ExperimentInput } from '../../experiments-api'
import { splitOf } from '../../experiment-view'
import { navigate } from '../../router'
import { useSession } from '../../session'
import { useApiMutation } from '../../mutations'
import { CreateDialog, KeyField } from '../../components/CreateDialog'
import { experimentPath } from './parts'

type Role = 'goal' | 'guardrail' | 'secondary'

export function NewExperimentDialog({ onClose }: { onClose: () => void }) {
  const { can, project } = useSession()
  const flags = useQuery(flagQueries.all())
  const metrics = useQuery({ queryKey: experimentKeys.metrics, queryFn: experimentsApi.metrics })
  const environments = (project.data?.environments ?? []).filter((e) => can.writeEnv(e))
  const withVariants = (flags.data ?? []).filter((f) => f.variants && Object.keys(f.variants).length >= 2)

  const [key, setKey] = useState('')
  const [name, setName] = useState('')
  const [hypothesis, setHypothesis] = useState('')
  const [flagKey, setFlagKey] = useState('')
  const [environment, setEnvironment] = useState('')
  const [control, setControl] = useState('')
  const [roles, setRoles] = useState<Record<string, Role | ''>>({})
  const [engine, setEngine] = useState<Engine>('bayesian')
  const [sequential, setSequential] = useState(true)
  const [alpha, setAlpha] = useState('0.05')
  const [correction, setCorrection] = useState<Correction>('none')
  const [cuped, setCuped] = useState(true)
  const [unit, setUnit] = useState('user_id')

  const flag = withVariants.find((f) => f.key === flagKey)
  const env = environment || environments[0] || ''
  const split = flag ? splitOf(flag, env) : []
  const chosen = (role: Role) =>
    Object.entries(roles)
      .filter(([, r]) => r === role)
      .map(([k]) => k)

  const create = useApiMutation(experimentsApi.createExperiment, [experimentKeys.all], (r) => navigate(experimentPath(r.experiment.key)))
  const submit = () => {
    const body: ExperimentInput = {
      key: key.trim(),
      name: name.trim() || key.trim(),
      flag: flagKey,
      environment: env,
      goal_metrics: chosen('goal'),
      guardrail_metrics: chosen('guardrail'),
      secondary_metrics: chosen('secondary'),
      engine,
      alpha: Number(alpha),
      correction,
      cuped,
      unit: unit.trim() || 'user_id',
      ...(engine === 'frequentist' && { sequential }),
      ...(control && { control }),
      ...(hypothesis.trim() && { hypothesis: hypothesis.trim() }),
    }
    create.mutate(body)
  }

  return (
    <CreateDialog
      noun="experiment"
      mutation={create}
      onClose={onClose}
      disabled={!key.trim() || !flagKey || !env || chosen('goal').length === 0}
      onSubmit={submit}
    >
      <KeyField value={key} onChange={setKey} placeholder="checkout-button-colour" />
      <label className="field">
        <span className="field-label">Name</span>
        <input value={name} onChange={(e) => setName(e.target.value)} placeholder="Checkout button colour" />
      </label>
      <label className="field">
        <span className="field-label">Hypothesis</span>
        <textarea value={hypothesis} onChange={(e) => setHypothesis(e.target.value)} rows={2} placeholder="A green button sells more" />
      </label>
      <div className="row-fields">
        <label className="field">
          <span className="field-label">Flag</span>
          <select
            value={flagKey}
            onChange={(e) => {
              setFlagKey(e.target.value)
              setControl('')
            }}
            required
          >
            <option value="">
              {flags.isPending ? 'Loading flags…' : withVariants.length ? 'Choose a flag with variants' : 'No flag has variants yet'}
            </option>
            {withVariants.map((f) => (
              <option key={f.key} value={f.key}>
                {f.key}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span className="field-label">Environment</span>
          <select value={env} onChange={(e) => setEnvironment(e.target.value)}>
            {environments.map((e) => (
              <option key={e} value={e}>
                {e}
              </option>
            ))}
          </select>
        </label>
      </div>
      {flag &&
        (split.length ? (
          <p className="hint" aria-label="Split">
            Split in {env}: {split.map((s) => `${s.variant} ${s.weight} %`).join(' · ')}
          </p>
        ) : (
          <p className="alert alert-warning" role="status">
            <strong className="mono">{flag.key}</strong> has no split in {env}: give it a weighted split of its variants on the flag page
            first.
          </p>
        ))}
      {split.length > 0 && (
        <label className="field">
          <span className="field-label">Control</span>
          <select value={control || split[0]!.variant} onChange={(e) => setControl(e.target.value)}>
            {split.map((s) => (
              <option key={s.variant} value={s.variant}>
                {s.variant}
              </option>
            ))}
          </select>
          <span className="hint">The variant every other one is compared with.</span>
        </label>
      )}
      <fieldset className="field fieldset">
        <legend className="field-label">Metrics</legend>
        {metrics.data?.length ? (
          <table className="table compact metric-roles">
            <caption className="sr-only">Metric roles</caption>
            <tbody>
              {metrics.data.map((m) => (
                <tr key={m.key}>
                  <th scope="row">
                    <span className="mono">{m.key}</span> <span className="muted small">{m.kind}</span>
                  </th>
                  <td>
                    <select
                      aria-label={`Role of ${m.key}`}
                      value={roles[m.key] ?? ''}
                      onChange={(e) => setRoles({ ...roles, [m.key]: e.target.value as Role | '' })}
                    >
                      <option value="">not measured</option>
                      <option value="goal">goal</option>
                      <option value="guardrail">guardrail</option>
                      <option value="secondary">secondary</option>
                    </select>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="muted">{metrics.isPending ? 'Loading metrics…' : 'No metrics yet: define one on the Metrics page first.'}</p>
        )}
        <span className="hint">At least one goal: goals decide, guardrails must not get worse, secondaries are for insight.</span>
      </fieldset>
      <div className="row-fields">
        <label className="field">
          <span className="field-label">Engine</span>
          <select value={engine} onChange={(e) => setEngine(e.target.value as Engine)}>
            <option value="bayesian">Bayesian (chance to win)</option>
            <option value="frequentist">Frequentist (p-values)</option>
          </select>
        </label>
        <label className="field">
          <span className="field-label">Alpha</span>
          <input type="number" min="0.001" max="0.499" step="0.001" value={alpha} onChange={(e) => setAlpha(e.target.value)} />
        </label>
        <label className="field">
          <span className="field-label">Unit attribute</span>
          <input value={unit} onChange={(e) => setUnit(e.target.value)} className="mono" />
        </label>
      </div>
      {engine === 'frequentist' && (
        <div className="row-fields">
          <label className="checkbox">
            <input type="checkbox" checked={sequential} onChange={(e) => setSequential(e.target.checked)} /> Sequential test (safe to look
            at any time)
          </label>
          <label className="field">
            <span className="field-label">Correction over goals × variants</span>
            <select value={correction} onChange={(e) => setCorrection(e.target.value as Correction)}>
              <option value="none">none</option>
              <option value="holm">Holm–Bonferroni</option>
              <option value="bh">Benjamini–Hochberg</option>
            </select>
          </label>
        </div>
      )}
      <label className="checkbox">
        <input type="checkbox" checked={cuped} onChange={(e) => setCuped(e.target.checked)} /> CUPED (use the 14 days before exposure to
        narrow the intervals)
      </label>
    </CreateDialog>
  )
}
