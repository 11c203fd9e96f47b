// The endpoints behind the console's insight and operations views: a flag's hourly usage, the stale flags,
// archiving, and scheduled changes (a flag's and the project's). Same client and errors as api.ts.
import {
  listedFlag,
  request,
  type Envelope,
  type Flag,
  type ListPage,
  type ListedFlag,
  type PageParams,
  type Schedule,
  type ScheduleStatus,
  type UsageBucket,
} from './api'

/** What POST /flags/:key/schedules takes (the server's ScheduleCreate). */
export interface ScheduleInput {
  at: string
  change: Schedule['change']
  note?: string | null
}

type Ok<T> = { success: true } & T
type SchedulePage = { schedules: Schedule[]; total: number; has_more: boolean }
const enc = encodeURIComponent

export const insightApi = {
  /** one flag's hourly buckets in [since, until) */
  usage: async (key: string, since: Date, until: Date, environment?: string): Promise<UsageBucket[]> => {
    // (built here: `environment=` (empty) asks for evaluations without one, and request() drops empty values)
    const query = new URLSearchParams({ since: since.toISOString(), until: until.toISOString() })
    if (environment !== undefined) query.set('environment', environment)
    return (await request<{ buckets: UsageBucket[] }>('GET', `/flags/${enc(key)}/usage?${query}`)).buckets
  },

  /** several flags' hourly buckets in [since, until) at once (the flag list's sparklines) */
  usageOf: async (keys: readonly string[], since: Date, until: Date): Promise<Record<string, UsageBucket[]>> => {
    const query = new URLSearchParams({ keys: keys.join(','), since: since.toISOString(), until: until.toISOString() })
    return (await request<{ flags: Record<string, UsageBucket[]> }>('GET', `/usage?${query}`)).flags
  },

  /** one page of the stale flags, each with `stale_reason` */
  staleFlags: async ({ limit, offset }: PageParams): Promise<ListPage<ListedFlag>> => {
    const body = await request<{ flags: Envelope[]; total: number }>('GET', '/flags', { query: { stale: true, limit, offset } })
    return { items: body.flags.map(listedFlag), total: body.total }
  },
  /** at the version the caller showed (If-Match): a flag changed meanwhile may no longer be stale (409) */
  archiveFlag: ({ key, version }: { key: string; version: number }) =>
    request<Ok<{ key: string; flag: Flag }>>('POST', `/flags/${enc(key)}/archive`, { ifMatch: version }),
  restoreFlag: ({ key, version }: { key: string; version: number }) =>
    request<Ok<{ key: string; flag: Flag }>>('POST', `/flags/${enc(key)}/restore`, { ifMatch: version }),

  /** a flag's schedules: pending first, soonest first (the first 100; a flag rarely has more) */
  flagSchedules: (key: string) => request<SchedulePage>('GET', `/flags/${enc(key)}/schedules`, { query: { limit: 100 } }),
  /** the project's schedules, one page, optionally of one status */
  projectSchedules: (status: ScheduleStatus | undefined, { limit, offset }: PageParams) =>
    request<SchedulePage>('GET', '/schedules', { query: { status, limit, offset } }),
  createSchedule: (key: string, input: ScheduleInput) =>
    request<Ok<{ schedule: Schedule }>>('POST', `/flags/${enc(key)}/schedules`, { body: input }),
  cancelSchedule: (id: string) => request<Ok<{ id: string; schedule: Schedule }>>('DELETE', `/schedules/${enc(id)}`),
}
