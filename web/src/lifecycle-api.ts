// The endpoints behind a flag's life in the console: its history and rollback, and explain (the answer for a
// context, with the trace of how it was reached, for the stored flag or the draft being edited). Same client
// and errors as api.ts.
import {
  listedFlag,
  request,
  type Envelope,
  type EvaluationContext,
  type Flag,
  type ListedFlag,
  type ListPage,
  type PageParams,
} from './api'
import type { Explanation, FlagVersion } from '../../server/schemas'

export type { Explanation, FlagVersion }
export type TraceStep = Explanation['trace'][number] & Record<string, unknown>

type Ok<T> = { success: true } & T
const enc = encodeURIComponent

/** The flag list's filters: every tag must match; archived flags instead of live ones. */
export interface FlagFilter {
  tags: string[]
  archived: boolean
}
const filterQuery = (f: FlagFilter) => {
  const q = new URLSearchParams(f.tags.map((t) => ['tag', t]))
  if (f.archived) q.set('archived', 'true')
  return q
}

export const lifecycleApi = {
  /** one page of the flags that pass `filter` */
  flagPage: async (filter: FlagFilter, { limit, offset }: PageParams): Promise<ListPage<ListedFlag>> => {
    const q = filterQuery(filter)
    q.set('limit', String(limit))
    q.set('offset', String(offset))
    const body = await request<{ flags: Envelope[]; total: number }>('GET', `/flags?${q}`)
    return { items: body.flags.map(listedFlag), total: body.total }
  },
  /** every flag that passes `filter` (the first 1000) */
  flagsAll: async (filter: FlagFilter): Promise<ListedFlag[]> => (await lifecycleApi.flagPage(filter, { limit: 1000, offset: 0 })).items,
  /** the newest `limit` versions, newest first */
  history: (key: string, limit = 50) =>
    request<{ versions: FlagVersion[]; total: number; has_more: boolean }>('GET', `/flags/${enc(key)}/history`, { query: { limit } }),
  /** a new version equal to `version`, written only if the flag is still at `current` (If-Match) */
  rollback: ({ key, version, current }: { key: string; version: number; current: number }) =>
    request<Ok<{ key: string; flag: Flag }>>('POST', `/flags/${enc(key)}/rollback`, { body: { version }, ifMatch: current }),
  /** the emergency stop: the main switch and every environment's own switch off, in one change (If-Match `current`) */
  turnOff: ({ key, current }: { key: string; current: number }) =>
    request<Ok<{ key: string; flag: Flag }>>('POST', `/flags/${enc(key)}/turn-off`, { ifMatch: current }),
  /** `flag`: an unsaved definition to evaluate instead of the stored one */
  explain: (key: string, context: EvaluationContext, flag?: object) =>
    request<Explanation>('POST', `/flags/${enc(key)}/explain`, { body: { context, ...(flag && { flag }) } }),
}
