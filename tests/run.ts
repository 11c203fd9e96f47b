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
// bunfig.toml's `timeout` reaches tests but not hooks, which keep Bun's 5 s unless `--timeout` is given on the
// command line: a beforeAll/afterAll that starts or stops servers and browsers needs the same room on a busy
// machine (an afterAll stopping a server mid-delivery once ran out at 5 s).
const TIMEOUT_MS = '30000'
const run = (argv: string[], env: Record<string, string> = {}) =>
  Bun.spawnSync([bun, 'test', '--timeout', TIMEOUT_MS, ...argv], {
    stdout: 'inherit',
    stderr: 'inherit',
    env: { ...process.env, TMPDIR: scratch, ...env },
  }).exitCode

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
