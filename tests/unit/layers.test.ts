// The layers of docs/architecture.md, as imports: the engine is pure, the store knows nothing of the
// services, the transport or the caches (the vocabulary they share lives in store/vocabulary/), the wire
// schemas stand on the engine's types and that vocabulary only, and no service reaches into the transport.
import { expect, test } from 'bun:test'
import { join, relative } from 'node:path'
import { ROOT, importGraph } from '../helpers/import-graph'

/** What a file under each folder of server/ may import (a path prefix below server/, or a top-level file). */
const ALLOWED: Record<string, string[]> = {
  'engine/': ['engine/'],
  'stats/': ['stats/'],
  'store/': ['store/', 'engine/', 'errors.ts', 'assets.ts', 'startup-errors.ts', 'log.ts'],
  'schemas/': ['schemas/', 'engine/', 'store/vocabulary/'],
  'services/': ['services/', 'store/', 'engine/', 'schemas/', 'errors.ts', 'access/', 'cache/', 'documents/', 'usage/', 'webhooks/', 'experiments/', 'stats/', 'settings.ts', 'log.ts'],
}

/** Each import that crosses a layer the wrong way, as `from -> to` (paths relative to server/). */
export function layerViolations(edges: Map<string, string[]>): string[] {
  const found: string[] = []
  for (const [from, targets] of edges) {
    const layer = Object.keys(ALLOWED).find((prefix) => from.startsWith(prefix))
    if (!layer) continue
    for (const to of targets) if (!ALLOWED[layer]!.some((allowed) => to.startsWith(allowed))) found.push(`${from} -> ${to}`)
  }
  return found
}

test('every server import goes down the layers', () => {
  const server = join(ROOT, 'server')
  const graph = importGraph([server])
  const relativeGraph = new Map([...graph].map(([from, to]) => [relative(server, from), to.map((t) => relative(server, t))]))
  expect(layerViolations(relativeGraph)).toEqual([])
})

test('the check refuses a store that imports a service, and a service that imports the transport', () => {
  const edges = new Map([
    ['store/audit.ts', ['store/vocabulary/changes.ts', 'services/events.ts']],
    ['services/flags.ts', ['store/documents.ts', 'http/caching.ts']],
    ['engine/compile.ts', ['engine/types.ts']],
  ])
  expect(layerViolations(edges)).toEqual(['store/audit.ts -> services/events.ts', 'services/flags.ts -> http/caching.ts'])
})
