// server/streams: change notices out to clients (SSE). The change hub: per project, the number of the last
// committed change, the most recent changes (for replay) and the open streams. Each change notice that
// carries a stream entry is written, in commit order, to every subscriber allowed to see it; an event is
// serialised once per stream kind, whatever the number of subscribers. The database is read at start and to
// fill a gap (another instance's notice that came late or never), never per subscriber.
import type { Store } from '../store'
import type { ChangeRow } from '../store/changes'
import type { ChangeNotice, StreamChange } from '../notices/changes'
import { errorForLog, type Log } from '../log'
import { HEARTBEAT, PREAMBLE, sseEvent, type Subscriber } from './sse'

interface Entry {
  change: StreamChange
  /** the `change` event of GET /api/v1/stream */
  native: Uint8Array
  /** OFREP's `refetchEvaluation` message; null for changes that cannot change an evaluation (configs) */
  ofrep: Uint8Array | null
}

interface ProjectLog {
  /** number of the last change written to subscribers */
  head: number
  /** the newest entries, oldest first, at most replayLimit of them */
  ring: Entry[]
  subscribers: Set<Subscriber>
  /** changes are taken one at a time per project, in order */
  queue: Promise<void>
}

export interface HubOptions {
  /** where missed changes are read back from; a relay has none (it follows its upstream's stream, and a
   *  gap there is the upstream's `reset`, passed on with resetTo) */
  store: Store | undefined
  replayLimit: number
  heartbeatMs: number
  /** brings this instance's caches up to a change before subscribers hear of it (a gap filled from the store) */
  applyToCache: (notice: ChangeNotice) => Promise<void>
  /** may this subscriber's token still read its stream (checked every second: revoked or expired tokens) */
  stillAllowed: (subscriber: Subscriber, now: number) => boolean
  log: Log
}

const OFREP_TYPES = new Set(['flag', 'segment', 'project'])
const AUTH_CHECK_MS = 1000

const changeOf = (row: ChangeRow): StreamChange => ({
  seq: row.seq,
  resource_type: row.resourceType,
  key: row.resourceKey,
  action: row.action,
  version: row.version,
  environment: row.environment,
  at: row.createdAt,
})

function encode(change: StreamChange): Entry {
  const { seq, at: _at, ...data } = change
  return {
    change,
    native: sseEvent({ id: seq, event: 'change', data }),
    ofrep: OFREP_TYPES.has(change.resource_type)
      ? sseEvent({ id: seq, data: { type: 'refetchEvaluation', etag: `"${seq}"`, lastModified: change.at } })
      : null,
  }
}

export class ChangeHub {
  private logs = new Map<string, ProjectLog>()
  private timers: ReturnType<typeof setInterval>[] = []

  constructor(private readonly o: HubOptions) {}

  /** Loads each project's last change number and recent changes, and starts the heartbeat and the token checks. */
  async start(): Promise<void> {
    const store = this.o.store
    for (const [projectId, head] of store ? await store.changes.heads(store.db) : []) {
      const log = this.logOf(projectId)
      log.ring = (await store!.changes.newest(store!.db, projectId, this.o.replayLimit)).map((r) => encode(changeOf(r)))
      log.head = head
    }
    this.timers.push(
      setInterval(() => this.broadcast(HEARTBEAT), this.o.heartbeatMs),
      setInterval(() => this.checkAccess(), AUTH_CHECK_MS),
    )
  }

  stop(): void {
    this.timers.forEach(clearInterval)
    for (const log of this.logs.values()) for (const s of [...log.subscribers]) s.close()
  }

  get subscriberCount(): number {
    let n = 0
    for (const log of this.logs.values()) n += log.subscribers.size
    return n
  }

  /** The project's last change number (what a client that has loaded everything now is up to date with). */
  head(projectId: string): number {
    return this.logs.get(projectId)?.head ?? 0
  }

  private logOf(projectId: string): ProjectLog {
    let log = this.logs.get(projectId)
    if (!log) this.logs.set(projectId, (log = { head: 0, ring: [], subscribers: new Set(), queue: Promise.resolve() }))
    return log
  }

  /** Takes a committed change notice (this instance's or another's); resolves once subscribers have it. */
  ingest(notice: ChangeNotice): Promise<void> {
    const change = notice.change
    if (!change) return Promise.resolve()
    return this.enqueue(notice.projectId, (log) => this.accept(notice.projectId, log, change))
  }

  /** Heals notices that never arrived: compares every project's stored last change number with memory. */
  async catchUp(): Promise<void> {
    const store = this.o.store
    if (!store) return
    for (const [projectId, head] of await store.changes.heads(store.db)) {
      if (head > this.head(projectId)) await this.enqueue(projectId, (log) => this.fill(projectId, log, head))
    }
  }

  private enqueue(projectId: string, step: (log: ProjectLog) => Promise<void>): Promise<void> {
    const log = this.logOf(projectId)
    const next = log.queue
      .then(() => step(log))
      .catch((e) => this.o.log('change stream: catching up failed; the next reconcile retries', errorForLog(e), 'warn'))
    log.queue = next
    return next
  }

