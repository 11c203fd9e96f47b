// The steps explain took, in evaluation order, ending at the one that decided: what each looked at (a
// rule's conditions with the value seen, the rollout's bucket) and what it concluded.
import type { TraceStep } from '../../lifecycle-api'

const text = (v: unknown) => (v === undefined ? '—' : JSON.stringify(v))

function summary(s: TraceStep): string {
  switch (s.step) {
    case 'environment_override':
      return s.applied
        ? `environment “${String(s.environment)}” overrides: ` +
            `${s.enabled ? 'on' : 'off'}${typeof s.rules === 'string' ? `, with ${s.rules}` : ''}`
        : `no override for environment ${s.environment === null ? '(none)' : `“${String(s.environment)}”`}`
    case 'enabled':
      return s.enabled ? 'the flag is on' : 'the flag is off'
    case 'active_window':
      return s.inside ? 'inside the active window' : 'outside the active window'
    case 'prerequisite': {
      const required = s.required as Record<string, unknown>
      const got = s.got as Record<string, unknown> | null
      const answer = s.passed ? 'it does' : `it gives ${text(got?.variant ?? got?.value)}`
      return `requires ${String(s.key)} to serve ${text(required.variant ?? required.value)}: ${answer}`
    }
    case 'individual_override':
      return s.matched ? `user ${String(s.user_id)} has an individual override` : 'no individual override for this user'
    case 'rule':
      return `rule ${String(s.rule)} ${s.matched ? 'matches' : 'does not match'}`
    case 'rollout':
      if (s.seen === null) return `no “${String(s.attribute)}” in the context: outside the rollout`
      return Array.isArray(s.ranges)
        ? `bucket ${String(s.bucket)} falls in variant ${String(s.variant)}`
        : `bucket ${String(s.bucket)} ${s.inside ? '<' : '≥'} ${String(s.percentage)}%: ${s.inside ? 'inside' : 'outside'}`
    default:
      return 'nothing else applied: the default'
  }
}

export function TraceList({ trace }: { trace: TraceStep[] }) {
  return (
    <ol className="trace" aria-label="How the answer was reached">
      {trace.map((s, i) => (
        <li key={i} className={s.decided ? 'trace-step trace-decided' : 'trace-step'} data-step={s.step}>
          <span>{summary(s)}</span>
          {s.decided && <strong className="badge">decided</strong>}
          {Array.isArray(s.conditions) && (
            <ul className="trace-conditions">
              {(s.conditions as Record<string, unknown>[]).map((c, n) => (
                <li key={n} className={c.result ? 'ok' : 'fail'}>
                  {c.segment !== undefined
                    ? `in segment ${String(c.segment)}`
                    : `${String(c.property)} = ${text(c.seen)}, ${String(c.operator)} ${text(c.expected)}`}
                  : {c.result ? 'yes' : 'no'}
                </li>
              ))}
            </ul>
          )}
        </li>
      ))}
    </ol>
  )
}
