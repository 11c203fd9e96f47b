// The rooms of docs/architecture.md, as imports. Every folder of server/ (and every file at its top) has a row
// saying what its files may import; a file's row is the longest key its path starts with, so store/vocabulary/
// has its own row apart from store/, http/routes/ apart from http/. A folder or top-level file without a row
// fails, so a new room must be placed in the table (and in docs/architecture.md, which shows the same table).
import { expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { ROOT, importGraph } from '../helpers/import-graph'

/** The small files at the top of server/ that the rooms stand on. */
const LEAVES = ['errors.ts', 'log.ts', 'settings.ts', 'assets.ts', 'startup-errors.ts', 'version.ts']
/** What the transport (http/ and its routes alike) may import. */
const TRANSPORT = [
  'http/',
  'services/',
  'access/',
  'identity/',
  'cache/',
  'streams/',
  'usage/',
  'experiments/',
  'metrics/',
  'documents/',
  'schemas/',
  'kinds/',
  'notices/',
  'store/',
  'engine/',
  ...LEAVES,
]

/** What a file under each folder of server/ may import: path prefixes below server/ (a folder ends in `/`),
 *  or top-level files. Listed from the floor up; a room imports only rooms listed before it, and itself (but for
 *  access/'s one file of identity/, below). */
export const ALLOWED: Record<string, string[]> = {
  // the floor: pure, shared with the SDK and the console (checked below)
  'engine/': ['engine/'],
  'stats/': ['stats/'],
  'store/vocabulary/': ['store/vocabulary/'],
  'log.ts': [],
  'settings.ts': [],
  'assets.ts': [],
  'startup-errors.ts': [],
  'version.ts': [],
  'errors.ts': ['engine/'],
  // wire schemas, and the kinds of versioned document defined on them (what the store's rows hold)
  'schemas/': ['schemas/', 'engine/', 'store/vocabulary/'],
  'kinds/': ['kinds/', 'schemas/', 'engine/', 'store/vocabulary/'],
  // persistence, and the notices a committed change sends
  'store/': ['store/', 'kinds/', 'engine/', 'errors.ts', 'assets.ts', 'startup-errors.ts', 'log.ts'],
  'notices/': ['notices/', 'store/vocabulary/'],
  // the document formats built on the wire schemas
  'documents/': ['documents/', 'kinds/', 'engine/', 'schemas/', 'store/vocabulary/', 'errors.ts'],
  'documents/convert/': ['documents/', 'engine/', 'schemas/', 'store/vocabulary/', 'errors.ts'],
  // the read side and the pieces the services stand on
  'cache/': ['cache/', 'kinds/', 'engine/', 'notices/', 'store/', 'errors.ts', 'log.ts'],
  'metrics/': ['metrics/'],
  // access reads the people directory (identity/directory.ts) only; identity's operations are above access
  'access/': ['access/', 'cache/', 'identity/directory.ts', 'store/', 'engine/', 'errors.ts'],
  'identity/': ['identity/', 'access/', 'notices/', 'store/', 'engine/', ...LEAVES],
  'usage/': ['usage/', 'engine/', 'store/', 'errors.ts', 'log.ts'],
  'experiments/': ['experiments/', 'engine/', 'stats/', 'notices/', 'store/', 'errors.ts', 'log.ts'],
  'webhooks/': ['webhooks/', 'store/', 'metrics/', 'errors.ts', 'log.ts', 'settings.ts'],
  'streams/': ['streams/', 'notices/', 'cache/', 'store/', 'engine/', 'errors.ts', 'log.ts'],
  'cluster/': ['cluster/', 'notices/', 'errors.ts', 'log.ts'],
  // changes: validate -> one transaction -> notice
  'services/': [
    'services/',
    'notices/',
    'store/',
    'kinds/',
    'engine/',
    'stats/',
    'schemas/',
    'documents/',
    'access/',
    'cache/',
    'usage/',
    'webhooks/',
    'experiments/',
    'errors.ts',
    'settings.ts',
    'log.ts',
  ],
  // workers and file modes that drive the services
  'schedules/': ['schedules/', 'services/', 'notices/', 'store/', 'errors.ts', 'log.ts'],
  'offline/': ['offline/', 'documents/', 'cache/', 'notices/', 'store/', 'engine/', 'errors.ts', 'log.ts'],
  'gitops/': ['gitops/', 'documents/', 'schemas/', 'engine/', 'store/vocabulary/', 'errors.ts'],
  // the transport: reads what it answers with, asks services for every change (see the no-writes test)
  'http/': TRANSPORT,
  'http/routes/': TRANSPORT,
  // composition roots: the relay's (no store of its own), the service's and the operator commands'
  'relay/': [
    'relay/',
    'http/',
    'streams/',
    'cache/',
    'access/',
    'metrics/',
    'usage/',
    'experiments/',
    'services/',
    'notices/',
    'store/',
    'engine/',
    ...LEAVES,
  ],
  'index.ts': [''],
  'cli.ts': [''],
}

/** The row of a file (a path relative to server/): the longest key it starts with. */
const rowOf = (file: string): string | undefined =>
  Object.keys(ALLOWED)
    .filter((key) => (key.endsWith('/') ? file.startsWith(key) : file === key))
    .sort((a, b) => b.length - a.length)[0]

/** Each import against the table, as `from -> to` (paths relative to server/); a file without a row too. */
export function layerViolations(edges: Map<string, string[]>): string[] {
  const found: string[] = []
  for (const [from, targets] of edges) {
    const row = rowOf(from)
    if (!row) {
      found.push(`${from}: no row in the table`)
      continue
    }
    for (const to of targets) if (!ALLOWED[row]!.some((allowed) => to.startsWith(allowed))) found.push(`${from} -> ${to}`)
  }
  return found
}

const SERVER = join(ROOT, 'server')
const relativeGraph = (roots: string[]) =>
  new Map([...importGraph(roots, [SERVER, ...roots])].map(([from, to]) => [relative(SERVER, from), to.map((t) => relative(SERVER, t))]))

test('every server import goes down the rooms, as the table says', () => {
  expect(layerViolations(relativeGraph([SERVER]))).toEqual([])
})

test('every folder of server/ and every file at its top has a row in the table', () => {
  const missing: string[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      const rel = relative(SERVER, path)
      if (statSync(path).isDirectory()) {
        if (!(`${rel}/` in ALLOWED)) missing.push(`${rel}/`)
        walk(path)
      } else if (dir === SERVER && /\.tsx?$/.test(name) && !(rel in ALLOWED)) missing.push(rel)
    }
  }
  walk(SERVER)
  expect(missing).toEqual([])
})

