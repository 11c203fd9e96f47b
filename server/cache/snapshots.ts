// server/cache: the read side. Fed by change notices (notices/changes.ts, cluster/) and the store; read by
// http/ (evaluation) and streams/. In-memory read model: per project, the compiled flags, configs, segments
// and project row, plus a global token map. The evaluation hot path reads only from here; every change notice
// reloads what it names from the store, and reconcile() compares every document's stamp with memory to heal a
// missed notice.
import { KIND_TYPES } from '../kinds'
import type { Store } from '../store'
import type { DocumentRepository, DocumentRow, DocumentStamp, StoredBody } from '../store/documents'
import type { ProjectRow } from '../store/projects'
import type { TokenRow } from '../store/tokens'
import { STREAMED_TYPES, type ChangeNotice } from '../notices/changes'
import {
  flagRows,
  placeFlag,
  recompileFlags,
  segmentDefs,
  type ConfigRow,
  type DocumentTable,
  type FlagRow,
  type ProjectSnapshot,
  type SegmentRow,
} from './project-snapshot'

export type { CachedFlag, ConfigRow, FlagRow, ProjectSnapshot, SegmentRow } from './project-snapshot'

const sameStamp = (row: DocumentRow, stamp: DocumentStamp): boolean =>
  row.version === stamp.version && row.createdAt === stamp.createdAt && row.updatedAt === stamp.updatedAt

/** Two token rows grant the same access (project, permissions, expiry, environment). */
const sameAuthority = (a: TokenRow | undefined, b: TokenRow): boolean =>
  a !== undefined &&
  a.projectId === b.projectId &&
  a.expiresAt === b.expiresAt &&
  a.tokenPrefix === b.tokenPrefix &&
  a.environment === b.environment &&
  a.permissions.length === b.permissions.length &&
  a.permissions.every((p, i) => p === b.permissions[i])

/** The notices applyMany reloads in bulk: a project's documents. */
const DOCUMENT_TYPES: ReadonlySet<ChangeNotice['resourceType']> = new Set(KIND_TYPES)

/** A project's flags, configs and segments as rows (offline mode hands them in from a file). */
export interface DocumentRows {
  flags: FlagRow[]
  configs: ConfigRow[]
  segments: SegmentRow[]
}

export class Snapshots {
  private projects = new Map<string, ProjectSnapshot>()
  /** offline mode (server/offline/flags-file.ts): projects whose documents come from a file, not the store */
  private fileBacked = new Map<string, DocumentRows>()
  private tokens = new Map<string, TokenRow>()
  /** changes identity whenever any token is added, changed or removed (lets callers drop derived caches) */
  tokensVersion: object = {}

  constructor(private readonly source: Store | undefined) {}

  /** A relay's snapshots (server/relay/) are fed from its upstream, never read from a store. */
  private get store(): Store {
    if (!this.source) throw new Error('relay snapshots are fed by their upstream and have no store')
    return this.source
  }

  project(projectId: string): ProjectSnapshot | undefined {
    return this.projects.get(projectId)
  }

  /** A project by id or slug (the `Flagship-Project` header names either), from memory. */
  projectByRef(ref: string): ProjectSnapshot | undefined {
    const byId = this.projects.get(ref)
    if (byId) return byId
    for (const snap of this.projects.values()) if (snap.project.slug === ref) return snap
    return undefined
  }

  /** Every project held in memory. */
  allProjects(): ProjectRow[] {
    return [...this.projects.values()].map((s) => s.project)
  }

  token(hash: string): TokenRow | undefined {
    return this.tokens.get(hash)
  }

  /** Every token held, by hash (streams/revocations.ts compares it before and after a change). */
  allTokens(): ReadonlyMap<string, TokenRow> {
    return this.tokens
  }

