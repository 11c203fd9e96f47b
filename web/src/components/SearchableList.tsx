// A list page's body: search box, loading/error/empty states, the caller's table for the rows shown, paging.
import type { ReactNode } from 'react'
import type { PagedList } from '../queries'
import { ListStates } from './ListStates'
import { Empty } from './State'

interface Props<T> {
  list: PagedList<T>
  /** e.g. { one: 'flag', many: 'flags' } */
  noun: { one: string; many: string }
  searchPlaceholder: string
  /** what to show when there are none at all */
  empty: ReactNode
  /** between the search box and the list, e.g. the error of a row action */
  notice?: ReactNode
  children: (rows: T[]) => ReactNode
}

export function SearchableList<T>({ list, noun, searchPlaceholder, empty, notice, children }: Props<T>) {
  const { query, rows, total, search, page } = list
  return (
    <>
      <div className="toolbar">
        <label className="field search">
          <span className="sr-only">Search {noun.many}</span>
          <input
            type="search"
            placeholder={searchPlaceholder}
            aria-label={`Search ${noun.many}`}
            value={search}
            onChange={(e) => list.setSearch(e.target.value)}
          />
        </label>
      </div>
      {notice}
      {/* the count and rows come from the list (a search filters what was read), not from the read itself */}
      <ListStates<unknown>
        query={query}
        what={noun.many}
        none={() => !total}
        empty={list.searching ? <Empty title={`No ${noun.many} match “${search.trim()}”`} /> : empty}
        paging={{
          page,
          total: () => total ?? 0,
          onChange: list.setPage,
          label: `${noun.one.charAt(0).toUpperCase()}${noun.one.slice(1)} pages`,
        }}
      >
        {() => children(rows)}
      </ListStates>
    </>
  )
}