test('the check refuses an import planted in any room against the table', () => {
  const rows = Object.keys(ALLOWED)
  const target = (row: string) => (row.endsWith('/') ? `${row}planted.ts` : row)
  let planted = 0
  for (const from of rows) {
    for (const to of rows) {
      const edge = new Map([[target(from), [target(to)]]])
      const allowed = ALLOWED[from]!.some((a) => target(to).startsWith(a))
      expect(layerViolations(edge)).toEqual(allowed ? [] : [`${target(from)} -> ${target(to)}`])
      if (!allowed) planted++
    }
  }
  // e.g. the store importing the notices, the engine the store, a service the transport
  expect(layerViolations(new Map([['store/audit.ts', ['store/vocabulary/changes.ts', 'notices/changes.ts']]]))).toEqual([
    'store/audit.ts -> notices/changes.ts',
  ])
  expect(layerViolations(new Map([['services/flags.ts', ['store/documents.ts', 'http/caching.ts']]]))).toEqual([
    'services/flags.ts -> http/caching.ts',
  ])
  expect(
    layerViolations(
      new Map([
        ['cache/snapshots.ts', ['services/flags.ts']],
        ['brand-new/x.ts', []],
      ]),
    ),
  ).toEqual(['cache/snapshots.ts -> services/flags.ts', 'brand-new/x.ts: no row in the table'])
  expect(planted).toBeGreaterThan(rows.length * 10)
})