  /** A relay's project (server/relay/): its row and documents as its upstream serves them, replacing
   *  whatever was held; nothing of it is read from a store. Documents whose stamp is unchanged keep their
   *  compiled form, so a change to one flag of 10,000 compiles one flag (all of them when a segment changed). */
  serveProject(project: ProjectRow, rows: DocumentRows): void {
    this.fileBacked.set(project.id, rows)
    const snap = this.projects.get(project.id)
    if (!snap) {
      const fresh: ProjectSnapshot = {
        revision: 0,
        project,
        flags: new Map(),
        archivedFlags: new Map(),
        configs: new Map(),
        segments: new Map(),
      }
      this.fillFromRows(fresh, rows)
      this.projects.set(project.id, fresh)
      return
    }
    snap.project = project
    const held = (row: DocumentRow | undefined, stamp: DocumentRow): row is DocumentRow => row !== undefined && sameStamp(row, stamp)
    if (rows.segments.length !== snap.segments.size || rows.segments.some((r) => !held(snap.segments.get(r.key), r)))
      return this.fillFromRows(snap, rows)
    snap.configs = new Map(
      rows.configs.map((r) => {
        const was = snap.configs.get(r.key)
        return [r.key, held(was, r) ? was : r]
      }),
    )
    const incoming = new Set(rows.flags.map((r) => r.key))
    for (const key of [...snap.flags.keys()]) if (!incoming.has(key)) snap.flags.delete(key)
    for (const key of [...snap.archivedFlags.keys()]) if (!incoming.has(key)) snap.archivedFlags.delete(key)
    const defs = segmentDefs(snap.segments)
    for (const r of rows.flags) if (!held(snap.flags.get(r.key)?.row ?? snap.archivedFlags.get(r.key), r)) placeFlag(snap, r, defs)
    snap.revision++
  }

  /** A relay's verified tokens (server/relay/keys.ts): put in, or dropped when revoked. */
  putTokens(rows: readonly TokenRow[]): void {
    if (!rows.length) return
    for (const row of rows) this.tokens.set(row.hash, row)
    this.tokensVersion = {}
  }

  dropTokens(hashes: readonly string[]): void {
    let dropped = false
    for (const hash of hashes) dropped = this.tokens.delete(hash) || dropped
    if (dropped) this.tokensVersion = {}
  }

  /** Forgets a deleted project. Its snapshot's revision moves as it goes, so whatever was derived from it and
   *  checked by revision (http/flag-answers.ts) is stale from now on, even to a reader that still holds it. */
  private drop(projectId: string): void {
    const snap = this.projects.get(projectId)
    if (snap !== undefined) snap.revision++
    this.projects.delete(projectId)
  }

  /** Brings every project and the token map in line with the store, healing any missed change notice.
   *  Runs at start and then periodically, so it reads only each document's stamp (key, version,
   *  timestamps) and reloads and recompiles just the documents whose stamp differs from memory
   *  (bench/reconcile.ts, 10,000 flags: ~25 ms, where rebuilding everything took 60-140 ms). */
  async reconcile(): Promise<void> {
    const db = this.store.db
    const projects = await this.store.projects.all(db)
    const live = new Set(projects.map((p) => p.id))
    for (const id of this.projects.keys()) if (!live.has(id)) this.drop(id)
    for (const project of projects) {
      const snap = this.projects.get(project.id)
      if (!snap) this.projects.set(project.id, await this.loadProject(project))
      else await this.refreshProject(snap, project)
    }
    await this.reloadAllTokens()
  }

  /** Serves `projectId`'s flags, configs and segments from `rows` from now on (offline mode): the store's
   *  are no longer read for it, by reconcile or by change notices. */
  useDocuments(projectId: string, rows: DocumentRows): void {
    this.fileBacked.set(projectId, rows)
    const snap = this.projects.get(projectId)
    if (snap) this.fillFromRows(snap, rows)
  }

  private fillFromRows(snap: ProjectSnapshot, rows: DocumentRows): void {
    snap.segments = new Map(rows.segments.map((r) => [r.key, r]))
    snap.configs = new Map(rows.configs.map((r) => [r.key, r]))
    snap.flags = new Map()
    snap.archivedFlags = new Map()
    for (const row of rows.flags) placeFlag(snap, row)
    snap.revision++
  }

