// No import circles anywhere in the product (server, console, SDK), type-only imports included: each
// folder depends one way (http -> services -> store; the composition root wires everything).
import { expect, test } from 'bun:test'
import { join, relative } from 'node:path'
import { ROOT, importGraph } from '../helpers/import-graph'

/** Every cycle found by a depth-first walk (each reported once, as the path that closes it). */
export function importCycles(roots: string[]): string[][] {
  const edges = importGraph(roots)
  const files = [...edges.keys()]
  const cycles: string[][] = []
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (file: string) => {
    state.set(file, 'open')
    stack.push(file)
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].map((f) => relative(ROOT, f)))
      else if (!state.has(next)) visit(next)
    }
    stack.pop()
    state.set(file, 'done')
  }
  for (const file of files) if (!state.has(file)) visit(file)
  return cycles
}

test('no import circles in server/, web/src/ or sdk/src/', () => {
  expect(importCycles(['server', 'web/src', 'sdk/src'].map((d) => join(ROOT, d)))).toEqual([])
})

test('the check finds a circle when there is one', () => {
  const dir = join(import.meta.dir, '..', 'fixtures', 'import-cycle')
  const cycles = importCycles([dir])
  expect(cycles).toHaveLength(1)
  expect(new Set(cycles[0])).toEqual(new Set(['tests/fixtures/import-cycle/a.ts', 'tests/fixtures/import-cycle/b.ts']))
})
