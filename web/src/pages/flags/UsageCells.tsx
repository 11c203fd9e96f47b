// A flag row's usage: a sparkline of its last 24 hours and when it was last evaluated. The list reads the
// usage of the rows it shows in one request (usageQueries.sparklines) and hands each row its series.
import type { UseQueryResult } from '@tanstack/react-query'
import type { ListedFlag } from '../../api'
import type { UsageSeries } from '../../usage-series'
import { RelativeTime } from '../../components/RelativeTime'
import { Sparkline } from '../../components/UsageChart'

const count = new Intl.NumberFormat('en')

export function UsageCell({ flagKey, usage }: { flagKey: string; usage: UseQueryResult<Map<string, UsageSeries>> }) {
  const series = usage.data?.get(flagKey)
  const label = series
    ? `${count.format(series.total)} evaluations in the last 24 hours`
    : usage.isError
      ? 'Usage could not be read'
      : 'Loading usage'
  return (
    <td data-label="Last 24 h">
      <div className="usage-cell" role="img" aria-label={`${flagKey}: ${label}`} title={label}>
        {series && series.total > 0 ? <Sparkline series={series} /> : <span className="sparkline-flat" aria-hidden="true" />}
        <span className="small muted">{series ? count.format(series.total) : '…'}</span>
      </div>
    </td>
  )
}

export function LastEvaluatedCell({ flag }: { flag: ListedFlag }) {
  const at = flag.last_evaluated_at
  return <td data-label="Last evaluated">{at ? <RelativeTime at={at} /> : <span className="muted">Never</span>}</td>
}