  private async refreshProject(snap: ProjectSnapshot, project: ProjectRow): Promise<void> {
    if (snap.project.updatedAt !== project.updatedAt) snap.revision++
    snap.project = project
    if (this.fileBacked.has(project.id)) return
    const same = <R>(row: R) => row
    if (await this.refreshDocuments(snap.configs, this.store.configs, project.id, same, same)) snap.revision++
    if (await this.refreshDocuments(snap.segments, this.store.segments, project.id, same, same)) {
      recompileFlags(snap)
      snap.revision++
    }
    // The segments as they are when each flag is compiled: a segment notice may apply while this awaits.
    if (await this.refreshDocuments(flagRows(snap), this.store.flags, project.id, same, same)) snap.revision++
  }

  /** Reloads the documents of `into` whose stored stamp differs and drops those no longer stored; true when
   *  anything changed. Change notices may apply while this awaits: an entry a notice replaced, added or
   *  removed meanwhile is the notice's to keep, so it is left as it is. */
  private async refreshDocuments<T, Body extends StoredBody>(
    into: DocumentTable<T>,
    repository: DocumentRepository<Body>,
    projectId: string,
    rowOf: (value: T) => DocumentRow<Body>,
    make: (row: DocumentRow<Body>) => T,
  ): Promise<boolean> {
    const db = this.store.db
    const before = new Map(into)
    let changed = false
    const stored = new Set<string>()
    for (const stamp of await repository.stamps(db, projectId)) {
      stored.add(stamp.key)
      const held = into.get(stamp.key)
      if (held !== before.get(stamp.key) || (held !== undefined && sameStamp(rowOf(held), stamp))) continue
      const row = await repository.get(db, projectId, stamp.key)
      if (row === undefined || into.get(stamp.key) !== held) continue
      into.set(row.key, make(row))
      changed = true
    }
    for (const [key, value] of into) {
      if (!stored.has(key) && before.get(key) === value) {
        into.delete(key)
        changed = true
      }
    }
    return changed
  }

  private async loadProject(project: ProjectRow): Promise<ProjectSnapshot> {
    const db = this.store.db
    const file = this.fileBacked.get(project.id)
    if (file) {
      const snap: ProjectSnapshot = {
        revision: 0,
        project,
        flags: new Map(),
        archivedFlags: new Map(),
        configs: new Map(),
        segments: new Map(),
      }
      this.fillFromRows(snap, file)
      return snap
    }
    const segments = new Map((await this.store.segments.all(db, project.id)).map((r) => [r.key, r]))
    const snap: ProjectSnapshot = { revision: 0, project, flags: new Map(), archivedFlags: new Map(), configs: new Map(), segments }
    for (const row of await this.store.flags.all(db, project.id)) placeFlag(snap, row)
    snap.configs = new Map((await this.store.configs.all(db, project.id)).map((r) => [r.key, r]))
    return snap
  }

  /** Applies one change notice: reloads just the named resource (segments recompile their project's flags). */
  async apply(n: ChangeNotice): Promise<void> {
    // Notices about people are the identity directory's (identity/directory.ts).
    if (n.resourceType === 'user' || n.resourceType === 'session' || n.resourceType === 'member') return
    const db = this.store.db
    const snap = this.projects.get(n.projectId)
    if (n.resourceType === 'project' || !snap) {
      const project = await this.store.projects.get(db, n.projectId)
      if (!project) {
        this.drop(n.projectId)
        // A deleted project's tokens go with it.
        await this.reloadTokens(n.projectId)
      } else if (!snap) this.projects.set(project.id, await this.loadProject(project))
      else {
        snap.project = project
        snap.revision++
      }
      if (!snap && project) await this.reloadTokens(project.id)
      return
    }
    await this.applyDocument(snap, n)
    // After the change is in: a reader that saw the old revision must not keep a document made before it.
    if (STREAMED_TYPES.has(n.resourceType)) snap.revision++
  }

