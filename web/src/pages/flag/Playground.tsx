// The evaluation playground beside a flag: a context in, the server's answer (value, type, reason, variant)
// out, with the trace of how it was reached. It evaluates the draft being edited (POST …/explain with the
// draft), so "why does this user get this" is answered before saving; without an editor, the stored flag.
import { useState, type FormEvent } from 'react'
import { useQuery } from '@tanstack/react-query'
import { keys, type EvaluationContext, type Json, type Reason } from '../../api'
import { lifecycleApi } from '../../lifecycle-api'
import { parseJson } from '../../format'
import { TraceList } from './TraceList'
import { ErrorMessage } from '../../components/ErrorMessage'
import { JsonEditor } from '../../components/JsonEditor'
import { Options } from '../../components/Options'
import { Loading } from '../../components/State'

type EvaluationResultView = { value: Json; type: string; reason: Reason; variant?: string | null }

const REASON_TEXT: Record<Reason, string> = {
  disabled: 'The flag (or its environment override) is off, or now is outside the active window.',
  override: 'Individual targeting for this user_id decided.',
  targeting: 'A targeting rule matched.',
  rollout: 'The percentage rollout decided.',
  default: 'No override, rule or rollout applied: the flag’s value.',
  environment_override: 'The environment override’s value applied.',
  prerequisite_failed: 'A prerequisite flag did not serve what this flag requires, so it is off.',
}

/** The reason in words; for `disabled`, which switch (or the window) it was, from the trace: an environment
 *  whose own switch is off is not "the flag is off". */
function reasonText(reason: Reason, trace: readonly Record<string, unknown>[] | undefined): string {
  // Whose rules decided (docs/flag-switches.md): an environment's own rules say so in the trace.
  const own = trace?.find((s) => s.step === 'environment_override' && typeof s.rules === 'string')?.rules
  if ((reason === 'override' || reason === 'targeting' || reason === 'rollout') && trace)
    return `${REASON_TEXT[reason]} Decided by ${typeof own === 'string' ? own : 'the flag’s rules'}.`
  if (reason !== 'disabled' || !trace) return REASON_TEXT[reason]
  const env = trace.find((s) => s.step === 'environment_override')
  const decided = trace.find((s) => s.decided)
  if (decided?.step === 'active_window') return 'Now is outside the flag’s active window, so it is off.'
  if (env?.applied === true)
    return (
      `The ${String(env.environment)} override is off: ` +
      `${String(env.environment)} has its own switch, which decides there (the main switch does not).`
    )
  return `The main switch is off${typeof env?.environment === 'string' ? ` and ${env.environment} has no switch of its own` : ''}.`
}

interface Props {
  flagKey: string
  environments: string[]
  /** the editor's draft as flag fields (null while it has problems); undefined: no editor, the stored flag */
  draft?: object | null
}

export function Playground({ flagKey, environments, draft }: Props) {
  const [userId, setUserId] = useState('')
  const [plan, setPlan] = useState('')
  const [environment, setEnvironment] = useState('')
  const [customText, setCustomText] = useState('{}')
  const [context, setContext] = useState<EvaluationContext | null>(null)
  const custom = parseJson(customText)
  const customOk = custom.ok && custom.value !== null && typeof custom.value === 'object' && !Array.isArray(custom.value)
  // Under the flag's keys, so a change to the flag (or any flag: prerequisites) evaluates again.
  const explained = useQuery({
    queryKey: [...keys.evaluations(flagKey), 'explain', context, draft ?? null],
    queryFn: () => lifecycleApi.explain(flagKey, context ?? {}, draft ?? undefined),
    enabled: context !== null,
    staleTime: 0,
  })
  const result = { ...explained, data: explained.data?.result as EvaluationResultView | undefined }

  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (!customOk) return
    const ctx: EvaluationContext = {}
    if (userId.trim()) ctx.user_id = userId.trim()
    if (plan.trim()) ctx.plan = plan.trim()
    if (environment) ctx.environment = environment
    if (Object.keys(custom.value as object).length) ctx.custom = custom.value as Record<string, Json>
    setContext(ctx)
    if (JSON.stringify(ctx) === JSON.stringify(context)) void result.refetch()
  }

  return (
    <section className="card playground" aria-labelledby="playground-title">
      <h2 className="card-title" id="playground-title">
        Evaluation playground
      </h2>
      <form className="form" onSubmit={submit}>
        <label className="field">
          <span className="field-label">user_id</span>
          <input value={userId} onChange={(e) => setUserId(e.target.value)} aria-label="Context user_id" className="mono" />
        </label>
        <label className="field">
          <span className="field-label">plan</span>
          <input value={plan} onChange={(e) => setPlan(e.target.value)} aria-label="Context plan" className="mono" />
        </label>
        <label className="field">
          <span className="field-label">environment</span>
          <select value={environment} onChange={(e) => setEnvironment(e.target.value)} aria-label="Context environment">
            <option value="">(none)</option>
            <Options values={environments} />
          </select>
        </label>
        <JsonEditor
          label="Custom attributes"
          value={customText}
          onChange={setCustomText}
          rows={2}
          hint='An object, e.g. {"country": "NL"}'
        />
        {custom.ok && !customOk && <p className="field-error">Custom attributes must be a JSON object.</p>}
        <button type="submit" className="btn btn-primary" disabled={!customOk}>
          Evaluate
        </button>
      </form>
      {context && (
        <div className="eval-result" aria-live="polite" aria-label="Evaluation result" role="region">
          {result.isFetching && !result.data ? (
            <Loading label="Evaluating…" />
          ) : result.isError ? (
            <ErrorMessage error={result.error} title="Evaluation failed" />
          ) : result.data ? (
            <dl className="kv">
              <dt>Value</dt>
              <dd>
                <code data-testid="eval-value">{JSON.stringify(result.data.value)}</code>
              </dd>
              <dt>Type</dt>
              <dd>
                <span className="badge" data-testid="eval-type">
                  {result.data.type}
                </span>
              </dd>
              {result.data.variant !== undefined && (
                <>
                  <dt>Variant</dt>
                  <dd>
                    <span className="badge" data-testid="eval-variant">
                      {result.data.variant ?? '(off value)'}
                    </span>
                  </dd>
                </>
              )}
              <dt>Reason</dt>
              <dd>
                <span className={`badge reason reason-${result.data.reason}`} data-testid="eval-reason">
                  {result.data.reason}
                </span>
                <div className="muted small" data-testid="eval-reason-text">
                  {reasonText(result.data.reason, explained.data?.trace as Record<string, unknown>[] | undefined)}
                </div>
              </dd>
            </dl>
          ) : null}
          {explained.data && <TraceList trace={explained.data.trace} />}
          <p className="muted small">
            {draft === null
              ? 'The draft has problems: this is the saved flag. '
              : draft
                ? 'Evaluated: the draft (unsaved edits included). '
                : ''}
            Context sent: <code>{JSON.stringify(context)}</code>
          </p>
        </div>
      )}
    </section>
  )
}
