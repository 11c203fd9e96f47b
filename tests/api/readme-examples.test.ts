// The README's API overview is run as written, against a real server: every command must succeed (curl
// --fail-with-body), and each `# -> …` line must match what the command above it printed (`…` stands for
// anything). An example that teaches something wrong, or no longer works, fails here.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startServer, type TestServer } from '../helpers/server'
import { tempDir } from '../helpers/temp'

const README = readFileSync(join(import.meta.dir, '..', '..', 'README.md'), 'utf8')
const MARK = '@@expect@@'

/** The first ```sh block after the given heading. */
function shellBlock(heading: string): string {
  const start = README.indexOf(`\n${heading}\n`)
  if (start === -1) throw new Error(`README has no "${heading}" section`)
  const m = /```sh\n([\s\S]*?)```/.exec(README.slice(start))
  if (!m) throw new Error(`no sh block under "${heading}"`)
  return m[1]
}

const expectation = (line: string): RegExp => {
  const text = line.replace(/^# -> /, '').split('; ')[0]
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/…/g, '.*')}$`)
}

let srv: TestServer
beforeAll(async () => {
  srv = await startServer()
})
afterAll(() => srv.stop())

/** Runs a README shell block as written (curl made strict), and returns, per `# -> …` line, the output of the
 *  commands above it together with the expectation. `streamed` cuts streams (`curl -sN`) after a second. */
function runBlock(block: string, streamed = false): { part: string; expected: RegExp }[] {
  const expected: RegExp[] = []
  const script = block
    .split('\n')
    .map((line) => {
      if (line.startsWith('# -> ')) {
        expected.push(expectation(line))
        return `echo; echo ${MARK}`
      }
      // A stream never ends by itself: cut it after a second (curl then exits 28).
      if (streamed && line.includes('curl -sN ')) return `${line.replace('curl -sN ', 'curl -sN --max-time 1 ')} || [ $? -eq 28 ]`
      return line.replace(/\bcurl -s /g, "curl -sS --fail-with-body -w '\\n' ")
    })
    .join('\n')
  const run = Bun.spawnSync(['bash', '-c', `set -euo pipefail\n${script}`], { cwd: tempDir('flagship-readme-'), env: { ...process.env, B: srv.url, T: srv.adminToken } })
  expect({ exit: run.exitCode, stderr: run.stderr.toString() }).toEqual({ exit: 0, stderr: '' })
  const parts = run.stdout.toString().split(`${MARK}\n`).slice(0, -1)
  expect(parts.length).toBe(expected.length)
  return parts.map((part, i) => ({ part, expected: expected[i]! }))
}

/** Each expectation must match the last line its commands printed. */
const lastLinesMatch = (results: { part: string; expected: RegExp }[]) =>
  results.forEach(({ part, expected }) => expect(part.trim().split('\n').at(-1) ?? '').toMatch(expected))

const createFlag = (key: string) =>
  fetch(`${srv.url}/api/v1/flags`, { method: 'POST', headers: { authorization: `Bearer ${srv.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ key, enabled: true, value: true }) })

test('the API overview examples, then the OFREP ones, run as written and print what the README says', () => {
  const results = runBlock(`${shellBlock('## API overview')}\n${shellBlock('### OpenFeature over OFREP (any language)')}`)
  expect(results.length).toBeGreaterThanOrEqual(3)
  lastLinesMatch(results)
})

test('the change stream examples run as written (streams cut after a second) and print what the README says', async () => {
  // Two changes, so that resuming after change 1 replays one.
  for (const key of ['stream-a', 'stream-b']) await createFlag(key)
  const results = runBlock(shellBlock('### The change stream'), true)
  expect(results.length).toBe(3)
  // A stream prints many lines: each expectation is one of them.
  for (const { part, expected } of results) expect(part.split('\n').some((line) => expected.test(line))).toBe(true)
})

test('the scheduled changes examples run as written and print what the README says', async () => {
  // The API overview test made new-checkout; made here too when this test runs alone (a 409 otherwise).
  await createFlag('new-checkout')
  const results = runBlock(shellBlock('### Scheduled changes'))
  expect(results.length).toBe(2)
  lastLinesMatch(results)
})

test('the variants, prerequisites and lifecycle examples run as written and print what the README says', async () => {
  await createFlag('new-checkout')
  const results = runBlock(shellBlock("### Variants, prerequisites and a flag's life"))
  expect(results.length).toBe(4)
  lastLinesMatch(results)
})
