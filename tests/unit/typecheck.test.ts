// Bun runs TypeScript without checking types, so a type error would otherwise reach main unnoticed: the
// server, tests and bench (tsconfig.json) and the console on its own settings (web/tsconfig.json, no Bun
// types) must both typecheck, and so must the SDK on its own (sdk/tsconfig.json: no Bun or Node types, as it
// runs in browsers too).
import { expect, test } from 'bun:test'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..', '..')
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')

for (const project of ['tsconfig.json', 'web/tsconfig.json', 'sdk/tsconfig.json']) {
  test(`${project} typechecks`, () => {
    const run = Bun.spawnSync(['node', TSC, '--noEmit', '-p', join(ROOT, project)], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
    const output = `${run.stdout.toString()}${run.stderr.toString()}`
    expect(output).toBe('')
    expect(run.exitCode).toBe(0)
  }, 120_000)
}
