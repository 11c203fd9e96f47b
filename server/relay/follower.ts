// A relay following its upstream: the project's definitions (GET /api/v1/definitions, ETag), then its change
// stream (GET /api/v1/stream, resumed with Last-Event-ID). Each `change` reloads the definitions into the
// snapshot, then passes the change on to the relay's own subscribers with the upstream's number; `reset`
// reloads everything; `revoke` drops keys. A lost stream falls back to polling the definitions every
// UPSTREAM_POLL_MS (trying the stream again each time) until the stream is back.
import type { DocumentRows, Snapshots } from '../cache/snapshots'
import type { DocumentRow } from '../store/documents'
import type { ChangeHub } from '../streams/hub'
import type { StreamChange } from '../notices/changes'
import type { ResourceType } from '../store/vocabulary/changes'
import { sseEvent } from '../streams/sse'
import { errorForLog, type Log } from '../log'
import type { DefinitionsDocument, RelayCache } from './cache-file'
import type { RelayKeys, VerifyAnswer } from './keys'
import { readSse } from './sse-reader'
import { experimentRegistry } from '../experiments/registry'

export type UpstreamState = 'connected' | 'polling' | 'unreachable' | 'starting'

const META = new Set(['key', 'version', 'created_at', 'updated_at'])
/** An upstream stream silent this long (no event, no heartbeat: the upstream sends one every 15 s by
 *  default) is taken for lost, as a half-open connection never ends by itself. */
export const STREAM_SILENCE_MS = 45_000

/** A document of the definitions as the stored row it was made from (its body: every other field). */
function rowOf(projectId: string, doc: Record<string, unknown>): DocumentRow {
  const body: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(doc)) if (!META.has(k)) body[k] = v
  return {
    projectId,
    key: doc.key as string,
    body,
    version: doc.version as number,
    createdAt: doc.created_at as string,
    updatedAt: doc.updated_at as string,
  }
}

export interface FollowerOptions {
  url: string
  token: string
  tokenHash: string
  pollMs: number
  snapshots: Snapshots
  hub: ChangeHub
  keys: () => RelayKeys
  log: Log
  changed: () => void
}

export class Follower {
  state: UpstreamState = 'starting'
  project: VerifyAnswer['project'] | undefined
  environment: string | null = null
  head = 0
  confirmedAt: number | null = null
  definitions: DefinitionsDocument | undefined
  etag: string | null = null
  private pending: StreamChange[] = []
  private refreshing: Promise<void> = Promise.resolve()
  /** the reload waiting for the one under way */
  private queued: { reset: boolean; done: Promise<boolean> } | undefined
  private stopped = false
  private abort = new AbortController()
  private sleeper: { timer: ReturnType<typeof setTimeout>; resolve: () => void } | undefined

