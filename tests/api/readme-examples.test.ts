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

test('the API overview examples, then the OFREP ones, run as written and print what the README says', async () => {
  const block = `${shellBlock('## API overview')}\n${shellBlock('### OpenFeature over OFREP (any language)')}`
  const expected: RegExp[] = []
  const script = block
    .split('\n')
    .map((line) => {
      if (!line.startsWith('# -> ')) return line.replace(/\bcurl -s /g, "curl -sS --fail-with-body -w '\\n' ")
      expected.push(expectation(line))
      return `echo; echo ${MARK}`
    })
    .join('\n')
  expect(expected.length).toBeGreaterThanOrEqual(3)
  const run = Bun.spawnSync(['bash', '-c', `set -euo pipefail\n${script}`], {
    cwd: tempDir('flagship-readme-'),
    env: { ...process.env, B: srv.url, T: srv.adminToken },
  })
  const out = run.stdout.toString()
  expect({ exit: run.exitCode, stderr: run.stderr.toString() }).toEqual({ exit: 0, stderr: '' })
  const printed = out.split(`${MARK}\n`).slice(0, -1).map((part) => part.trim().split('\n').at(-1) ?? '')
  expect(printed.length).toBe(expected.length)
  printed.forEach((line, i) => expect(line).toMatch(expected[i]))
})
