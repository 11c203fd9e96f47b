// One flag: edit value, rules, individual targeting, rollout, environments and active window (saved with
// If-Match), delete it, and try it in the evaluation playground.
import { useState, type FormEvent } from 'react'
import { useQuery } from '@tanstack/react-query'
import { api, keys, type EvaluationContext, type Flag, type Json, type Reason, type Rule, type Targeting } from '../api'
import { Link, navigate } from '../router'
import { useSession } from '../session'
import { useResource } from '../queries'
import { dateTime, isoToLocalInput, jsonOr, localInputToIso, parseJson, preview, toJsonText, valueType } from '../format'
import { ConditionEditor, conditionToDraft, describeCondition, draftsToConditions, emptyCondition, move, newDraftId, type ConditionDraft } from '../components/ConditionEditor'
import { ConfirmDialog, useConfirmAction } from '../components/ConfirmDialog'
import { DocumentForm, VersionStamp, useDocumentEditor, type Built } from '../components/DocumentEditor'
import { ErrorMessage } from '../components/ErrorMessage'
import { JsonEditor } from '../components/JsonEditor'
import { Loaded } from '../components/Loaded'
import { Loading, PageHeader, StatusPill } from '../components/State'
import { Switch } from '../components/Switch'
import { flagValueTypeIssues } from '../../../server/engine/validate'

// ---- the editable form of a flag ----

interface RuleDraft { id: string; conditions: ConditionDraft[]; valueText: string }
interface OverrideDraft { id: string; userId: string; valueText: string }
interface EnvDraft { overridden: boolean; enabled: boolean; hasValue: boolean; valueText: string }
interface FlagDraft {
  enabled: boolean
  valueText: string
  rules: RuleDraft[]
  overrides: OverrideDraft[]
  rolloutOn: boolean
  percentage: string
  attribute: string
  envs: Record<string, EnvDraft>
  activeFrom: string
  activeUntil: string
}

/** The editable fields of a flag, with empty optional parts normalised so equal flags compare equal. */
type FlagBody = Pick<Flag, 'enabled' | 'value' | 'targeting' | 'environments' | 'active_from' | 'active_until'>

function normaliseTargeting(t: Targeting | null | undefined): Targeting | null {
  if (!t) return null
  const out: Targeting = {}
  if (t.rules?.length) out.rules = t.rules
  if (t.overrides && Object.keys(t.overrides).length) out.overrides = t.overrides
  if (t.rollout) out.rollout = t.rollout
  return Object.keys(out).length ? out : null
}

function bodyOf(f: Flag): FlagBody {
  return {
    enabled: f.enabled,
    value: f.value,
    targeting: normaliseTargeting(f.targeting),
    environments: f.environments ?? {},
    active_from: f.active_from ?? null,
    active_until: f.active_until ?? null,
  }
}

function toDraft(f: Flag, environments: string[]): FlagDraft {
  const t = f.targeting ?? {}
  const envs: Record<string, EnvDraft> = {}
  for (const env of new Set([...environments, ...Object.keys(f.environments ?? {})])) {
    const o = f.environments?.[env]
    envs[env] = { overridden: !!o, enabled: o?.enabled ?? f.enabled, hasValue: o?.value !== undefined, valueText: toJsonText(o?.value !== undefined ? o.value : f.value) }
  }
  return {
    enabled: f.enabled,
    valueText: toJsonText(f.value),
    rules: (t.rules ?? []).map((r) => ({ id: newDraftId(), conditions: r.conditions.map(conditionToDraft), valueText: toJsonText(r.value) })),
    overrides: Object.entries(t.overrides ?? {}).map(([userId, v]) => ({ id: newDraftId(), userId, valueText: toJsonText(v, false) })),
    rolloutOn: !!t.rollout,
    percentage: t.rollout ? String(t.rollout.percentage) : '50',
    attribute: t.rollout?.attribute ?? 'user_id',
    envs,
    activeFrom: isoToLocalInput(f.active_from),
    activeUntil: isoToLocalInput(f.active_until),
  }
}

