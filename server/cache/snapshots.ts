// In-memory read model: per project, the compiled flags, configs, segments and project row, plus a
// global token map. The evaluation hot path reads only from here; every change notice reloads what it
// names from the store, and reconcile() rebuilds everything to heal a missed notice.
import { compileFlag, type CompiledFlag, type FlagDefinition, type SegmentDefinition } from '../engine'
import type { Store } from '../store'
import type { DocumentRow } from '../store/documents'
import type { ProjectRow } from '../store/projects'
import type { TokenRow } from '../store/tokens'
import type { ChangeNotice } from '../services/events'

export interface CachedFlag {
  row: DocumentRow
  compiled: CompiledFlag
}

export interface ProjectSnapshot {
  project: ProjectRow
  flags: Map<string, CachedFlag>
  configs: Map<string, DocumentRow>
  segments: Map<string, DocumentRow>
}

const segmentDefs = (segments: Map<string, DocumentRow>): Map<string, SegmentDefinition> =>
  new Map([...segments].map(([key, row]) => [key, { key, conditions: (row.body.conditions ?? []) as SegmentDefinition['conditions'] }]))

const compile = (row: DocumentRow, segments: ReadonlyMap<string, SegmentDefinition>): CachedFlag => ({
  row,
  compiled: compileFlag({ ...(row.body as unknown as FlagDefinition), key: row.key }, segments),
})

export class Snapshots {
  private projects = new Map<string, ProjectSnapshot>()
  private tokens = new Map<string, TokenRow>()
  /** changes identity whenever any token is added, changed or removed (lets callers drop derived caches) */
  tokensVersion: object = {}

  constructor(private store: Store) {}

  project(projectId: string): ProjectSnapshot | undefined {
    return this.projects.get(projectId)
  }

  token(hash: string): TokenRow | undefined {
    return this.tokens.get(hash)
  }

  /** Rebuilds every project and the token map from the store. */
  async reconcile(): Promise<void> {
    const db = this.store.db
    const projects = await this.store.projects.all(db)
    const next = new Map<string, ProjectSnapshot>()
    for (const p of projects) next.set(p.id, await this.loadProject(p))
    const tokens = new Map((await this.store.tokens.all(db)).map((t) => [t.hash, t]))
    this.projects = next
    this.tokens = tokens
    this.tokensVersion = {}
  }

  private async loadProject(project: ProjectRow): Promise<ProjectSnapshot> {
    const db = this.store.db
    const segments = new Map((await this.store.segments.all(db, project.id)).map((r) => [r.key, r]))
    const defs = segmentDefs(segments)
    const flags = new Map((await this.store.flags.all(db, project.id)).map((r) => [r.key, compile(r, defs)]))
    const configs = new Map((await this.store.configs.all(db, project.id)).map((r) => [r.key, r]))
    return { project, flags, configs, segments }
  }

  /** Applies one change notice: reloads just the named resource (segments recompile their project's flags). */
  async apply(n: ChangeNotice): Promise<void> {
    const db = this.store.db
    const snap = this.projects.get(n.projectId)
    if (n.resourceType === 'project' || !snap) {
      const project = await this.store.projects.get(db, n.projectId)
      if (!project) this.projects.delete(n.projectId)
      else if (!snap) this.projects.set(project.id, await this.loadProject(project))
      else snap.project = project
      if (!snap && project) await this.reloadTokens(project.id)
      return
    }
    switch (n.resourceType) {
      case 'flag': {
        const row = await this.store.flags.get(db, n.projectId, n.resourceKey)
        if (row) snap.flags.set(row.key, compile(row, segmentDefs(snap.segments)))
        else snap.flags.delete(n.resourceKey)
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
        const defs = segmentDefs(snap.segments)
        for (const [key, cached] of snap.flags) snap.flags.set(key, compile(cached.row, defs))
        return
      }
      case 'token':
        return this.reloadTokens(n.projectId)
      case 'webhook':
        return
    }
  }

  async reloadAllTokens(): Promise<void> {
    this.tokens = new Map((await this.store.tokens.all(this.store.db)).map((t) => [t.hash, t]))
    this.tokensVersion = {}
  }

  private async reloadTokens(projectId: string): Promise<void> {
    for (const [hash, t] of this.tokens) if (t.projectId === projectId) this.tokens.delete(hash)
    for (const t of await this.store.tokens.byProject(this.store.db, projectId)) this.tokens.set(t.hash, t)
    this.tokensVersion = {}
  }
}