/** What the console and the SDK may reach in server/: the pure floor, and the one pure helper the sign-in page shares. */
const SHARED_WITH_CLIENTS = ['engine/', 'stats/', 'store/vocabulary/', 'schemas/', 'identity/oidc-return-to.ts']

test('what web/ and sdk/ import from the server stands on nothing above the shared floor', () => {
  const clients = [join(ROOT, 'web', 'src'), join(ROOT, 'sdk', 'src')]
  const graph = importGraph([SERVER, ...clients])
  // every server file the clients reach, directly or through other server files
  const reached = new Set<string>()
  const visit = (file: string) => {
    for (const to of graph.get(file) ?? []) {
      if (!to.startsWith(SERVER) || reached.has(to)) continue
      reached.add(to)
      visit(to)
    }
  }
  for (const file of graph.keys()) if (!file.startsWith(SERVER)) visit(file)
  const outside = [...reached].map((f) => relative(SERVER, f)).filter((f) => !SHARED_WITH_CLIENTS.some((s) => f.startsWith(s)))
  expect(outside).toEqual([])
  expect([...reached].some((f) => relative(SERVER, f).startsWith('engine/'))).toBe(true)
})

/** Store writes in a file of server/http/: a transaction, or a repository call whose name says it writes. */
const WRITE_VERBS = [
  'insert',
  'update',
  'delete',
  'upsert',
  'put',
  'take',
  'touch',
  'set',
  'add',
  'remove',
  'create',
  'cancel',
  'mark',
  'claim',
  'save',
  'record',
  'append',
  'prune',
  'clear',
  'replace',
  'apply',
  'revoke',
  'archive',
  'restore',
].join('|')
const WRITE = new RegExp(String.raw`\.transaction\(|\bstore\.[a-zA-Z]+\.(${WRITE_VERBS})[A-Za-z]*\(`, 'g')
export const storeWrites = (file: string, text: string): string[] => [...text.matchAll(WRITE)].map((m) => `${file}: ${m[0]}`)

test('http/ performs no store writes: every change goes through services/', () => {
  const found: string[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (name.endsWith('.ts')) found.push(...storeWrites(relative(SERVER, path), readFileSync(path, 'utf8')))
    }
  }
  walk(join(SERVER, 'http'))
  expect(found).toEqual([])
  // the check can fail: a route that opens a transaction, or calls a repository's write directly
  expect(storeWrites('http/routes/x.ts', 'await deps.store.transaction((tx) => deps.store.tokens.touch(tx, h, at))')).toEqual([
    'http/routes/x.ts: .transaction(',
    'http/routes/x.ts: store.tokens.touch(',
  ])
  expect(storeWrites('http/routes/x.ts', 'await store.flags.insert(tx, row); await store.oidcStates.put(tx, s)')).toHaveLength(2)
  expect(storeWrites('http/routes/x.ts', 'await store.tokens.byOwner(store.db, id)')).toEqual([])
})

test("docs/architecture.md's table of rooms is this table", () => {
  const text = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8')
  const documented: Record<string, string[]> = {}
  for (const m of text.matchAll(/^\| `([^`]+)` \| (.+) \|$/gm)) {
    const cell = m[2]!
    const named = [...cell.matchAll(/`([^`]+)`/g)].map((n) => n[1]!)
    documented[m[1]!] = cell.startsWith('anything') ? [''] : [...named, ...(cell.includes('the top-level files') ? LEAVES : [])]
  }
  const normal = (table: Record<string, string[]>) => Object.fromEntries(Object.entries(table).map(([k, v]) => [k, [...new Set(v)].sort()]))
  expect(normal(documented)).toEqual(normal(ALLOWED))
})