/** The draft as flag fields, or the problems that block saving. */
function fromDraft(d: FlagDraft, base: Flag): Built<FlagBody> {
  const problems: string[] = []
  const json = (text: string, where: string): Json => {
    const r = parseJson(text)
    if (!r.ok) problems.push(`${where}: ${r.error}`)
    return r.ok ? r.value : null
  }
  const value = json(d.valueText, 'Value')
  const rules: Rule[] = d.rules.map((r, i) => {
    const c = draftsToConditions(r.conditions, `Rule ${i + 1}`)
    if (!c.ok) problems.push(c.error)
    return { conditions: c.ok ? c.conditions : [], value: json(r.valueText, `Rule ${i + 1} value`) }
  })
  const overrides: Record<string, Json> = {}
  for (const o of d.overrides) {
    const id = o.userId.trim()
    if (!id) problems.push('Individual targeting: every row needs a user id.')
    else if (id in overrides) problems.push(`Individual targeting: user "${id}" appears twice.`)
    overrides[id] = json(o.valueText, `Value for user "${id}"`)
  }
  let rollout: Targeting['rollout'] = null
  if (d.rolloutOn) {
    const pct = Number(d.percentage)
    if (d.percentage.trim() === '' || !Number.isFinite(pct) || pct < 0 || pct > 100) problems.push('Rollout: percentage must be a number from 0 to 100.')
    if (!d.attribute.trim()) problems.push('Rollout: name the context attribute used for bucketing.')
    rollout = { percentage: pct, attribute: d.attribute.trim() }
  }
  const environments: NonNullable<Flag['environments']> = {}
  for (const [env, e] of Object.entries(d.envs)) {
    if (!e.overridden) continue
    environments[env] = e.hasValue ? { enabled: e.enabled, value: json(e.valueText, `${env} value`) } : { enabled: e.enabled }
  }
  const date = (local: string, original: string | null | undefined) =>
    local && local === isoToLocalInput(original) ? (original as string) : localInputToIso(local)
  const active_from = date(d.activeFrom, base.active_from)
  const active_until = date(d.activeUntil, base.active_until)
  if (active_from && active_until && Date.parse(active_from) >= Date.parse(active_until)) problems.push('Active window: "until" must be after "from".')
  // Every answer has the flag value's type (null aside), as the server requires, said as it says it.
  if (!problems.length) problems.push(...flagValueTypeIssues({ value, targeting: { rules, overrides }, environments }).map((i) => i.message))
  if (problems.length) return { ok: false, problems }
  return {
    ok: true,
    body: {
      enabled: d.enabled,
      value,
      targeting: normaliseTargeting({ rules, overrides, rollout }),
      environments,
      active_from,
      active_until,
    },
  }
}

// ---- page ----

export function FlagPage({ flagKey }: { flagKey: string }) {
  const { can, project } = useSession()
  const { query, fetchCurrent } = useResource(keys.flag(flagKey), () => api.flag(flagKey))
  const environments = project.data?.environments ?? []
  const del = useConfirmAction(() => api.deleteFlag(flagKey), [keys.flags], () => navigate('/', { force: true }))

  if (project.isLoading) return <Loading label="Loading flag…" />
  return (
    <Loaded query={query} what="flag" name={flagKey} back={{ to: '/', label: 'Back to flags' }}>
      {(flag) => (
        <>
          <PageHeader
            back={<Link to="/">← Flags</Link>}
            title={<span className="mono">{flag.key}</span>}
            subtitle={
              <>
                <StatusPill on={flag.enabled} /> <span className="badge">{valueType(flag.value)}</span> <VersionStamp doc={flag} />
              </>
            }
            actions={
              can.writeFlags && (
                <button type="button" className="btn btn-danger-outline" onClick={() => del.ask(flag.key)}>
                  Delete flag
                </button>
              )
            }
          />
          <div className="detail-grid">
            <div className="detail-main">{can.writeFlags ? <FlagEditor flag={flag} environments={environments} fetchCurrent={fetchCurrent} /> : <FlagReadOnly flag={flag} />}</div>
            <aside className="detail-side">
              <Playground flagKey={flag.key} environments={environments} />
            </aside>
          </div>
          {del.target !== null && (
            <ConfirmDialog title={`Delete flag “${flag.key}”?`} confirmLabel="Delete flag" {...del.dialogProps}>
              <p>Applications evaluating this flag will get “not found” from now on. This cannot be undone (the audit log keeps its last state).</p>
            </ConfirmDialog>
          )}
        </>
      )}
    </Loaded>
  )
}

