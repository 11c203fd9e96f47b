// For someone who may change some of a project's environments but not all (an environment-limited editor,
// or a token scoped to environments): the flag's other fields are read-only (a change to them affects every
// environment), and each environment they may change is edited alone through PUT/DELETE
// /flags/:key/environments/:env, its own rules included (the same rule editor as the flag's). The others are
// shown read-only.
import { useState } from 'react'
import { api, keys, type EnvironmentOverride, type Flag } from '../../api'
import { parseJson, preview, toJsonText } from '../../format'
import { useApiMutation } from '../../mutations'
import { ErrorMessage } from '../../components/ErrorMessage'
import { JsonEditor } from '../../components/JsonEditor'
import { StatusPill } from '../../components/State'
import { Switch } from '../../components/Switch'
import { copyOfTargeting, fromDraft, toDraft, type TargetingDraft } from './draft'
import { TargetingEditor } from './TargetingEditor'

export function EnvironmentAccess({
  flag,
  environments,
  writeEnv,
}: {
  flag: Flag
  environments: string[]
  writeEnv: (env: string) => boolean
}) {
  return (
    <section className="card" aria-labelledby="env-access-title">
      <h2 className="card-title" id="env-access-title">
        Environments you may change
      </h2>
      <p className="hint">
        You may change this flag only in some environments; the rest of the flag is read-only for you. Changing the rest, or proposing a
        change to it, takes write rights there: a project admin can give you them under Members.
      </p>
      <ul className="env-list">
        {environments.map((env) =>
          writeEnv(env) ? (
            <EnvironmentForm key={`${env}:${flag.version}`} flag={flag} env={env} />
          ) : (
            <li key={env} className="env-row" aria-label={`${env} (read-only)`}>
              <strong>{env}</strong> <span className="badge">read-only</span>{' '}
              {flag.environments?.[env] ? (
                <>
                  <StatusPill on={flag.environments[env].enabled} />{' '}
                  {flag.environments[env].value !== undefined && <code>{preview(flag.environments[env].value)}</code>}
                </>
              ) : (
                <span className="muted small">Follows the flag</span>
              )}{' '}
              <span className="badge" data-testid={`env-rules-${env}`}>
                {flag.environments?.[env]?.targeting ? 'own rules' : 'uses the flag’s rules'}
              </span>
            </li>
          ),
        )}
      </ul>
    </section>
  )
}

function EnvironmentForm({ flag, env }: { flag: Flag; env: string }) {
  const current = flag.environments?.[env]
  const variants = flag.variants ? Object.keys(flag.variants) : []
  const [enabled, setEnabled] = useState(current?.enabled ?? flag.enabled)
  const [valueText, setValueText] = useState(current?.value !== undefined ? toJsonText(current.value, false) : '')
  const [variant, setVariant] = useState(current?.variant ?? '')
  const parsed = valueText.trim() ? parseJson(valueText) : null
  // The environment's own rules as a draft of the whole flag (the rule editor's shape); null: the flag's.
  const [rules, setRules] = useState(() => toDraft(flag, [env]))
  const own = rules.envs[env]?.own ?? null
  const setOwn = (o: TargetingDraft | null) =>
    setRules({ ...rules, envs: { ...rules.envs, [env]: { ...rules.envs[env]!, overridden: true, own: o } } })
  const save = useApiMutation(() => {
    const override: EnvironmentOverride = { enabled }
    if (variants.length && variant) override.variant = variant
    else if (parsed?.ok) override.value = parsed.value
    // The override is replaced whole: own rules are sent (as edited), or left out (the flag's rules again).
    if (own) {
      const built = fromDraft(rules, flag)
      if (!built.ok) return Promise.reject(new Error(built.problems.join(' ')))
      override.targeting = built.body.environments?.[env]?.targeting ?? {}
    }
    return api.putFlagOverride(flag.key, env, override, flag.version)
  }, [keys.flags])
  const clear = useApiMutation(() => api.deleteFlagOverride(flag.key, env, flag.version), [keys.flags])
  return (
    <li className="env-row">
      <strong>{env}</strong>
      <div className="env-detail">
        <Switch checked={enabled} onChange={setEnabled} label={`Enabled in ${env}`} showLabel />
        {variants.length ? (
          <label className="field">
            <span className="field-label">Variant in {env}</span>
            <select value={variant} onChange={(e) => setVariant(e.target.value)} aria-label={`Variant in ${env}`}>
              <option value="">as the flag</option>
              {variants.map((v) => (
                <option key={v}>{v}</option>
              ))}
            </select>
          </label>
        ) : (
          <JsonEditor
            label={`Value in ${env}`}
            value={valueText}
            onChange={setValueText}
            rows={1}
            hint="Empty: the flag's value."
            optional
          />
        )}
        <div className="env-rules" data-testid={`env-rules-${env}`}>
          <span className="badge">{own ? 'own rules' : 'uses the flag’s rules'}</span>{' '}
          {own ? (
            <button type="button" className="btn btn-small" onClick={() => setOwn(null)}>
              Use the flag’s rules again
            </button>
          ) : (
            <button type="button" className="btn btn-small" onClick={() => setOwn(copyOfTargeting(rules))}>
              Give {env} its own rules
            </button>
          )}
        </div>
        {own && <TargetingEditor draft={{ ...rules, ...own }} set={(p) => setOwn({ ...own, ...p })} scope={env} />}
        <ErrorMessage error={save.error ?? clear.error} title={`Not saved in ${env}`} />
        <div className="btn-group">
          <button
            type="button"
            className="btn btn-primary btn-small"
            disabled={save.isPending || parsed?.ok === false}
            onClick={() => save.mutate(undefined)}
          >
            Save {env}
          </button>
          {current && (
            <button type="button" className="btn btn-small" disabled={clear.isPending} onClick={() => clear.mutate(undefined)}>
              Remove override in {env}
            </button>
          )}
        </div>
      </div>
    </li>
  )
}
