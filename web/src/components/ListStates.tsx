// What every list shows while it is read: a spinner, the failed read, an empty state when there is nothing,
// else the caller's rows (and, for a list read a page at a time, the paging under them). One place, so every
// list says "Loading …" and "Could not load …" the same way.
import type { ReactNode } from 'react'
import type { PageParams } from '../api'
import { plural } from '../format'
import { ErrorMessage } from './ErrorMessage'
import { Pagination } from './Pagination'
import { Loading } from './State'

interface Props<T> {
  /** the read behind the list (a react-query result) */
  query: { isPending: boolean; isError: boolean; error: unknown; data: T | undefined }
  /** what is listed, for "Loading …" and "Could not load …", e.g. "tokens" or "the audit log" */
  what: string
  /** when the spinner's words differ from "Loading {what}…" */
  loadingLabel?: string
  /** whether what was read holds nothing to list (then `empty` is shown instead of the rows) */
  none?: (data: T) => boolean
  empty?: ReactNode
  /** a list read a page at a time: its paging, under the rows */
  paging?: { page: PageParams; total: (data: T) => number; onChange: (page: PageParams) => void; label: string }
  children: (data: T) => ReactNode
}

export function ListStates<T>({ query, what, loadingLabel = `Loading ${what}…`, none, empty, paging, children }: Props<T>) {
  const { data } = query
  return (
    <>
      {/* shown above rows read before (a failed refresh leaves them on screen) */}
      {query.isError && <ErrorMessage error={query.error} title={`Could not load ${what}`} />}
      {query.isPending ? (
        <Loading label={loadingLabel} />
      ) : data === undefined ? null : none?.(data) ? (
        empty
      ) : (
        <>
          {children(data)}
          {paging && (
            <Pagination
              offset={paging.page.offset}
              limit={paging.page.limit}
              total={paging.total(data)}
              onChange={(offset, limit) => paging.onChange({ offset, limit })}
              label={paging.label}
            />
          )}
        </>
      )}
    </>
  )
}

interface SectionProps<T> {
  query: Props<T[]>['query']
  /** e.g. { one: 'token', many: 'tokens' } */
  noun: { one: string; many: string }
  /** headed by how many there are ("3 tokens"); false: no heading, the page header already says what is listed */
  counted?: boolean
  empty: ReactNode
  children: (rows: T[]) => ReactNode
}

/** A list read whole (an admin page's tokens, webhooks, members) in its own section, headed by its count. */
export function ListSection<T>({ query, noun, counted = true, empty, children }: SectionProps<T>) {
  return (
    <section className="section">
      {counted && (
        <h2 className="section-title">
          {query.data ? plural(query.data.length, noun.one) : `${noun.many.charAt(0).toUpperCase()}${noun.many.slice(1)}`}
        </h2>
      )}
      <ListStates query={query} what={noun.many} none={(rows) => !rows.length} empty={empty}>
        {children}
      </ListStates>
    </section>
  )
}