function FlagEditor({ flag, environments, fetchCurrent }: { flag: Flag; environments: string[]; fetchCurrent: () => Promise<Flag | undefined> }) {
  const { draft, base, setDraft, form } = useDocumentEditor({
    doc: flag,
    name: `Flag “${flag.key}”`,
    toDraft: (f: Flag) => toDraft(f, environments),
    build: fromDraft,
    bodyOf,
    put: (p, version) => api.updateFlag(flag.key, p as Partial<Flag>, version),
    fetchCurrent,
    invalidate: [keys.flags],
    listPath: '/',
  })

  if (!base || !draft) return null
  const set = (p: Partial<FlagDraft>) => setDraft({ ...draft, ...p })
  const setRule = (i: number, p: Partial<RuleDraft>) => set({ rules: draft.rules.map((r, n) => (n === i ? { ...r, ...p } : r)) })
  const setOverride = (i: number, p: Partial<OverrideDraft>) => set({ overrides: draft.overrides.map((o, n) => (n === i ? { ...o, ...p } : o)) })
  const setEnv = (env: string, p: Partial<EnvDraft>) => set({ envs: { ...draft.envs, [env]: { ...draft.envs[env], ...p } } })

  return (
    <DocumentForm form={form} label="Edit flag" className="form flag-form">
      <section className="card">
        <h2 className="card-title">Status and value</h2>
        <Switch checked={draft.enabled} onChange={(enabled) => set({ enabled })} label="Flag enabled" showLabel />
        <p className="hint">When off, evaluation returns the off value ({valueType(jsonOr(draft.valueText, null)) === 'boolean' ? 'false' : 'null'}) with reason “disabled”.</p>
        <JsonEditor label="Value" value={draft.valueText} onChange={(valueText) => set({ valueText })} hint="Served when the flag is on and no override, rule or rollout decides otherwise." />
      </section>

      <section className="card">
        <h2 className="card-title">Targeting rules</h2>
        <p className="hint">Rules are checked top to bottom; the first whose conditions all hold serves its value.</p>
        {draft.rules.length === 0 && <p className="muted">No rules yet.</p>}
        <ol className="rules">
          {draft.rules.map((r, i) => (
            <li key={r.id} className="rule">
              <div className="rule-head">
                <h3>Rule {i + 1}</h3>
                <div className="btn-group">
                  <button type="button" className="btn-icon" aria-label={`Move rule ${i + 1} up`} disabled={i === 0} onClick={() => set({ rules: move(draft.rules, i, -1) })}>
                    ↑
                  </button>
                  <button type="button" className="btn-icon" aria-label={`Move rule ${i + 1} down`} disabled={i === draft.rules.length - 1} onClick={() => set({ rules: move(draft.rules, i, 1) })}>
                    ↓
                  </button>
                  <button type="button" className="btn btn-small btn-danger-outline" aria-label={`Remove rule ${i + 1}`} onClick={() => set({ rules: draft.rules.filter((_, n) => n !== i) })}>
                    Remove
                  </button>
                </div>
              </div>
              <ConditionEditor label={`Rule ${i + 1}`} conditions={r.conditions} onChange={(conditions) => setRule(i, { conditions })} />
              <JsonEditor label={`Rule ${i + 1} value`} value={r.valueText} onChange={(valueText) => setRule(i, { valueText })} rows={1} hint="Served when every condition holds." />
            </li>
          ))}
        </ol>
        <button
          type="button"
          className="btn"
          onClick={() => set({ rules: [...draft.rules, { id: newDraftId(), conditions: [emptyCondition()], valueText: toJsonText(jsonOr(draft.valueText, true)) }] })}
        >
          + Add rule
        </button>
      </section>

      <section className="card">
        <h2 className="card-title">Individual targeting</h2>
        <p className="hint">Specific users get a fixed value, before any rule.</p>
        {draft.overrides.length > 0 && (
          <ul className="override-list">
            {draft.overrides.map((o, i) => {
              const parsed = parseJson(o.valueText)
              return (
                <li key={o.id} className="override-row">
                  <label className="field">
                    <span className="field-label">User id</span>
                    <input aria-label={`Override ${i + 1} user id`} value={o.userId} onChange={(e) => setOverride(i, { userId: e.target.value })} className="mono" />
                  </label>
                  <label className="field">
                    <span className="field-label">Value (JSON)</span>
                    <input aria-label={`Override ${i + 1} value`} value={o.valueText} onChange={(e) => setOverride(i, { valueText: e.target.value })} className="mono" aria-invalid={!parsed.ok} />
                  </label>
                  <button type="button" className="btn-icon btn-icon-danger" aria-label={`Remove override ${i + 1}`} onClick={() => set({ overrides: draft.overrides.filter((_, n) => n !== i) })}>
                    ✕
                  </button>
                  {!parsed.ok && <p className="field-error override-error">{parsed.error}</p>}
                </li>
              )
            })}
          </ul>
        )}
        <button type="button" className="btn" onClick={() => set({ overrides: [...draft.overrides, { id: newDraftId(), userId: '', valueText: toJsonText(jsonOr(draft.valueText, true), false) }] })}>
          + Add user override
        </button>
      </section>

      <section className="card">
        <h2 className="card-title">Percentage rollout</h2>
        <label className="checkbox">
          <input type="checkbox" checked={draft.rolloutOn} onChange={(e) => set({ rolloutOn: e.target.checked })} />
          Roll out to a percentage of contexts
        </label>
        {draft.rolloutOn && (
          <div className="row-fields">
            <label className="field">
              <span className="field-label">Percentage</span>
              <span className="input-suffix">
                <input type="number" min={0} max={100} step={0.01} value={draft.percentage} onChange={(e) => set({ percentage: e.target.value })} />
                <span aria-hidden="true">%</span>
              </span>
            </label>
            <label className="field">
              <span className="field-label">Bucket by attribute</span>
              <input value={draft.attribute} onChange={(e) => set({ attribute: e.target.value })} list="rollout-attributes" className="mono" />
              <datalist id="rollout-attributes">
                <option value="user_id" />
                <option value="custom.account_id" />
              </datalist>
            </label>
          </div>
        )}
        <p className="hint">Contexts whose bucket is below the percentage get the value; the rest get the off value. Contexts without the attribute are outside.</p>
      </section>

      <section className="card">
        <h2 className="card-title">Environments</h2>
        <p className="hint">An environment override replaces the flag’s switch (and optionally its value) when the context’s environment matches.</p>
        <ul className="env-list">
          {Object.entries(draft.envs).map(([env, e]) => (
            <li key={env} className="env-row">
              <label className="checkbox env-toggle">
                <input type="checkbox" checked={e.overridden} onChange={(ev) => setEnv(env, { overridden: ev.target.checked })} />
                Override in <strong>{env}</strong>
                {!environments.includes(env) && <span className="badge badge-warn">not in project</span>}
              </label>
              {e.overridden ? (
                <div className="env-detail">
                  <Switch checked={e.enabled} onChange={(enabled) => setEnv(env, { enabled })} label={`Enabled in ${env}`} showLabel />
                  <label className="checkbox">
                    <input type="checkbox" checked={e.hasValue} onChange={(ev) => setEnv(env, { hasValue: ev.target.checked })} />
                    Serve a different value in {env}
                  </label>
                  {e.hasValue && <JsonEditor label={`Value in ${env}`} value={e.valueText} onChange={(valueText) => setEnv(env, { valueText })} rows={1} />}
                </div>
              ) : (
                <span className="muted small">Follows the flag</span>
              )}
            </li>
          ))}
        </ul>
      </section>

      <section className="card">
        <h2 className="card-title">Active window</h2>
        <p className="hint">Outside this window the flag evaluates as disabled. Times are in your local time zone ({Intl.DateTimeFormat().resolvedOptions().timeZone}).</p>
        <div className="row-fields">
          <DateTimeField id="active-from" label="Active from" value={draft.activeFrom} onChange={(activeFrom) => set({ activeFrom })} />
          <DateTimeField id="active-until" label="Active until" value={draft.activeUntil} onChange={(activeUntil) => set({ activeUntil })} />
        </div>
      </section>
    </DocumentForm>
  )
}

