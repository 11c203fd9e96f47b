// The states of one resource read (detail pages): loading, not found, failed; once loaded, its page. A resource
// deleted while open keeps its last copy on screen, under a notice, so unsaved edits can still be copied.
import type { ReactNode } from 'react'
import type { UseQueryResult } from '@tanstack/react-query'
import { Link } from '../router'
import { isNotFound } from '../queries'
import { ErrorMessage } from './ErrorMessage'
import { Empty, Loading } from './State'

interface Props<T> {
  query: UseQueryResult<T>
  /** what it is, e.g. "flag" */
  what: string
  name: string
  back: { to: string; label: string }
  children: (data: T) => ReactNode
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

export function Loaded<T>({ query, what, name, back, children }: Props<T>) {
  if (query.data !== undefined) {
    return (
      <>
        {isNotFound(query.error) && (
          <div className="alert alert-warning" role="alert">
            {capital(what)} “{name}” no longer exists on the server (someone deleted it). <Link to={back.to}>{back.label}</Link>
          </div>
        )}
        {children(query.data)}
      </>
    )
  }
  // (an earlier failure being read again, e.g. a key deleted and created again, is loading too)
  if (query.isPending || query.isFetching) return <Loading label={`Loading ${what}…`} />
  if (isNotFound(query.error)) {
    return (
      <Empty title={`${capital(what)} “${name}” was not found`}>
        <Link to={back.to}>{back.label}</Link>
      </Empty>
    )
  }
  return <ErrorMessage error={query.error} title={`Could not load the ${what}`} />
}
