// The README's quick start and the guides' examples run as written, against a real server: every shell
// command must succeed (curl --fail-with-body), and each `# -> …` line must match what the command above it
// printed (`…` stands for anything); the quick start's Node scripts run with node and print what their
// `// -> …` line says. An example that teaches something wrong, or no longer works, fails here. (The page
// snippet runs in Chromium: tests/e2e/sdk-served-browser.test.ts.)
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startServer, type TestServer } from '../helpers/server'
import { tempDir } from '../helpers/temp'

const ROOT = join(import.meta.dir, '..', '..')
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')
const MARK = '@@expect@@'

/** The first ```<lang> block after the given heading of a file. */
export function codeBlock(file: string, heading: string, lang = 'sh'): string {
  const text = read(file)
  const start = text.indexOf(`\n${heading}\n`)
  if (start === -1) throw new Error(`${file} has no "${heading}" section`)
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(text.slice(start))
  if (!m) throw new Error(`no ${lang} block under "${heading}" in ${file}`)
  return m[1]!
}

const expectation = (line: string): RegExp => {
  const text = line.replace(/^(#|\/\/) -> /, '').split('; ')[0]
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/…/g, '.*')}$`)
}

let srv: TestServer
beforeAll(async () => {
  srv = await startServer()
})
afterAll(() => srv.stop())

/** Runs a shell block as written (curl made strict), and returns, per `# -> …` line, the output of the
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
  const run = Bun.spawnSync(['bash', '-c', `set -euo pipefail\n${script}`], {
    cwd: tempDir('flagship-readme-'),
    env: { ...process.env, B: srv.url, T: srv.adminToken },
  })
  expect({ exit: run.exitCode, stderr: run.stderr.toString() }).toEqual({ exit: 0, stderr: '' })
  const parts = run.stdout.toString().split(`${MARK}\n`).slice(0, -1)
  expect(parts.length).toBe(expected.length)
  return parts.map((part, i) => ({ part, expected: expected[i]! }))
}

/** Each expectation must match the last line its commands printed. */
const lastLinesMatch = (results: { part: string; expected: RegExp }[]) =>
  results.forEach(({ part, expected }) => expect(part.trim().split('\n').at(-1) ?? '').toMatch(expected))

const createFlag = (key: string) =>
  fetch(`${srv.url}/api/v1/flags`, {
    method: 'POST',
    headers: { authorization: `Bearer ${srv.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ key, enabled: true, value: true }),
  })

/** A quick-start Node script as written (the service's address made this server's), run with node in
 *  `project`; it must print what its `// -> …` line says. */
function runScript(project: string, name: string, code: string, key: string) {
  const expected = code
    .split('\n')
    .filter((l) => l.startsWith('// -> '))
    .map(expectation)
  expect(expected.length).toBe(1)
  writeFileSync(join(project, name), code.replaceAll('http://localhost:8080', srv.url))
  const run = Bun.spawnSync([Bun.which('node') ?? process.execPath, name], {
    cwd: project,
    env: { ...process.env, T: srv.adminToken, K: key },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  expect({ exit: run.exitCode, stderr: run.stderr.toString() }).toEqual({ exit: 0, stderr: '' })
  expect(run.stdout.toString().trim()).toMatch(expected[0]!)
}

test('the API overview examples, then the OFREP ones, run as written and print what docs/api.md and docs/openfeature.md say', () => {
  const results = runBlock(
    `${codeBlock('docs/api.md', '## API overview')}\n${codeBlock('docs/openfeature.md', '## OpenFeature over OFREP (any language)')}`,
  )
  expect(results.length).toBeGreaterThanOrEqual(3)
  lastLinesMatch(results)
})

test('the change stream examples run as written (streams cut after a second) and print what docs/api.md says', async () => {
  // Two changes, so that resuming after change 1 replays one.
  for (const key of ['stream-a', 'stream-b']) await createFlag(key)
  const results = runBlock(codeBlock('docs/api.md', '## The change stream'), true)
  expect(results.length).toBe(3)
  // A stream prints many lines: each expectation is one of them.
  for (const { part, expected } of results) expect(part.split('\n').some((line) => expected.test(line))).toBe(true)
})

test('the scheduled changes examples run as written and print what docs/api.md says', async () => {
  // The API overview test made new-checkout; made here too when this test runs alone (a 409 otherwise).
  await createFlag('new-checkout')
  const results = runBlock(codeBlock('docs/api.md', '## Scheduled changes'))
  expect(results.length).toBe(2)
  lastLinesMatch(results)
})

test('the variants, prerequisites and lifecycle examples run as written and print what docs/api.md says', async () => {
  await createFlag('new-checkout')
  const results = runBlock(codeBlock('docs/api.md', "## Variants, prerequisites and a flag's life"))
  expect(results.length).toBe(4)
  lastLinesMatch(results)
})

// Last: its flag would show in the API overview's bulk evaluation.
test("the README's quick start: the flag and its evaluation with curl, then with OpenFeature and the SDK from Node", async () => {
  lastLinesMatch(runBlock(codeBlock('README.md', '### 3. Your first flag, evaluated with curl')))
  // The quick start's production key (K), as its curl command makes it.
  const keys = (await (await fetch(`${srv.url}/api/v1/tokens`, { headers: { authorization: `Bearer ${srv.adminToken}` } })).json()) as {
    tokens: { name: string; environment?: string }[]
  }
  expect(keys.tokens.find((t) => t.name === 'my app (production)')?.environment).toBe('production')
  const key = (await (
    await fetch(`${srv.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${srv.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'my app (production)',
        project_id: 'default',
        permissions: ['read:flags', 'read:configs'],
        environment: 'production',
      }),
    })
  ).json()) as { token: string }
  // `npm install @openfeature/…` would need the registry: the same packages are copied from this repository
  // (copied, not linked: an npm install in that folder must never reach into the repository's node_modules).
  expect(codeBlock('README.md', '### 4. From Node, with OpenFeature')).toContain(
    'npm install @openfeature/server-sdk @openfeature/ofrep-provider',
  )
  const ofProject = tempDir('flagship-quickstart-of-')
  for (const pkg of ['@openfeature/server-sdk', '@openfeature/core', '@openfeature/ofrep-provider', '@openfeature/ofrep-core', 'tslib']) {
    cpSync(join(ROOT, 'node_modules', pkg), join(ofProject, 'node_modules', pkg), { recursive: true, dereference: true })
  }
  runScript(ofProject, 'openfeature.mjs', codeBlock('README.md', '### 4. From Node, with OpenFeature', 'js'), key.token)
  // The SDK is installed from the service, as the README's command says.
  const project = tempDir('flagship-quickstart-')
  writeFileSync(join(project, 'package.json'), '{ "name": "flags-demo", "version": "1.0.0" }')
  const install = codeBlock('README.md', '### 5. In process, with the SDK').trim()
  expect(install).toBe('npm install http://localhost:8080/sdk/flagship-sdk.tgz')
  const npm = Bun.spawnSync(
    ['bash', '-c', `${install.replace('http://localhost:8080', srv.url)} --no-audit --no-fund --cache ${join(project, '.npm-cache')}`],
    { cwd: project, stdout: 'pipe', stderr: 'pipe' },
  )
  expect({ exit: npm.exitCode, stderr: npm.exitCode ? npm.stderr.toString() : '' }).toEqual({ exit: 0, stderr: '' })
  runScript(project, 'sdk.mjs', codeBlock('README.md', '### 5. In process, with the SDK', 'js'), key.token)
}, 120_000)