/** A local date-time input with a Clear button (empty: no bound). */
function DateTimeField({ id, label, value, onChange }: { id: string; label: string; value: string; onChange: (v: string) => void }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="input-row">
        <input id={id} type="datetime-local" value={value} onChange={(e) => onChange(e.target.value)} />
        {value && (
          <button type="button" className="btn btn-small" onClick={() => onChange('')} aria-label={`Clear ${label.toLowerCase()}`}>
            Clear
          </button>
        )}
      </div>
    </div>
  )
}

function FlagReadOnly({ flag }: { flag: Flag }) {
  const t = flag.targeting ?? {}
  return (
    <div className="form">
      <div className="alert alert-info" role="status">
        Read-only: this token can read flags but not change them.
      </div>
      <section className="card">
        <h2 className="card-title">Value</h2>
        <pre className="code">{toJsonText(flag.value)}</pre>
      </section>
      <section className="card">
        <h2 className="card-title">Targeting rules</h2>
        {t.rules?.length ? (
          <ol className="rules">
            {t.rules.map((r, i) => (
              <li key={i} className="rule">
                <h3>Rule {i + 1}</h3>
                <ul className="condition-summary">
                  {r.conditions.map((c, n) => (
                    <li key={n}>
                      <code>{describeCondition(c)}</code>
                    </li>
                  ))}
                </ul>
                <p>
                  Serves <code>{preview(r.value, 80)}</code>
                </p>
              </li>
            ))}
          </ol>
        ) : (
          <p className="muted">No rules.</p>
        )}
      </section>
      <section className="card">
        <h2 className="card-title">Individual targeting, rollout and window</h2>
        {t.overrides && Object.keys(t.overrides).length > 0 ? (
          <ul>
            {Object.entries(t.overrides).map(([u, v]) => (
              <li key={u}>
                <code>{u}</code> → <code>{preview(v)}</code>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">No individual targeting.</p>
        )}
        <p>{t.rollout ? `Rolled out to ${t.rollout.percentage}% by ${t.rollout.attribute}.` : 'No percentage rollout.'}</p>
        <p>
          Active from {dateTime(flag.active_from ?? null)} until {dateTime(flag.active_until ?? null)}
        </p>
      </section>
      <section className="card">
        <h2 className="card-title">Environments</h2>
        {flag.environments && Object.keys(flag.environments).length ? (
          <ul>
            {Object.entries(flag.environments).map(([env, o]) => (
              <li key={env}>
                <strong>{env}</strong>: <StatusPill on={o.enabled} /> {o.value !== undefined && <code>{preview(o.value)}</code>}
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">No environment overrides.</p>
        )}
      </section>
    </div>
  )
}

// ---- evaluation playground ----

const REASON_TEXT: Record<Reason, string> = {
  disabled: 'The flag (or its environment override) is off, or now is outside the active window.',
  override: 'Individual targeting for this user_id decided.',
  targeting: 'A targeting rule matched.',
  rollout: 'The percentage rollout decided.',
  default: 'No override, rule or rollout applied: the flag’s value.',
  environment_override: 'The environment override’s value applied.',
}

function Playground({ flagKey, environments }: { flagKey: string; environments: string[] }) {
  const [userId, setUserId] = useState('')
  const [plan, setPlan] = useState('')
  const [environment, setEnvironment] = useState('')
  const [customText, setCustomText] = useState('{}')
  const [context, setContext] = useState<EvaluationContext | null>(null)
  const custom = parseJson(customText)
  const customOk = custom.ok && custom.value !== null && typeof custom.value === 'object' && !Array.isArray(custom.value)
  const result = useQuery({
    queryKey: keys.evaluation(flagKey, context ?? {}),
    queryFn: () => api.evaluate(flagKey, context ?? {}),
    enabled: context !== null,
    staleTime: 0,
  })

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
            {environments.map((env) => (
              <option key={env} value={env}>
                {env}
              </option>
            ))}
          </select>
        </label>
        <JsonEditor label="Custom attributes" value={customText} onChange={setCustomText} rows={2} hint='An object, e.g. {"country": "NL"}' />
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
                <span className="badge" data-testid="eval-type">{result.data.type}</span>
              </dd>
              <dt>Reason</dt>
              <dd>
                <span className={`badge reason reason-${result.data.reason}`} data-testid="eval-reason">
                  {result.data.reason}
                </span>
                <div className="muted small">{REASON_TEXT[result.data.reason]}</div>
              </dd>
            </dl>
          ) : null}
          <p className="muted small">
            Context sent: <code>{JSON.stringify(context)}</code>
          </p>
        </div>
      )}
    </section>
  )
}
