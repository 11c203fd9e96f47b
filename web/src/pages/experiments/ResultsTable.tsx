// One metric's results: a row per variant with its units and mean and, for each treatment, the relative
// lift, its interval drawn as a bar against zero (green when the change is good for the metric, red when
// bad, grey when not significant), the p-value or chance to win, and the verdict in words.
import type { MetricResult, VariantResult } from '../../experiments-api'
import { formatNumber, formatP, formatPercent, intervalDomain, position, tone, verdict } from '../../experiment-view'

const BAR_WIDTH = 240
const BAR_HEIGHT = 26

export function MetricResults({ m, engine }: { m: MetricResult; engine: 'bayesian' | 'frequentist' }) {
  const domain = intervalDomain(m.variants)
  const corrected = m.variants.some((v) => v.p_value_unadjusted !== undefined)
  return (
    <section className="section metric-results" aria-labelledby={`metric-${m.metric}`}>
      <h3 id={`metric-${m.metric}`} className="section-title">
        <span className="mono">{m.metric}</span> <span className={`pill role-${m.role}`}>{m.role}</span>{' '}
        <span className="muted small">
          {m.kind}
          {m.cuped_applied ? ' · CUPED' : ''}
        </span>
      </h3>
      <div className="table-wrap">
        <table className="table responsive results-table">
          <caption className="sr-only">Results of {m.metric}</caption>
          <thead>
            <tr>
              <th scope="col">Variant</th>
              <th scope="col">Units</th>
              <th scope="col">{m.kind === 'proportion' ? 'Rate' : m.kind === 'ratio' ? 'Ratio' : 'Mean'}</th>
              <th scope="col">Lift</th>
              <th scope="col">Interval {`(${domain[0] < 0 ? formatPercent(domain[0]) : '0 %'} … ${formatPercent(domain[1])})`}</th>
              <th scope="col">{engine === 'bayesian' ? 'Chance to win' : corrected ? 'p-value (adjusted)' : 'p-value'}</th>
              <th scope="col">Verdict</th>
            </tr>
          </thead>
          <tbody>
            {m.variants.map((v) => (
              <tr key={v.variant} data-variant={v.variant} className={v.control ? 'control-row' : undefined}>
                <th scope="row" data-label="Variant">
                  <span className="mono">{v.variant}</span>
                  {v.control && <span className="muted small"> (control)</span>}
                </th>
                <td data-label="Units">{formatNumber(v.units)}</td>
                <td data-label="Mean">{m.kind === 'proportion' ? `${(v.mean * 100).toFixed(2)} %` : formatNumber(v.mean)}</td>
                <td data-label="Lift">{v.control || !v.lift ? '' : formatPercent(v.lift.relative)}</td>
                <td data-label="Interval">{!v.control && v.ci && <IntervalBar row={v} domain={domain} />}</td>
                <td data-label={engine === 'bayesian' ? 'Chance to win' : 'p-value'}>{v.control ? '' : statistic(v)}</td>
                <td data-label="Verdict">
                  <span className={`verdict verdict-${tone(v)}`}>{verdict(v)}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  )
}

function statistic(v: VariantResult): string {
  if (v.chance_to_win !== undefined) return `${(v.chance_to_win * 100).toFixed(1)} %`
  if (v.p_value === undefined) return ''
  return v.p_value_unadjusted !== undefined ? `${formatP(v.p_value)} (raw ${formatP(v.p_value_unadjusted)})` : formatP(v.p_value)
}

/** The interval of the relative lift on the metric's shared scale, with zero marked and the estimate a dot. */
export function IntervalBar({ row, domain }: { row: VariantResult; domain: [number, number] }) {
  const [low, high] = row.ci!
  const x0 = position(low, domain, BAR_WIDTH)
  const x1 = position(high, domain, BAR_WIDTH)
  const zero = position(0, domain, BAR_WIDTH)
  const mid = position(row.lift!.relative, domain, BAR_WIDTH)
  const t = tone(row)
  return (
    <svg
      className={`interval-bar interval-${t}`}
      width={BAR_WIDTH}
      height={BAR_HEIGHT}
      viewBox={`0 0 ${BAR_WIDTH} ${BAR_HEIGHT}`}
      role="img"
      aria-label={`${formatPercent(row.lift!.relative)}, interval ${formatPercent(low)} to ${formatPercent(high)}: ${verdict(row)}`}
      data-tone={t}
    >
      <rect className="interval-range" x={x0} y={8} width={Math.max(2, x1 - x0)} height={10} rx={3} />
      <line className="interval-zero" x1={zero} x2={zero} y1={2} y2={BAR_HEIGHT - 2} />
      <circle className="interval-point" cx={mid} cy={13} r={3.5} />
    </svg>
  )
}
