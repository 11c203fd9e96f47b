// Live updates: one change stream (GET /api/v1/stream, Server-Sent Events) per signed-in session. Each
// committed change marks the reads it affects stale, so whatever is on screen is read again; editors with
// unsaved edits keep their drafts and say that someone else changed the document (DocumentEditor). The
// connection's state is published for the sidebar's indicator.
import { useEffect, useSyncExternalStore } from 'react'
import type { QueryClient, QueryKey } from '@tanstack/react-query'
import { ApiError, api, keys, type AuditAction, type ResourceType } from './api'
import { experimentKeys } from './experiments-api'

/** The data of a `change` event. */
export interface StreamChange {
  resource_type: ResourceType
  key: string
  action: AuditAction
  /** the document's version after the change (null for deletions and project changes) */
  version: number | null
  environment: string
}

/** The reads a change can make stale. Only queries on screen are read again; the rest are read when next shown. */
export function affectedKeys(c: StreamChange): QueryKey[] {
  switch (c.resource_type) {
    case 'flag':
      // A flag change may be a schedule being applied (schedules are not streamed themselves), and may make
      // the flag stale or not (archived, or changed).
      return [keys.flagPages, keys.flagsAll, keys.flag(c.key), keys.evaluations(c.key), keys.staleFlags, keys.schedules, keys.audit]
    case 'config':
      return [keys.configPages, keys.configsAll, keys.config(c.key), keys.audit]
    case 'segment':
      // Rules test segment membership, so any flag's evaluation may answer differently now.
      return [keys.segmentPages, keys.segmentsAll, keys.segment(c.key), keys.evaluations(), keys.audit]
    case 'project':
      return [keys.project, keys.audit]
    case 'experiment':
      // its list rows, page and results (a new phase or a decision changes what the results cover)
      return [experimentKeys.all, keys.audit]
    default:
      return [keys.audit]
  }
}

// ---- the connection's state, for the indicator ----

export type LiveStatus = 'off' | 'connecting' | 'live' | 'reconnecting'
let status: LiveStatus = 'off'
const statusListeners = new Set<() => void>()
function setStatus(next: LiveStatus) {
  if (next === status) return
  status = next
  statusListeners.forEach((l) => l())
}
const subscribeStatus = (l: () => void) => {
  statusListeners.add(l)
  return () => void statusListeners.delete(l)
}
export const useLiveStatus = (): LiveStatus => useSyncExternalStore(subscribeStatus, () => status)

// ---- the connection ----

/** Waits before opening a new stream after a refusal or failure, by consecutive failures (± 25 % jitter, so
 *  many consoles do not come back at once after a restart). */
const RETRY_MS = [1_000, 2_000, 5_000, 10_000, 30_000]
/** Changes arriving together (a burst, a replay) are turned into one round of reads. */
const FLUSH_MS = 50

/**
 * Opens the stream and keeps it open until the returned function is called (sign-out).
 * EventSource cannot send the Authorization header, so each connection uses a ticket from
 * POST /api/v1/stream/tickets. EventSource resumes by itself (Last-Event-ID) after a dropped connection;
 * once its ticket has expired the server refuses that (401) and EventSource gives up, so a new ticket opens
 * a new stream that resumes after the last change seen: the server replays what was missed, or sends
 * `reset` when that is too old, and then everything is read again.
 */
export function connectLive(qc: QueryClient): () => void {
  let stopped = false
  let source: EventSource | null = null
  let retryTimer: ReturnType<typeof setTimeout> | undefined
  let flushTimer: ReturnType<typeof setTimeout> | undefined
  let failures = 0
  /** the last change number seen (the stream's event id) */
  let lastId: string | null = null
  const stale = new Map<string, QueryKey>()

  const flush = () => {
    flushTimer = undefined
    const queryKeys = [...stale.values()]
    stale.clear()
    for (const queryKey of queryKeys) void qc.invalidateQueries({ queryKey })
  }
  const markStale = (queryKeys: QueryKey[]) => {
    for (const k of queryKeys) stale.set(JSON.stringify(k), k)
    flushTimer ??= setTimeout(flush, FLUSH_MS)
  }
  const reloadAll = () => {
    stale.clear()
    // (usage counts are not changes the stream carries: they keep their own timers)
    void qc.invalidateQueries({ predicate: (q) => q.queryKey[0] !== keys.usageAll[0] })
  }

  const retryLater = () => {
    source?.close()
    source = null
    if (stopped) return
    setStatus('reconnecting')
    const wait = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)] * (0.75 + Math.random() / 2)
    failures++
    retryTimer = setTimeout(() => void open(), wait)
  }

  async function open() {
    retryTimer = undefined
    let ticket: string
    try {
      ticket = (await api.streamTicket()).ticket
    } catch (e) {
      if (stopped) return
      // The token itself is refused: reading /me again ends the session with the reason (main.tsx).
      if (e instanceof ApiError && e.status === 401) void qc.invalidateQueries({ queryKey: keys.me })
      // This token may not read the stream: no live updates, and no point asking again.
      if (e instanceof ApiError && e.status === 403) return setStatus('off')
      return retryLater()
    }
    if (stopped) return
    const resumeFrom = lastId
    // Same origin, like every other call of the console: the ticket's absolute `url` names PUBLIC_URL, which
    // may be another address than the one this console was loaded from.
    const query = new URLSearchParams({ ticket })
    if (resumeFrom !== null) query.set('last_event_id', resumeFrom)
    const es = new EventSource(`/api/v1/stream?${query}`)
    source = es
    let firstReady = true
    const track = (e: MessageEvent) => {
      if (e.lastEventId) lastId = e.lastEventId
    }

    es.addEventListener('ready', (e) => {
      track(e)
      failures = 0
      setStatus('live')
      // A stream opened without a resume point starts now: reads made before it may have missed changes.
      if (firstReady && resumeFrom === null) reloadAll()
      firstReady = false
    })
    es.addEventListener('change', (e) => {
      track(e)
      try {
        markStale(affectedKeys(JSON.parse(e.data) as StreamChange))
      } catch {
        reloadAll() // not what this console understands: read everything rather than show stale data
      }
    })
    es.addEventListener('reset', (e) => {
      track(e)
      reloadAll()
    })
    es.onerror = () => {
      if (stopped || source !== es) return
      // CLOSED: the server refused the stream (an expired ticket answers 401); CONNECTING: EventSource is
      // resuming by itself.
      if (es.readyState === EventSource.CLOSED) retryLater()
      else setStatus('reconnecting')
    }
  }

  setStatus('connecting')
  void open()
  return () => {
    stopped = true
    clearTimeout(retryTimer)
    clearTimeout(flushTimer)
    source?.close()
    source = null
    setStatus('off')
  }
}

/** Keeps one stream open while `enabled` (signed in, with a token that may read flags or configs); a new
 *  token opens a new one. */
export function useLiveUpdates(qc: QueryClient, token: string | null, enabled: boolean): void {
  useEffect(() => {
    if (!enabled || !token) return
    return connectLive(qc)
  }, [qc, token, enabled])
}
