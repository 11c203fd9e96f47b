// The page of a resource list (flags, configs, segments): the header with how many there are and, for those
// who may create one, a "New …" button; the searchable, paged list; an empty state inviting the first one;
// the create dialog. Each page gives only its words, its table and its dialog.
import { useState, type ReactNode } from 'react'
import type { PagedList } from '../queries'
import { plural } from '../format'
import { SearchableList } from './SearchableList'
import { Empty, PageHeader } from './State'

interface Props<T> {
  title: string
  /** e.g. { one: 'flag', many: 'flags' } */
  noun: { one: string; many: string }
  /** the header's subtitle until the count is known */
  about: string
  list: PagedList<T>
  searchPlaceholder: string
  /** whether the reader may create one: the "New …" button and the empty state's "Create your first …" */
  canCreate: boolean
  /** the create dialog; `close` closes it */
  createDialog: (close: () => void) => ReactNode
  /** the empty state's words before its button */
  emptyText?: ReactNode
  /** the empty state's words for those who may not create */
  readOnlyText?: string
  /** replaces the empty state (e.g. a filter that leaves nothing) */
  empty?: ReactNode
  /** between the header and the list: tabs, filters */
  above?: ReactNode
  /** between the search box and the list, e.g. the outcome of a row action */
  notice?: ReactNode
  children: (rows: T[]) => ReactNode
}

export function ListPage<T>({
  title,
  noun,
  about,
  list,
  searchPlaceholder,
  canCreate,
  createDialog,
  emptyText,
  readOnlyText,
  empty,
  above,
  notice,
  children,
}: Props<T>) {
  const [creating, setCreating] = useState(false)
  const createButton = (label: string) => (
    <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
      {label}
    </button>
  )
  return (
    <>
      <PageHeader
        title={title}
        subtitle={list.count !== undefined ? plural(list.count, noun.one) : about}
        actions={canCreate && createButton(`New ${noun.one}`)}
      />
      {above}
      <SearchableList
        list={list}
        noun={noun}
        searchPlaceholder={searchPlaceholder}
        notice={notice}
        empty={
          empty ?? (
            <Empty title={`No ${noun.many} yet`}>
              {emptyText}
              {canCreate ? createButton(`Create your first ${noun.one}`) : readOnlyText}
            </Empty>
          )
        }
      >
        {children}
      </SearchableList>
      {creating && createDialog(() => setCreating(false))}
    </>
  )
}
