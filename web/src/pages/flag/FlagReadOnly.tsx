// A flag as a token without write:flags sees it (and as anyone sees an archived flag).
import type { Flag } from '../../api'
import { dateTime, preview, toJsonText } from '../../format'
import { describeCondition } from '../../components/ConditionEditor'
import { StatusPill } from '../../components/State'

export function FlagReadOnly({
  flag,
  note = 'Read-only: this token can read flags but not change them.',
}: {
  flag: Flag
  note?: string | null
}) {
  const t = flag.targeting ?? {}
  return (
    <div className="form">
      {!flag.archived && note && (
        <div className="alert alert-info" role="status">
          {note}
        </div>
      )}
      <section className="card">
        <h2 className="card-title">{flag.variants ? 'Variants' : 'Value'}</h2>
        {flag.variants ? (
          <ul>
            {Object.entries(flag.variants).map(([name, v]) => (
              <li key={name}>
                <code>{name}</code> = <code>{preview(v)}</code>
                {name === flag.default_variant && <span className="badge">default</span>}{' '}
                {name === flag.off_variant && <span className="badge">when off</span>}
              </li>
            ))}
          </ul>
        ) : (
          <pre className="code">{toJsonText(flag.value)}</pre>
        )}
        {flag.prerequisites?.length ? (
          <p>
            Requires:{' '}
            {flag.prerequisites.map((p) => (
              <code key={p.key}>
                {p.key} = {p.variant ?? preview(p.value as never)}{' '}
              </code>
            ))}
          </p>
        ) : null}
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
                  Serves <code>{r.variant ?? preview(r.value ?? null, 80)}</code>
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
        <p>
          {t.rollout?.distribution
            ? `Split by ${t.rollout.attribute}: ${t.rollout.distribution.map((d) => `${d.variant} ${d.weight}%`).join(', ')}.`
            : t.rollout
              ? `Rolled out to ${t.rollout.percentage}% by ${t.rollout.attribute}.`
              : 'No percentage rollout.'}
        </p>
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
                <strong>{env}</strong>: <StatusPill on={o.enabled} /> {o.value !== undefined && <code>{preview(o.value)}</code>}{' '}
                {o.variant !== undefined && <code>{o.variant}</code>}{' '}
                <span className="badge" data-testid={`read-only-rules-${env}`}>
                  {o.targeting ? 'own rules' : 'uses the flag’s rules'}
                </span>
                {/* An environment's own rules replace the flag's there (docs/flag-switches.md). */}
                {o.targeting && (
                  <pre className="mono small" aria-label={`${env}’s own rules`}>
                    {JSON.stringify(o.targeting, null, 2)}
                  </pre>
                )}
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
