// The reads of flags, configs and segments as TanStack Query `queryOptions` factories: each read's key and
// fetch in one place (keys come from api.ts `keys`, which the change stream and mutations invalidate by).
import { queryOptions, type UseQueryOptions } from '@tanstack/react-query'
import { lifecycleApi, type FlagFilter } from '../lifecycle-api'
import {
  api,
  keys,
  type Config,
  type EvaluationContext,
  type Flag,
  type ListedFlag,
  type ListPage,
  type PageParams,
  type Segment,
} from '../api'

/** A read's options, whatever its key (each factory's own key type is kept where it is built). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ReadOptions<T> = UseQueryOptions<T, Error, T, any>

/** One listable, readable resource: a page (`?limit=&offset=`), everything (while a search is typed), one. */
export interface DocumentQueries<T> {
  page: (p: PageParams) => ReadOptions<ListPage<T>>
  all: () => ReadOptions<T[]>
  detail: (key: string) => ReadOptions<T>
}

/** (the lists' items carry when each flag was last evaluated; one flag's read is the stored flag) */
export const flagQueries = {
  page: (p: PageParams) => queryOptions({ queryKey: keys.flagPage(p), queryFn: () => api.flagPage(p) }),
  all: () => queryOptions({ queryKey: keys.flagsAll, queryFn: api.flags }),
  detail: (key: string) => queryOptions({ queryKey: keys.flag(key), queryFn: () => api.flag(key) }),
  /** the server's answer for one context (the playground) */
  evaluation: (key: string, context: EvaluationContext) =>
    queryOptions({ queryKey: keys.evaluation(key, context), queryFn: () => api.evaluate(key, context), staleTime: 0 }),
} satisfies Pick<DocumentQueries<ListedFlag>, 'page' | 'all'> & { detail: (key: string) => ReadOptions<Flag> } & Record<string, unknown>

/** The flag list narrowed by tags or to the archived flags (GET /flags?tag=…&archived=true). */
export const filteredFlagQueries = (filter: FlagFilter) =>
  ({
    page: (p: PageParams) => queryOptions({ queryKey: [...keys.flagPage(p), filter], queryFn: () => lifecycleApi.flagPage(filter, p) }),
    all: () => queryOptions({ queryKey: [...keys.flagsAll, filter], queryFn: () => lifecycleApi.flagsAll(filter) }),
  }) satisfies Pick<DocumentQueries<ListedFlag>, 'page' | 'all'>

export const configQueries = {
  page: (p: PageParams) => queryOptions({ queryKey: keys.configPage(p), queryFn: () => api.configPage(p) }),
  all: () => queryOptions({ queryKey: keys.configsAll, queryFn: api.configs }),
  detail: (key: string) => queryOptions({ queryKey: keys.config(key), queryFn: () => api.config(key) }),
} satisfies DocumentQueries<Config>

export const segmentQueries = {
  page: (p: PageParams) => queryOptions({ queryKey: keys.segmentPage(p), queryFn: () => api.segmentPage(p) }),
  all: () => queryOptions({ queryKey: keys.segmentsAll, queryFn: api.segments }),
  detail: (key: string) => queryOptions({ queryKey: keys.segment(key), queryFn: () => api.segment(key) }),
} satisfies DocumentQueries<Segment>
