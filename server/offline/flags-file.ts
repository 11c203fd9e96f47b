// Offline mode (docs/as-code.md): `FLAGS_FILE=path npm start` serves one project's flags, configs and
// segments (FLAGS_PROJECT, default `default`) from a document file instead of the store: evaluation, OFREP,
// definitions and the change stream read them from memory as usual; writes to them answer 405 READ_ONLY
// (http/app.ts). The file is checked every FLAGS_FILE_POLL_MS; a new version is parsed and validated as an
// import would be, and only a valid one replaces what is served (an invalid one is logged and the last good
// state kept). What differs is numbered into the project's change stream, so SDKs and streams follow.
import { readFileSync, statSync, unwatchFile, watchFile } from 'node:fs'
import { KINDS, RESOURCE_OF, perSection, type Kind } from '../documents/model'
import { MAX_IMPORT_BYTES, parseDocumentText } from '../documents/parse'
import { entryText } from '../documents/serialize'
import { documentEntries, validateState } from '../documents/validate'
import type { Log } from '../log'
import type { DocumentRows, Snapshots } from '../cache/snapshots'
import type { Store } from '../store'
import type { DocumentRow } from '../store/documents'
import type { ChangeBus, ChangeNotice } from '../notices/changes'
import type { Action } from '../store/vocabulary/changes'

export interface FlagsFileOptions {
  path: string
  projectId: string
  pollMs: number
  store: Store
  snapshots: Snapshots
  bus: ChangeBus
  replayLimit: number
  log: Log
}

interface Held {
  text: string
  row: DocumentRow
}

/** Reads and checks the file; the rows it holds, or the reason it is refused. */
function readRows(
  path: string,
  environments: readonly string[],
): { rows?: Record<Kind, Map<string, { body: Record<string, unknown>; text: string }>>; error?: string } {
  let text: string
  try {
    if (statSync(path).size > MAX_IMPORT_BYTES) return { error: `the file exceeds ${MAX_IMPORT_BYTES} bytes` }
    text = readFileSync(path, 'utf8')
  } catch (e) {
    return { error: (e as Error).message }
  }
  const parsed = parseDocumentText(text, { maxBytes: MAX_IMPORT_BYTES, format: /\.json$/i.test(path) ? 'json' : undefined })
  const describe = (issues: { path: string; line?: number; message: string }[]) =>
    issues
      .slice(0, 5)
      .map((i) => `${i.path || '(document)'}${i.line ? ` (line ${i.line})` : ''}: ${i.message}`)
      .join('; ')
  if (!parsed.document) return { error: describe(parsed.errors) }
  const issues: { path: string; message: string }[] = []
  const { bodies, written } = documentEntries(parsed.document, issues)
  issues.push(...validateState(bodies, written, { environments: new Set(environments), checkSegments: true }))
  if (issues.length) return { error: describe(issues) }
  const rows = perSection(
    (kind) => new Map([...bodies[kind]].map(([key, body]) => [key, { body, text: entryText(kind, { key, ...body }) }])),
  )
  return { rows }
}

export async function startFlagsFile(o: FlagsFileOptions) {
  const held = perSection(() => new Map<string, Held>())
  let lastText: string | undefined
  let loading = Promise.resolve()

  /** One load: the rows that differ get a new version (timestamps now), the rest keep theirs. */
  async function load(initial: boolean): Promise<void> {
    const project = await o.store.projects.get(o.store.db, o.projectId)
    if (!project) throw new Error(`FLAGS_PROJECT "${o.projectId}" does not exist`)
    const read = readRows(o.path, project.environments)
    if (!read.rows) {
      if (initial) throw new Error(`FLAGS_FILE ${o.path} is not a valid document: ${read.error}`)
      o.log('FLAGS_FILE changed but is invalid; still serving the last good version', { file: o.path, error: read.error }, 'error')
      return
    }
    const now = new Date().toISOString()
    const changes: { kind: Kind; key: string; action: Action; version: number }[] = []
    for (const kind of KINDS) {
      const next = new Map<string, Held>()
      for (const [key, { body, text }] of read.rows[kind]) {
        const was = held[kind].get(key)
        if (was && was.text === text) next.set(key, was)
        else {
          const version = (was?.row.version ?? 0) + 1
          next.set(key, {
            text,
            row: {
              projectId: o.projectId,
              key,
              body,
              version,
              createdAt: was?.row.createdAt ?? now,
              updatedAt: now,
            },
          })
          changes.push({ kind, key, action: was ? 'update' : 'create', version })
        }
      }
      for (const [key, was] of held[kind]) if (!next.has(key)) changes.push({ kind, key, action: 'delete', version: was.row.version })
      held[kind] = next
    }
    // The file's bodies were checked as each kind's (documents/validate.ts) before they were held: taken as
    // the kinds' stored bodies here, where the document's JSON becomes rows.
    const rows = {
      flags: [...held.flags.values()].map((h) => h.row),
      configs: [...held.configs.values()].map((h) => h.row),
      segments: [...held.segments.values()].map((h) => h.row),
    } as DocumentRows
    o.snapshots.useDocuments(o.projectId, rows)
    if (initial || !changes.length) return
    // Numbered in the project's change stream (the store keeps the stream, as for every change), then
    // published: streams and other listeners hear of each difference, after memory already serves it.
    const entries = changes.map((c) => ({
      resourceType: RESOURCE_OF[c.kind],
      resourceKey: c.key,
      action: c.action,
      version: c.version,
      environment: '',
      createdAt: now,
    }))
    const numbered = await o.store.transaction((tx) => o.store.changes.append(tx, o.projectId, entries, o.replayLimit))
    o.log('FLAGS_FILE reloaded', { file: o.path, changes: changes.length })
    await o.bus.publishAll(
      numbered.map(
        (row): ChangeNotice => ({
          projectId: o.projectId,
          resourceType: row.resourceType,
          resourceKey: row.resourceKey,
          change: {
            seq: row.seq,
            resource_type: row.resourceType,
            key: row.resourceKey,
            action: row.action,
            version: row.version,
            environment: row.environment,
            at: row.createdAt,
          },
        }),
      ),
    )
  }

  const check = () => {
    loading = loading
      .then(async () => {
        let text: string
        try {
          text = readFileSync(o.path, 'utf8')
        } catch {
          return
        }
        if (text === lastText) return
        lastText = text
        await load(false)
      })
      .catch((e) => o.log('FLAGS_FILE reload failed', { file: o.path, error: (e as Error).message }, 'error'))
  }

  lastText = readFileSync(o.path, 'utf8')
  await load(true)
  // Polling the file's status sees writes in place and editors' rename-over alike.
  watchFile(o.path, { interval: o.pollMs }, check)
  o.log('serving flags from FLAGS_FILE (read-only)', { file: o.path, project: o.projectId })
  return {
    stop: async () => {
      unwatchFile(o.path, check)
      await loading
    },
  }
}
