// Who imports whom among the product's own files (relative imports, type-only ones included): the graph the
// import-circle and layering tests walk.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

export const ROOT = join(import.meta.dir, '..', '..')
const IMPORT = /(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) sourceFiles(path, out)
    else if (/\.tsx?$/.test(name)) out.push(resolve(path))
  }
  return out
}

/** Each file under `roots` with the files it imports; `within` widens what an import may resolve to (by
 *  default only files under `roots`). */
export function importGraph(roots: string[], within: string[] = roots): Map<string, string[]> {
  const known = new Set(within.filter(existsSync).flatMap((r) => sourceFiles(r)))
  const files = roots.filter(existsSync).flatMap((r) => sourceFiles(r))
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
  return edges
}
