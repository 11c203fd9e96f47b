// server/stats is pure (docs/architecture.md): its files import only each other and @stdlib's distributions,
// so the statistics run anywhere (the results endpoint, the release monitor, a test) without a store or clock.
import { expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const DIR = join(import.meta.dir, '..', '..', 'server', 'stats')
const IMPORT = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

test('server/stats imports only its own files and @stdlib', () => {
  const foreign: string[] = []
  for (const file of readdirSync(DIR).filter((f) => f.endsWith('.ts'))) {
    for (const m of readFileSync(join(DIR, file), 'utf8').matchAll(IMPORT)) {
      const target = m[1] ?? m[2]!
      if (!/^\.\/[\w-]+$/.test(target) && !target.startsWith('@stdlib/stats-base-dists-')) foreign.push(`${file} -> ${target}`)
    }
  }
  expect(foreign).toEqual([])
  expect(readdirSync(DIR).length).toBeGreaterThan(5)
})

test('no clock, randomness or I/O inside server/stats', () => {
  for (const file of readdirSync(DIR)) {
    expect(readFileSync(join(DIR, file), 'utf8')).not.toMatch(/Date\.now|new Date|Math\.random|process\.|Bun\.|fetch\(/)
  }
})
