// `npm run lint` (Biome: formatting and lint in one tool, configured in biome.jsonc) passes: the code is
// formatted as `npm run format` leaves it and no lint rule reports an error. Part of `npm test`, so CI runs it.
import { expect, test } from 'bun:test'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..', '..')

test('biome ci: formatted, and no lint errors', () => {
  const run = Bun.spawnSync([join(ROOT, 'node_modules', '.bin', 'biome'), 'ci', '--colors=off', '.'], { cwd: ROOT })
  const out = `${run.stdout.toString()}\n${run.stderr.toString()}`
  expect({ exit: run.exitCode, out: run.exitCode === 0 ? '' : out.slice(-4000) }).toEqual({ exit: 0, out: '' })
}, 60_000)
