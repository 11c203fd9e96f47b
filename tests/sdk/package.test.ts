// The built package as users get it: `npm run build:sdk`, then `flagship-sdk` and `flagship-sdk/openfeature`
// imported by name from a separate folder, in Node (>= 20) when the machine has it, else Bun: evaluation
// from a bootstrap (with `matches`, which loads the regex chunk), a live server with a change through the
// stream, the OpenFeature provider, and the type declarations compiling for a consumer. Then the browser
// sizes: the up-front entry under 15 kB min+gzip, re2js only in the on-demand chunk.
import { beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { sizes } from '../../sdk/build'
import { api, createToken, startServer } from '../helpers/server'
import { tempDir } from '../helpers/temp'

const ROOT = join(import.meta.dir, '..', '..')
const RUNTIME = Bun.which('node') ?? process.execPath
let consumer: string

beforeAll(() => {
  const build = Bun.spawnSync(['npm', 'run', 'build:sdk'], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
  if (build.exitCode !== 0) throw new Error(`npm run build:sdk failed:\n${build.stdout}${build.stderr}`)
  // A consumer project: the package (and the OpenFeature SDKs it is used with) in its node_modules.
  consumer = tempDir('flagship-sdk-consumer-')
  mkdirSync(join(consumer, 'node_modules'))
  symlinkSync(join(ROOT, 'sdk'), join(consumer, 'node_modules', 'flagship-sdk'))
  symlinkSync(join(ROOT, 'node_modules', '@openfeature'), join(consumer, 'node_modules', '@openfeature'))
  writeFileSync(join(consumer, 'package.json'), '{ "type": "module" }')
}, 120_000)

const SCRIPT =
  `
import { createClient } from 'flagship-sdk'
import { FlagshipProvider } from 'flagship-sdk/openfeature'
import { OpenFeature } from '@openfeature/server-sdk'
const out = (line) => process.stdout.write(JSON.stringify(line) + '\\n')
const boot = createClient({ bootstrap: { version: 1, environments: [], configs: [], segments: [], flags: [
  { key: 'mail', enabled: true, value: 'no', ` +
  `targeting: { rules: [{ conditions: [{ property: 'email', operator: 'matches', ` +
  `value: '^[a-z]+@example\\\\.com$' }], value: 'yes' }] } }] } })
await boot.ready()
out({ bootstrap: [boot.evaluate('mail', { email: 'ann@example.com' }), boot.evaluate('mail', { email: 'Ann@example.com' }).value] })
const live = createClient({ url: process.env.URL, token: process.env.TOKEN })
await live.ready()
await OpenFeature.setProviderAndWait(new FlagshipProvider(live))
out({ live: live.evaluate('live', { user_id: 'u' }), ` +
  `openfeature: await OpenFeature.getClient().getNumberDetails('live', -1, { targetingKey: 'u' }) })
live.on('change', async () => {
  out({ changed: live.evaluate('live') })
  await OpenFeature.close()
  await live.close()
})
`

describe('the built package', () => {
  const PACKAGE_TITLE =
    `imported by name in ${RUNTIME.endsWith('node') ? 'Node' : 'Bun'}: ` + `bootstrap with matches, a live server, a change, OpenFeature`
  test(PACKAGE_TITLE, async () => {
    const srv = await startServer()
    try {
      expect(
        (await api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: { key: 'live', enabled: true, value: 1 } })).status,
      ).toBe(201)
      const token = await createToken(srv, ['read:flags'])
      writeFileSync(join(consumer, 'main.js'), SCRIPT)
      const proc = Bun.spawn([RUNTIME, join(consumer, 'main.js')], {
        cwd: consumer,
        env: { ...process.env, URL: srv.url, TOKEN: token },
        stdout: 'pipe',
        stderr: 'pipe',
      })
      const lines: Record<string, any>[] = []
      const reader = (async () => {
        let buffer = ''
        for await (const chunk of proc.stdout) {
          buffer += new TextDecoder().decode(chunk)
          for (let i; (i = buffer.indexOf('\n')) !== -1; buffer = buffer.slice(i + 1)) lines.push(JSON.parse(buffer.slice(0, i)))
        }
      })()
      const deadline = Date.now() + 20_000
      while (lines.length < 2 && proc.exitCode === null && Date.now() < deadline) await Bun.sleep(20)
      expect(lines[0]).toEqual({ bootstrap: [{ value: 'yes', type: 'string', reason: 'targeting' }, 'no'] })
      expect(lines[1]!.live).toEqual({ value: 1, type: 'number', reason: 'default' })
      expect(lines[1]!.openfeature).toMatchObject({ value: 1, reason: 'STATIC', variant: 'default' })
      expect((await api(srv, 'PUT', '/api/v1/flags/live', { token: srv.adminToken, body: { value: 2 } })).status).toBe(200)
      const exit = await Promise.race([proc.exited, Bun.sleep(10_000).then(() => 'timeout')])
      if (exit === 'timeout') proc.kill()
      await reader
      expect(exit).toBe(0)
      expect(lines[2]).toEqual({ changed: { value: 2, type: 'number', reason: 'default' } })
      expect(await new Response(proc.stderr).text()).toBe('')
    } finally {
      await srv.stop()
    }
  }, 60_000)

  test('its type declarations compile for a consumer (and catch a wrong call)', () => {
    const file = (body: string) =>
      `import { createClient, type Evaluation } from 'flagship-sdk'\n` +
      `import { FlagshipProvider, FlagshipWebProvider } from 'flagship-sdk/openfeature'\n` +
      `import { OpenFeature } from '@openfeature/server-sdk'\nimport { OpenFeature as Web } from '@openfeature/web-sdk'\n${body}\n`
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
        lib: ['ES2022', 'DOM'],
      },
      files: ['consumer.ts'],
    }
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify(tsconfig))
    const check = (body: string) => {
      writeFileSync(join(consumer, 'consumer.ts'), file(body))
      const run = Bun.spawnSync(['node', join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', consumer], {
        stdout: 'pipe',
        stderr: 'pipe',
      })
      return `${run.stdout}${run.stderr}`
    }
    const good = `const c = createClient({ url: 'http://x', token: 't', environment: 'production' })
const e: Evaluation = c.evaluate('f', { user_id: 'u', country: 'de' }, false)
const off: () => void = c.on('change', (ch) => console.log(ch.flags.join(), e.reason))
await OpenFeature.setProviderAndWait(new FlagshipProvider(c))
await Web.setProviderAndWait(new FlagshipWebProvider({ url: 'http://x', token: 't' }))
off()`
    expect(check(good)).toBe('')
    // Declarations that failed to resolve would make everything `any` (skipLibCheck hides their own errors): these must fail.
    expect(check(`createClient({ url: 'http://x', token: 't' }).evaluate(42)`)).toContain('consumer.ts')
    expect(check(`const n: number = createClient({ url: 'http://x', token: 't' }).evaluate('f').reason`)).toContain('consumer.ts')
    expect(check(`new FlagshipProvider({ url: 1 })`)).toContain('consumer.ts')
  }, 60_000)

  test('browser sizes: the up-front entry is under 15 kB min+gzip; re2js only loads on demand', () => {
    const s = sizes()
    expect(s.upFront).toBeLessThan(15 * 1024)
    expect(s.onDemandFiles).toHaveLength(1)
    expect(readFileSync(s.onDemandFiles[0]!, 'utf8')).toContain('RE2JS')
    for (const f of s.upFrontFiles) expect(readFileSync(f, 'utf8')).not.toContain('RE2JS')
    expect(s.onDemand).toBeGreaterThan(30 * 1024)
    console.log(`flagship-sdk: up front ${(s.upFront / 1024).toFixed(1)} kB, on demand ${(s.onDemand / 1024).toFixed(1)} kB (min+gzip)`)
  })
})
