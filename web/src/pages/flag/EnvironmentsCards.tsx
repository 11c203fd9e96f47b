// The environments card (per-environment switch, value or variant, and the flag's rules or the environment's
// own: docs/flag-switches.md) and the active window.
import { JsonEditor } from '../../components/JsonEditor'
import { Switch } from '../../components/Switch'
import { VariantPicker } from './VariantsCard'
import { copyOfTargeting, type EnvDraft, type FlagDraft } from './draft'
import { TargetingEditor } from './TargetingEditor'

export function EnvironmentsCards({
  draft,
  set,
  environments,
}: {
  draft: FlagDraft
  set: (p: Partial<FlagDraft>) => void
  environments: string[]
}) {
  const withVariants = draft.variants.length > 0
  const setEnv = (env: string, p: Partial<EnvDraft>) => set({ envs: { ...draft.envs, [env]: { ...draft.envs[env]!, ...p } } })
  return (
    <>
      <section className="card">
        <h2 className="card-title">Environments</h2>
        <p className="hint">
          An override gives an environment its own switch: it replaces the main switch there (and optionally the value) when the context’s
          environment matches. Without one, the environment follows the main switch. An environment uses the flag’s rules unless it has its
          own, which replace them there, whole.
        </p>
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
                    Serve a different {withVariants ? 'variant' : 'value'} in {env}
                  </label>
                  {e.hasValue && !withVariants && (
                    <JsonEditor
                      label={`Value in ${env}`}
                      value={e.valueText}
                      onChange={(valueText) => setEnv(env, { valueText })}
                      rows={1}
                    />
                  )}
                  {e.hasValue && withVariants && (
                    <VariantPicker
                      draft={draft}
                      label={`Variant in ${env}`}
                      value={e.variant}
                      onChange={(variant) => setEnv(env, { variant })}
                    />
                  )}
                </div>
              ) : (
                <span className="muted small">Follows the main switch</span>
              )}
              <div className="env-rules" data-testid={`env-rules-${env}`}>
                <span className="badge">{e.overridden && e.own ? 'own rules' : 'uses the flag’s rules'}</span>{' '}
                {e.overridden && e.own ? (
                  <button type="button" className="btn btn-small" onClick={() => setEnv(env, { own: null })}>
                    Use the flag’s rules again
                  </button>
                ) : (
                  // Own rules live in the environment's override: giving them makes one (the switch as it is now).
                  <button
                    type="button"
                    className="btn btn-small"
                    onClick={() => setEnv(env, { overridden: true, own: copyOfTargeting(draft) })}
                  >
                    Give {env} its own rules
                  </button>
                )}
              </div>
              {e.overridden && e.own && (
                <div className="env-own-rules">
                  <TargetingEditor draft={{ ...draft, ...e.own }} set={(p) => setEnv(env, { own: { ...e.own!, ...p } })} scope={env} />
                </div>
              )}
            </li>
          ))}
        </ul>
      </section>

      <section className="card">
        <h2 className="card-title">Active window</h2>
        <p className="hint">
          Outside this window the flag evaluates as disabled. Times are in your local time zone (
          {Intl.DateTimeFormat().resolvedOptions().timeZone}).
        </p>
        <div className="row-fields">
          <DateTimeField id="active-from" label="Active from" value={draft.activeFrom} onChange={(activeFrom) => set({ activeFrom })} />
          <DateTimeField
            id="active-until"
            label="Active until"
            value={draft.activeUntil}
            onChange={(activeUntil) => set({ activeUntil })}
          />
        </div>
      </section>
    </>
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