  constructor(private readonly o: FollowerOptions) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.o.token}`, ...extra }
  }

  /** The state RELAY_CACHE_FILE held: served at once, before the upstream has answered. */
  restore(cache: RelayCache): void {
    this.project = cache.project
    this.environment = cache.environment
    this.etag = cache.etag
    this.confirmedAt = cache.confirmedAt
    this.serve(cache.definitions)
    void this.o.hub.resetTo(cache.project.id, cache.head)
    this.head = cache.head
  }

  /** Asks the upstream which keys are valid (the relay's own first: that names its project). */
  async verify(hashes: string[]): Promise<VerifyAnswer | undefined> {
    try {
      const res = await fetch(`${this.o.url}/api/v1/relay/verify`, {
        method: 'POST',
        headers: this.headers({ 'content-type': 'application/json' }),
        body: JSON.stringify({ hashes }),
        signal: AbortSignal.timeout(10_000),
      })
      if (!res.ok) {
        await res.arrayBuffer()
        if (res.status === 401 || res.status === 403)
          this.o.log('the upstream refuses UPSTREAM_TOKEN: it must be a relay key of the project', { status: res.status }, 'error')
        return undefined
      }
      return (await res.json()) as VerifyAnswer
    } catch {
      return undefined
    }
  }

  private serve(doc: DefinitionsDocument): void {
    const project = this.project!
    this.definitions = doc
    // The running experiments it lists: the relay records their exposures and lists them to its clients.
    experimentRegistry.loadListed(project.id, doc.experiments ?? [])
    this.o.snapshots.serveProject(
      { id: project.id, slug: project.slug, name: project.name, environments: doc.environments, createdAt: '', updatedAt: '' },
      // The upstream's definitions (JSON from the network, no schema checked here): the upstream served them
      // from its own store, where each body was validated as its kind's.
      {
        flags: doc.flags.map((d) => rowOf(project.id, d)),
        configs: doc.configs.map((d) => rowOf(project.id, d)),
        segments: doc.segments.map((d) => rowOf(project.id, d)),
      } as DocumentRows,
    )
  }

  /** Loads the definitions (ETag); true when the upstream answered. `reset`: the relay's subscribers reload
   *  (a reload without the changes that led to it); otherwise the changes received are passed on. */
  private load(reset: boolean): Promise<boolean> {
    // Changes arriving together share one reload: a load not yet started covers them all.
    if (this.queued && (!reset || this.queued.reset)) return this.queued.done
    const queued: { reset: boolean; done: Promise<boolean> } = { reset, done: undefined as unknown as Promise<boolean> }
    this.queued = queued
    const run = this.refreshing.then(async () => {
      if (this.queued === queued) this.queued = undefined
      const query = this.environment !== null ? `?environment=${encodeURIComponent(this.environment)}` : ''
      const res = await fetch(`${this.o.url}/api/v1/definitions${query}`, {
        headers: this.headers(this.etag && !reset ? { 'if-none-match': this.etag } : {}),
        signal: AbortSignal.timeout(10_000),
      })
      if (res.status !== 200 && res.status !== 304) {
        await res.arrayBuffer()
        throw new Error(`GET /api/v1/definitions answered ${res.status}`)
      }
      this.confirmedAt = Date.now()
      const projectId = this.project!.id
      if (res.status === 200) {
        const doc = (await res.json()) as DefinitionsDocument
        this.etag = res.headers.get('etag')
        this.serve(doc)
        const passOn = this.pending.filter((c) => c.seq <= doc.version)
        this.pending = this.pending.filter((c) => c.seq > doc.version)
        if (reset || !passOn.length || passOn[0]!.seq !== this.head + 1) await this.o.hub.resetTo(projectId, doc.version)
        else {
          for (const change of passOn) {
            await this.o.hub.ingest({ projectId, resourceType: change.resource_type as ResourceType, resourceKey: change.key, change })
          }
          if (doc.version > this.o.hub.head(projectId)) await this.o.hub.resetTo(projectId, doc.version)
        }
        this.head = doc.version
      }
      this.o.changed()
    })
    this.refreshing = run.catch(() => {})
    queued.done = run.then(
      () => true,
      () => false,
    )
    return queued.done
  }

  /** Follows the upstream until stop(): the stream while it lasts, polling while it does not. */
  async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.follow()
      } catch (e) {
        if (!this.stopped && this.state === 'connected')
          this.o.log('upstream change stream lost; polling until it is back', errorForLog(e), 'warn')
      }
      if (this.stopped) break
      const answered = this.project !== undefined && (await this.load(false))
      this.state = answered ? 'polling' : 'unreachable'
      await this.sleep(this.o.pollMs)
    }
  }

  private async follow(): Promise<void> {
    if (!this.project || this.state !== 'connected') {
      const me = await this.verify([this.o.tokenHash])
      if (!me) throw new Error('upstream unreachable')
      if (this.project && this.project.id !== me.project.id) throw new Error('UPSTREAM_TOKEN now names another project')
      this.project = me.project
      this.environment = me.environment
    }
    const held = this.definitions !== undefined
    const connection = new AbortController()
    let heardAt = Date.now()
    const watchdog = setInterval(() => {
      if (Date.now() - heardAt > STREAM_SILENCE_MS)
        connection.abort(new Error(`no bytes from the upstream stream for ${STREAM_SILENCE_MS} ms`))
    }, 5000)
    try {
      await this.stream(held, AbortSignal.any([this.abort.signal, connection.signal]), () => (heardAt = Date.now()))
    } finally {
      clearInterval(watchdog)
    }
  }

  private async stream(held: boolean, signal: AbortSignal, heard: () => void): Promise<void> {
    const res = await fetch(`${this.o.url}/api/v1/stream`, {
      headers: this.headers(held ? { 'last-event-id': String(this.head) } : {}),
      signal,
    })
    if (res.status !== 200 || !res.body) {
      await res.arrayBuffer().catch(() => {})
      throw new Error(`GET /api/v1/stream answered ${res.status}`)
    }
    if (!held && !(await this.load(true))) throw new Error('definitions unavailable')
    this.state = 'connected'
    const project = this.project!
    this.o.log('following the upstream change stream', { upstream: this.o.url, project: project.id, version: this.head })
    void this.o
      .keys()
      .recheck()
      .catch(() => {})
    for await (const message of readSse(res.body, heard)) {
      if (message.event === 'change') {
        const data = JSON.parse(message.data) as Omit<StreamChange, 'seq' | 'at'>
        this.pending.push({ ...data, seq: Number(message.id), at: new Date().toISOString() })
        void this.load(false)
      } else if (message.event === 'reset') {
        this.pending = []
        void this.load(true)
      } else if (message.event === 'ready') {
        const version = (JSON.parse(message.data) as { version: number }).version
        // `ready` carries an id only when no replay follows: then a different number means reload.
        if (message.id !== undefined && version !== this.head) void this.load(true)
        else this.confirmedAt = Date.now()
      } else if (message.event === 'revoke') {
        const hashes = (JSON.parse(message.data) as { hashes: string[] }).hashes
        this.o.keys().revoke(hashes)
        // Relays following this one hear of it too.
        this.o.hub.toRelays(project.id, sseEvent({ event: 'revoke', data: { hashes } }))
      }
    }
    throw new Error('the upstream ended the stream')
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => (this.sleeper = { timer: setTimeout(resolve, ms), resolve }))
  }

  stop(): void {
    this.stopped = true
    this.abort.abort()
    if (this.sleeper) {
      clearTimeout(this.sleeper.timer)
      this.sleeper.resolve()
    }
  }
}
