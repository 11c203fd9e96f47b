// Reads shared by the pages: one stored resource (detail pages and the conflict dialog), and a list read a
// page at a time from the API (limit/offset), or all of it while a search is typed.
import { useEffect, useState } from 'react'
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query'
import { ApiError, type PageParams } from '../api'
import type { DocumentQueries, ReadOptions } from './documents'

export const isNotFound = (e: unknown): boolean => e instanceof ApiError && e.isNotFound

/** One resource by key. `fetchCurrent` reads it again now (for the conflict dialog): undefined once deleted. */
export function useResource<T>(options: ReadOptions<T>) {
  const qc = useQueryClient()
  const query = useQuery(options)
  const fetchCurrent = async (): Promise<T | undefined> => {
    try {
      return await qc.fetchQuery({ ...options, staleTime: 0 })
    } catch (e) {
      if (isNotFound(e)) return undefined
      throw e
    }
  }
  return { query, fetchCurrent }
}

interface ListOptions<T> {
  /** the resource's list reads (documents.ts); the flag lists' items carry more than the flag itself */
  queries: Pick<DocumentQueries<T>, 'page' | 'all'>
  /** whether an item matches the search (given trimmed and lower-cased) */
  matches: (item: T, q: string) => boolean
  pageSize?: number
}

/** Without a search, the page shown is the page read (`?limit=&offset=`); with one, every item is read once
 *  and filtered here, then paged the same way. */
export function usePagedList<T>({ queries, matches, pageSize = 25 }: ListOptions<T>) {
  const [search, setSearch] = useState('')
  const [page, setPage] = useState<PageParams>({ offset: 0, limit: pageSize })
  const q = search.trim().toLowerCase()
  // gcTime 0: a list opened again is read again rather than shown from an older visit first, so its switches
  // and versions are never a stale copy (edits elsewhere do not update the list's cache).
  const paged = useQuery({ ...queries.page(page), enabled: !q, placeholderData: keepPreviousData, gcTime: 0 })
  const all = useQuery({ ...queries.all(), enabled: !!q, gcTime: 0 })

  const found = q && all.data ? all.data.filter((item) => matches(item, q)) : null
  const rows = found ? found.slice(page.offset, page.offset + page.limit) : (paged.data?.items ?? [])
  const total = found ? found.length : paged.data?.total
  const query = q ? all : paged

  // Past the end (the last items of the last page were deleted, or the search narrowed the list): step back.
  const last = total ? Math.floor((total - 1) / page.limit) * page.limit : 0
  const pastEnd = !query.isPlaceholderData && total !== undefined && page.offset > last
  useEffect(() => {
    if (pastEnd) setPage((p) => ({ ...p, offset: last }))
  }, [pastEnd, last])

  return {
    search,
    setSearch: (s: string) => {
      setSearch(s)
      setPage((p) => ({ ...p, offset: 0 }))
    },
    page,
    setPage,
    /** the read behind what is shown (loading and error states) */
    query,
    rows,
    /** how many match (all there are, without a search) */
    total,
    /** how many there are in all, when known */
    count: q ? (all.data?.length ?? paged.data?.total) : paged.data?.total,
    searching: !!q,
  }
}

export type PagedList<T> = ReturnType<typeof usePagedList<T>>
