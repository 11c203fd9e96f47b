// A flag's usage: evaluations per hour and variant over a chosen range and environment, with each
// variant's total in the legend (the numbers the chart shows, in text).
import { useId, useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { usageQueries } from '../../queries'
import { USAGE_RANGES, variantLabel, type UsageRange } from '../../usage-series'
import { ErrorMessage } from '../../components/ErrorMessage'
import { Empty, Loading } from '../../components/State'
import { UsageChart, variantColor } from '../../components/UsageChart'

const ALL = '*'
const count = new Intl.NumberFormat('en')

export function UsagePanel({ flagKey, environments }: { flagKey: string; environments: string[] }) {
  const [range, setRange] = useState<UsageRange>('7d')
  // ALL: every environment; '': evaluations whose context named none
  const [environment, setEnvironment] = useState(ALL)
  const query = useQuery(usageQueries.series(flagKey, range, environment === ALL ? undefined : environment))
  const titleId = useId()
  const where = environment === ALL ? '' : environment === '' ? ' without an environment' : ` in ${environment}`
  const period = `${USAGE_RANGES[range].label}${where}`

  return (
    <section className="card usage-card" aria-labelledby={titleId}>
      <div className="card-head">
        <h2 className="card-title" id={titleId}>
          Usage
        </h2>
        <div className="usage-controls">
          <label className="inline-field">
            <span>Range</span>
            <select value={range} onChange={(e) => setRange(e.target.value as UsageRange)}>
              {Object.entries(USAGE_RANGES).map(([r, { label }]) => (
                <option key={r} value={r}>
                  {label[0].toUpperCase() + label.slice(1)}
                </option>
              ))}
            </select>
          </label>
          <label className="inline-field">
            <span>Environment</span>
            <select value={environment} onChange={(e) => setEnvironment(e.target.value)}>
              <option value={ALL}>All</option>
              {environments.map((env) => (
                <option key={env} value={env}>
                  {env}
                </option>
              ))}
              <option value="">(none)</option>
            </select>
          </label>
        </div>
      </div>
      {query.isPending ? (
        <Loading label="Loading usage…" />
      ) : query.isError ? (
        <ErrorMessage error={query.error} title="Could not load the usage" />
      ) : query.data.total === 0 ? (
        <Empty title={`No evaluations in the ${period}`}>
          Evaluations through the API, OFREP and the SDKs’ reports are counted per hour; they show here within a minute.
        </Empty>
      ) : (
        <figure className="usage-figure">
          <UsageChart series={query.data} />
          <figcaption>
            <p>
              <strong>{count.format(query.data.total)}</strong> evaluations in the {period}, per hour and variant:
            </p>
            <ul className="usage-legend" aria-label="Evaluations by variant">
              {query.data.variants.map((v, i) => (
                <li key={v.variant}>
                  <span className="swatch" style={{ background: variantColor(i) }} aria-hidden="true" />
                  <span className="mono">{variantLabel(v.variant)}</span> <strong>{count.format(v.total)}</strong>
                  <span className="muted small"> ({Math.round((v.total / query.data.total) * 100)} %)</span>
                </li>
              ))}
            </ul>
          </figcaption>
        </figure>
      )}
    </section>
  )
}