  /** Applies the notices of one commit in order, as apply() would one by one, except that each run of
   *  document notices of one project (an import's thousands) is reloaded with a few bulk reads. */
  async applyMany(notices: readonly ChangeNotice[]): Promise<void> {
    let run: ChangeNotice[] = []
    const flush = async () => {
      const documents = run
      run = []
      if (documents.length > 1) await this.applyDocuments(documents[0]!.projectId, documents)
      else if (documents.length) await this.apply(documents[0]!)
    }
    for (const n of notices) {
      // A file-backed project's documents are read from memory anyway (applyDocument).
      const bulk = DOCUMENT_TYPES.has(n.resourceType) && this.projects.has(n.projectId) && !this.fileBacked.has(n.projectId)
      if (run.length && (!bulk || run[0]!.projectId !== n.projectId)) await flush()
      if (bulk) run.push(n)
      else await this.apply(n)
    }
    await flush()
  }

  /** What apply() does for each of `notices` (documents of one project), with one read per kind and
   *  chunk of keys, at most one recompile of the project's flags, and no await between the changes. */
  private async applyDocuments(projectId: string, notices: readonly ChangeNotice[]): Promise<void> {
    const db = this.store.db
    const read = async <Body extends StoredBody>(type: string, repository: DocumentRepository<Body>) => {
      const keys = [...new Set(notices.filter((n) => n.resourceType === type).map((n) => n.resourceKey))]
      const rows = keys.length ? await repository.getMany(db, projectId, keys) : []
      return { keys, rows: new Map(rows.map((r) => [r.key, r])) }
    }
    const segments = await read('segment', this.store.segments)
    const flags = await read('flag', this.store.flags)
    const configs = await read('config', this.store.configs)
    const snap = this.projects.get(projectId)
    if (!snap) return
    for (const key of segments.keys) {
      const row = segments.rows.get(key)
      if (row) snap.segments.set(key, row)
      else snap.segments.delete(key)
    }
    if (segments.keys.length) recompileFlags(snap)
    const defs = segmentDefs(snap.segments)
    for (const key of flags.keys) {
      const row = flags.rows.get(key)
      if (row) placeFlag(snap, row, defs)
      else flagRows(snap).delete(key)
    }
    for (const key of configs.keys) {
      const row = configs.rows.get(key)
      if (row) snap.configs.set(key, row)
      else snap.configs.delete(key)
    }
    snap.revision++
  }

  private async applyDocument(snap: ProjectSnapshot, n: ChangeNotice): Promise<void> {
    const db = this.store.db
    // A file-backed project's documents are already in memory when its change notices go out.
    if (this.fileBacked.has(n.projectId) && DOCUMENT_TYPES.has(n.resourceType)) return
    switch (n.resourceType) {
      case 'flag': {
        const row = await this.store.flags.get(db, n.projectId, n.resourceKey)
        if (row) placeFlag(snap, row)
        else flagRows(snap).delete(n.resourceKey)
        return
      }
      case 'config': {
        const row = await this.store.configs.get(db, n.projectId, n.resourceKey)
        if (row) snap.configs.set(row.key, row)
        else snap.configs.delete(n.resourceKey)
        return
      }
      case 'segment': {
        const row = await this.store.segments.get(db, n.projectId, n.resourceKey)
        if (row) snap.segments.set(row.key, row)
        else snap.segments.delete(n.resourceKey)
        recompileFlags(snap)
        return
      }
      case 'token':
        return this.reloadTokens(n.projectId)
      case 'webhook':
      case 'schedule':
        return
    }
  }

  /** Re-reads the token table; tokensVersion changes only when what authentication uses changed (not,
   *  say, last_used_at), so callers cached per token survive the periodic reconcile. */
  async reloadAllTokens(): Promise<void> {
    const tokens = new Map((await this.store.tokens.all(this.store.db)).map((t) => [t.hash, t]))
    if (tokens.size === this.tokens.size && [...tokens].every(([hash, t]) => sameAuthority(this.tokens.get(hash), t))) return
    this.tokens = tokens
    this.tokensVersion = {}
  }

  private async reloadTokens(projectId: string): Promise<void> {
    for (const [hash, t] of this.tokens) if (t.projectId === projectId) this.tokens.delete(hash)
    for (const t of await this.store.tokens.byProject(this.store.db, projectId)) this.tokens.set(t.hash, t)
    this.tokensVersion = {}
  }
}
