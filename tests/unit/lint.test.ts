// `npm run lint` (Biome: formatting and lint in one tool, configured in biome.jsonc) passes: the code is
// formatted as `npm run format` leaves it and no lint rule reports an error; and no source line is longer than
// 140 characters. Part of `npm test`, so CI runs it.
import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..', '..')

test('biome ci: formatted, and no lint errors', () => {
  const run = Bun.spawnSync([join(ROOT, 'node_modules', '.bin', 'biome'), 'ci', '--colors=off', '.'], { cwd: ROOT })
  const out = `${run.stdout.toString()}\n${run.stderr.toString()}`
  expect({ exit: run.exitCode, out: run.exitCode === 0 ? '' : out.slice(-4000) }).toEqual({ exit: 0, out: '' })
}, 60_000)

/** Source lines are kept within 140 characters, Biome's lineWidth, which its formatter cannot enforce on a
 *  long string or comment. tests/fixtures is data and is not checked. */
const MAX_LINE = 140

/** "file:line" of every line over MAX_LINE characters (code points, as `awk 'length > 140'` counts them). */
function longLines(file: string): string[] {
  const path = join(ROOT, file)
  if (!existsSync(path)) return [] // deleted in the working tree, not yet in the index
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((line, i) => (line.length > MAX_LINE && [...line].length > MAX_LINE ? [`${file}:${i + 1}`] : []))
}

/** The tracked TypeScript and JavaScript modules, tests/fixtures left out. */
function sourceFiles(): string[] {
  const run = Bun.spawnSync(['git', 'ls-files', '*.ts', '*.tsx', '*.mjs'], { cwd: ROOT })
  if (run.exitCode !== 0) throw new Error(`git ls-files failed: ${run.stderr.toString()}`)
  return run.stdout
    .toString()
    .split('\n')
    .filter((file) => file !== '' && !file.startsWith('tests/fixtures/'))
}

describe('source lines within 140 characters', () => {
  const files = sourceFiles()

  test('no tracked source line is longer', () => {
    expect(files.length).toBeGreaterThan(300)
    expect(files.flatMap(longLines)).toEqual([])
  })
})
