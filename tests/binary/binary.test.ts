// The single binary as an operator uses it: `npm run build:binary` (here into a temporary folder), then the
// executable alone in an empty folder, started with nothing but a minimal PATH: the first start creates its
// SQLite database next to it and prints the admin token; health (with the version), the console, the /docs
// page, the SDK bundles and an evaluation work; a restart on the same data keeps everything; the binary's
// own CLI makes a backup; after every route was used once, its log is still one JSON object per line. Start
// time and size are printed (speed targets live in bench/, not here).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import pkg from '../../package.json'
import { startProcess } from '../helpers/child-process'
import { tempDir } from '../helpers/temp'

const ROOT = join(import.meta.dir, '..', '..')
let folder: string
let binary: string

beforeAll(() => {
  folder = tempDir('flagship-binary-test-')
  binary = join(folder, 'flagship')
  const build = Bun.spawnSync([process.execPath, join(ROOT, 'scripts', 'build-binary.ts'), '--outfile', binary], {
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  if (build.exitCode !== 0) throw new Error(`build:binary failed:\n${build.stdout}${build.stderr}`)
  console.log(`[binary] ${build.stdout.toString().trim()}`)
}, 180_000)

let running: Subprocess | undefined
afterAll(async () => {
  running?.kill('SIGKILL')
  await running?.exited
})

/** Starts the binary from a folder of its own with only a minimal PATH; resolves once it listens. */
async function start(): Promise<{ url: string; output: () => string; stop(): Promise<void> }> {
  const began = performance.now()
  const started = await startProcess('the binary', [binary], {
    cwd: tempDir('flagship-binary-cwd-'),
    env: { PATH: '/usr/bin:/bin', HOST: '127.0.0.1', PORT: '0' },
    ready: /"msg":"listening"[^\n]*"port":(\d+)/,
    timeoutMs: 30_000,
  })
  const proc = started.proc
  running = proc
  const port = Number(started.match[1])
  console.log(`[binary] listening ${Math.round(performance.now() - began)} ms after it was started`)
  return {
    url: `http://127.0.0.1:${port}`,
    output: started.output,
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
      expect(proc.exitCode).toBe(0)
      running = undefined
    },
  }
}

test('from an empty folder: health, console, docs, SDK, an evaluation; a restart on the same data; a backup', async () => {
  const first = await start()
  const token = /ADMIN TOKEN[^\n]*\n(ff_defa_\w+)/.exec(first.output())?.[1]
  expect(token).toBeDefined()
  expect(first.output()).toContain('First start: open the console and paste the admin token printed above to sign in.')
  expect(existsSync(join(folder, 'data', 'flags.db'))).toBe(true)
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }

  expect(await (await fetch(`${first.url}/health`)).json()).toMatchObject({ status: 'ok', version: pkg.version, store: 'ok' })
  const index = await (await fetch(`${first.url}/`)).text()
  expect(index).toContain('<div id="root">')
  for (const m of index.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)) {
    const asset = await fetch(`${first.url}${m[1]}`)
    expect([m[1], asset.status]).toEqual([m[1], 200])
  }
  expect((await fetch(`${first.url}/flags/anything`)).headers.get('content-type')).toStartWith('text/html')
  expect(await (await fetch(`${first.url}/docs`)).text()).toContain('swagger-ui-bundle.js')
  expect((await fetch(`${first.url}/docs/assets/swagger-ui-bundle.js`)).status).toBe(200)
  expect((await (await fetch(`${first.url}/openapi.json`)).json()).openapi).toMatch(/^3\.0/)
  expect(await (await fetch(`${first.url}/sdk/flagship.js`)).text()).toMatch(/export\s*\{/)
  expect((await fetch(`${first.url}/sdk/flagship-sdk.tgz`)).headers.get('content-type')).toBe('application/gzip')

  const created = await fetch(`${first.url}/api/v1/flags`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({
      key: 'new-checkout',
      enabled: true,
      value: false,
      targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: true }] },
    }),
  })
  expect(created.status).toBe(201)
  const evaluate = (url: string) =>
    fetch(`${url}/api/v1/flags/new-checkout?context=${encodeURIComponent(JSON.stringify({ plan: 'pro' }))}`, { headers: auth }).then((r) =>
      r.json(),
    )
  expect(await evaluate(first.url)).toEqual({ value: true, type: 'boolean', reason: 'targeting' })
  // prom-client loads at the first scrape (metrics/exposition.ts): the bundled binary must find it then too.
  const scrape = await fetch(`${first.url}/metrics`)
  expect(scrape.status).toBe(200)
  expect(await scrape.text()).toContain('flagship_evaluations_total{surface="flag"} 1')
  await first.stop()

  const second = await start()
  expect(second.output()).not.toContain('ADMIN TOKEN')
  expect(second.output()).not.toContain('First start')
  expect(await evaluate(second.url)).toEqual({ value: true, type: 'boolean', reason: 'targeting' })
  // The binary carries the CLI too: a backup of the live database.
  const backup = Bun.spawnSync([binary, 'backup', '--to', join(folder, 'backup.db')], {
    cwd: folder,
    env: { PATH: '/usr/bin:/bin' },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  expect({ code: backup.exitCode, err: backup.stderr.toString() }).toEqual({ code: 0, err: '' })
  expect(Bun.spawnSync([binary, '--version']).stdout.toString().trim()).toBe(pkg.version)

  // One JSON object per line: every route of the API once (the framework analyses a route's functions when
  // it is first used; in the minified binary that analysis once printed a multi-line warning into the log).
  const doc = await (await fetch(`${second.url}/openapi.json`)).json()
  for (const [path, operations] of Object.entries<Record<string, unknown>>(doc.paths)) {
    for (const method of Object.keys(operations)) {
      const body = ['get', 'head', 'delete'].includes(method) ? undefined : '{}'
      const res = await fetch(`${second.url}${path.replace(/\{[^}]+\}/g, 'x')}`, {
        method: method.toUpperCase(),
        headers: auth,
        body,
        signal: AbortSignal.timeout(2000),
      }).catch(() => undefined)
      await res?.arrayBuffer().catch(() => undefined)
    }
  }
  await Bun.sleep(200)
  const afterListening = second
    .output()
    .split('\n')
    .slice(
      second
        .output()
        .split('\n')
        .findIndex((l) => l.includes('"msg":"listening"')),
    )
    .filter(Boolean)
  expect(
    afterListening.filter((line) => {
      try {
        return typeof JSON.parse(line) !== 'object'
      } catch {
        return true
      }
    }),
  ).toEqual([])
  await second.stop()
}, 120_000)
