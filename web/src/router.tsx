// A tiny client-side router: history.pushState + popstate, path patterns like `/flags/:key`, and a guard
// that asks before leaving a page with unsaved edits (links, back/forward, reload and closing the tab).
import { useEffect, useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react'

const listeners = new Set<() => void>()
const notify = () => listeners.forEach((l) => l())

/** Pages with unsaved edits; while any is registered, leaving asks first. */
const guards = new Set<symbol>()
const LEAVE_QUESTION = 'You have unsaved changes. Leave this page and lose them?'
const mayLeave = () => guards.size === 0 || window.confirm(LEAVE_QUESTION)

let shownPath = window.location.pathname + window.location.search
window.addEventListener('popstate', () => {
  const to = window.location.pathname + window.location.search
  if (to !== shownPath && !mayLeave()) {
    // Back or forward already moved the address: put back the page that stays.
    window.history.pushState(null, '', shownPath)
    return
  }
  shownPath = to
  notify()
})

/** While `active`, in-app navigation and unloading the page ask before leaving. */
export function useLeaveGuard(active: boolean): void {
  useEffect(() => {
    if (!active) return
    const id = Symbol('unsaved')
    guards.add(id)
    const warn = (e: BeforeUnloadEvent) => e.preventDefault()
    window.addEventListener('beforeunload', warn)
    return () => {
      guards.delete(id)
      window.removeEventListener('beforeunload', warn)
    }
  }, [active])
}

function subscribe(listener: () => void) {
  listeners.add(listener)
  return () => void listeners.delete(listener)
}

/** Goes to `to`, unless a page with unsaved edits is open and the user chooses to stay (`force` skips the
 *  question, for moves the user already confirmed, such as after deleting the document). */
export function navigate(to: string, opts: { replace?: boolean; force?: boolean } = {}) {
  if (to === window.location.pathname + window.location.search) return
  if (!opts.force && !mayLeave()) return
  if (opts.replace) window.history.replaceState(null, '', to)
  else window.history.pushState(null, '', to)
  shownPath = to
  window.scrollTo(0, 0)
  notify()
}

export const usePath = () => useSyncExternalStore(subscribe, () => window.location.pathname)
/** The query string (`?a=1`, or ''), for pages whose state lives in the URL. */
export const useSearch = () => useSyncExternalStore(subscribe, () => window.location.search)

/** Matches `/flags/:key` against a path; returns the decoded params or null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/').filter(Boolean)
  const s = path.split('/').filter(Boolean)
  if (p.length !== s.length) return null
  const params: Record<string, string> = {}
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) params[p[i].slice(1)] = decodeURIComponent(s[i])
    else if (p[i] !== s[i]) return null
  }
  return params
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }

export function Link({ to, onClick, ...rest }: LinkProps) {
  const handle = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e)
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
    e.preventDefault()
    navigate(to)
  }
  return <a href={to} onClick={handle} {...rest} />
}

export const pathFor = {
  flag: (key: string) => `/flags/${encodeURIComponent(key)}`,
  config: (key: string) => `/configs/${encodeURIComponent(key)}`,
  segment: (key: string) => `/segments/${encodeURIComponent(key)}`,
}
