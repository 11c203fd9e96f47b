// `npm test`: every suite on the embedded SQLite store, then the API suites again on PostgreSQL (each test
// server gets a fresh database). Arguments are passed to the first `bun test` only (e.g. a path filter).
// Under CI=true the PostgreSQL pass always runs, so a missing PostgreSQL fails instead of skipping.
// The suites get a temporary folder of their own (TMPDIR); whatever they leave in it fails the run, so a
// test that forgets to clean up is caught here rather than filling the machine's temp folder.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { postgresAvailable } from './helpers/postgres'

const bun = process.execPath
const args = process.argv.slice(2)
const scratch = mkdtempSync(join(tmpdir(), 'flagship-run-'))
const run = (argv: string[], env: Record<string, string> = {}) =>
  Bun.spawnSync([bun, 'test', ...argv], { stdout: 'inherit', stderr: 'inherit', env: { ...process.env, TMPDIR: scratch, ...env } }).exitCode

console.log('=== bun test (SQLite store) ===')
let status = run(args)

if (args.length === 0) {
  if (process.env.CI === 'true' || (await postgresAvailable())) {
    console.log('\n=== bun test tests/api (PostgreSQL store) ===')
    status = run(['tests/api'], { TEST_STORE: 'postgres' }) || status
  } else {
    console.log('\nskipping the PostgreSQL pass: nothing answers on 127.0.0.1:5432')
  }
}

const left = readdirSync(scratch)
rmSync(scratch, { recursive: true, force: true })
if (left.length) {
  console.log(`\ntemporary files left behind by the suites: ${left.join(', ')}`)
  status ||= 1
}
process.exit(status)
