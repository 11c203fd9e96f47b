// The reads behind usage, stale flags and schedules as TanStack Query `queryOptions` factories. Usage and
// schedule statuses are not in the change stream, so these read again on timers of their own.
import { queryOptions } from '@tanstack/react-query'
import { keys, type PageParams, type Schedule, type ScheduleStatus } from '../api'
import { insightApi } from '../insight-api'
import { rangeWindow, toSeries, type UsageRange } from '../usage-series'

/** Counts reach the store every USAGE_FLUSH_MS (10 s by default); a minute is recent enough for a chart. */
const USAGE_REFRESH_MS = 60_000
/** Schedules made by others (not streamed) are seen within this. */
const SCHEDULES_REFRESH_MS = 60_000

/** Until the next pending schedule falls due, then every second until the server has applied it (it does
 *  within about 2 s), so a countdown that reaches zero turns into "applied" or "failed" by itself. */
export function scheduleRefetchDelay(schedules: readonly Schedule[] | undefined, now = Date.now()): number {
  const due = (schedules ?? []).filter((s) => s.status === 'pending').map((s) => Date.parse(s.at) - now)
  if (!due.length) return SCHEDULES_REFRESH_MS
  const next = Math.min(...due)
  return next <= 0 ? 1_000 : Math.min(next + 250, SCHEDULES_REFRESH_MS)
}

/** one flag's usage over a range (the window is taken when read, so a refresh moves it along) */
const usageSeries = (key: string, range: UsageRange, environment?: string) =>
  queryOptions({
    queryKey: keys.usage(key, range, environment),
    queryFn: async () => {
      const { since, until, hours } = rangeWindow(range)
      return toSeries(await insightApi.usage(key, since, until, environment), since, hours)
    },
    staleTime: USAGE_REFRESH_MS,
    refetchInterval: USAGE_REFRESH_MS,
  })

export const usageQueries = {
  series: usageSeries,
  /** the last 24 hours of the list rows shown, in one read (again only once stale: no timer per page) */
  sparklines: (flagKeys: readonly string[]) =>
    queryOptions({
      queryKey: [...keys.usageAll, 'sparklines', [...flagKeys]],
      queryFn: async () => {
        const { since, until, hours } = rangeWindow('24h')
        const byKey = await insightApi.usageOf(flagKeys, since, until)
        return new Map(flagKeys.map((k) => [k, toSeries(byKey[k] ?? [], since, hours)]))
      },
      enabled: flagKeys.length > 0,
      staleTime: USAGE_REFRESH_MS,
    }),
}

export const staleQueries = {
  page: (p: PageParams) => queryOptions({ queryKey: [...keys.staleFlags, p], queryFn: () => insightApi.staleFlags(p) }),
}

export const scheduleQueries = {
  flag: (key: string) =>
    queryOptions({
      queryKey: keys.flagSchedules(key),
      queryFn: () => insightApi.flagSchedules(key),
      refetchInterval: (q) => scheduleRefetchDelay(q.state.data?.schedules),
    }),
  project: (status: ScheduleStatus | undefined, p: PageParams) =>
    queryOptions({
      queryKey: keys.projectSchedules(status, p),
      queryFn: () => insightApi.projectSchedules(status, p),
      refetchInterval: (q) => scheduleRefetchDelay(q.state.data?.schedules),
    }),
}
