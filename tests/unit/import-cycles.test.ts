// No import circles anywhere in the product (server, console, SDK), type-only imports included: each
// folder depends one way (http -> services -> store; the composition root wires everything).
import { expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const ROOT = join(import.meta.dir, '..', '..')
const IMPORT = /(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) sourceFiles(path, out)
    else if (/\.tsx?$/.test(name)) out.push(resolve(path))
  }
  return out
}

/** Every cycle found by a depth-first walk (each reported once, as the path that closes it). */
export function importCycles(roots: string[]): string[][] {
  const files = roots.filter(existsSync).flatMap((r) => sourceFiles(r))
  const known = new Set(files)
  const edges = new Map<string, string[]>()
  for (const file of files) {
    const targets: string[] = []
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const base = resolve(dirname(file), m[1] ?? m[2]!)
      const target = [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((c) => known.has(c))
      if (target) targets.push(target)
    }
    edges.set(file, targets)
  }
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