  private async accept(projectId: string, log: ProjectLog, change: StreamChange): Promise<void> {
    if (change.seq <= log.head) return // already written (a gap fill got there first)
    if (change.seq > log.head + 1) await this.fill(projectId, log, change.seq - 1)
    this.emit(log, change)
  }

  /** Writes the stored changes after `head` up to `upTo`, each after the caches have it. If the store no
   *  longer holds some of them (trimmed past STREAM_REPLAY_LIMIT), subscribers are told to reload. */
  private async fill(projectId: string, log: ProjectLog, upTo: number): Promise<void> {
    const store = this.o.store
    const rows = store ? await store.changes.after(store.db, projectId, log.head, upTo - log.head) : []
    if (!rows.length) return this.reset(log, upTo)
    if (rows.length && rows[0]!.seq !== log.head + 1) this.reset(log, rows[0]!.seq - 1)
    for (const row of rows) {
      const change = changeOf(row)
      await this.o.applyToCache({ projectId, resourceType: change.resource_type, resourceKey: change.key, change })
      this.emit(log, change)
    }
  }

  private emit(log: ProjectLog, change: StreamChange): void {
    const entry = encode(change)
    log.ring.push(entry)
    if (log.ring.length > this.o.replayLimit) log.ring.splice(0, log.ring.length - this.o.replayLimit)
    log.head = change.seq
    for (const s of log.subscribers) this.deliver(s, entry)
  }

  private deliver(s: Subscriber, entry: Entry): void {
    if (!s.sees(entry.change.resource_type, entry.change.environment)) return
    const bytes = s.kind === 'native' ? entry.native : entry.ofrep
    if (bytes) s.send(bytes)
  }

  /** Everything between the ring and `head` is lost to this instance: every subscriber reloads. */
  private reset(log: ProjectLog, head: number): void {
    log.ring = []
    log.head = head
    for (const s of log.subscribers) s.send(this.resetEvent(s, head))
  }

  private resetEvent(s: Subscriber, head: number): Uint8Array {
    return s.kind === 'native'
      ? sseEvent({ id: head, event: 'reset', data: { version: head } })
      : sseEvent({ id: head, data: { type: 'refetchEvaluation', etag: `"${head}"` } })
  }

  /** Opens a subscriber: `ready` (native streams), then whatever it missed since `lastEventId` (replayed, or
   *  one `reset` when that is older than what is kept), then every change as it commits. */
  add(s: Subscriber, lastEventId: number | undefined): void {
    const log = this.logOf(s.projectId)
    const { head, ring } = log
    s.send(PREAMBLE)
    const oldest = ring.length ? ring[0]!.change.seq : head + 1
    const resumable = lastEventId !== undefined && lastEventId < head && lastEventId >= oldest - 1
    const stale = lastEventId !== undefined && lastEventId !== head && !resumable
    if (s.kind === 'native') {
      // `ready` carries the id only when nothing follows, so an interrupted replay resumes where it stopped.
      s.send(sseEvent({ ...(!resumable && !stale && { id: head }), event: 'ready', data: { version: head } }))
      if (resumable)
        for (let i = ring.findIndex((e) => e.change.seq > lastEventId); i !== -1 && i < ring.length; i++) this.deliver(s, ring[i]!)
    } else if (resumable && ring.some((e) => e.change.seq > lastEventId && e.ofrep)) {
      // An OFREP client re-fetches everything on any message: one stands for all it missed.
      s.send(sseEvent({ id: head, data: { type: 'refetchEvaluation', etag: `"${head}"` } }))
    }
    if (stale) s.send(this.resetEvent(s, head))
    if (!s.isClosed) log.subscribers.add(s)
  }

  remove(s: Subscriber): void {
    this.logs.get(s.projectId)?.subscribers.delete(s)
  }

  /** A relay's view of its upstream's numbering: the project is at `head`, with nothing kept to replay
   *  (started from its cache file, or after the upstream's `reset`); open streams reload when it moves. */
  resetTo(projectId: string, head: number): Promise<void> {
    return this.enqueue(projectId, async (log) => {
      if (log.head === head && log.ring.length === 0) return
      const moved = log.head !== head
      log.ring = []
      log.head = head
      if (moved) for (const s of log.subscribers) s.send(this.resetEvent(s, head))
    })
  }

  /** Writes an event only the relays that follow this instance read (a `revoke` of token hashes): to the
   *  project's streams opened with a relay key. */
  toRelays(projectId: string, bytes: Uint8Array): void {
    for (const s of this.logs.get(projectId)?.subscribers ?? []) if (s.feedsRelay) s.send(bytes)
  }

  private broadcast(bytes: Uint8Array): void {
    for (const log of this.logs.values()) for (const s of log.subscribers) s.send(bytes)
  }

  private checkAccess(): void {
    const now = Date.now()
    for (const log of this.logs.values()) for (const s of log.subscribers) if (!this.o.stillAllowed(s, now)) s.close()
  }
}
