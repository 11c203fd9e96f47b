// The service serves its own SDK (routes/sdk.ts): `npm install http://<host>/sdk/flagship-sdk.tgz` into a
// fresh project works (the package has no registry dependencies, so nothing else is fetched), carries the
// service's version, and a .mjs script using it evaluates against the server as the README shows; the
// browser module is public, readable from any origin, cacheable with an ETag.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pkg from '../../package.json'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { tempDir } from '../helpers/temp'

let srv: TestServer
beforeAll(async () => {
  srv = await startServer()
  expect(
    (
      await api(srv, 'POST', '/api/v1/flags', {
        token: srv.adminToken,
        body: {
          key: 'new-checkout',
          enabled: true,
          value: false,
          targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: true }] },
        },
      })
    ).status,
  ).toBe(201)
})
afterAll(() => srv.stop())

test('npm install <service>/sdk/flagship-sdk.tgz in a fresh project, then a .mjs script evaluates with it', async () => {
  const project = tempDir('flagship-sdk-npm-')
  const npm = (...args: string[]) =>
    Bun.spawnSync(['npm', ...args, '--no-audit', '--no-fund', '--cache', join(project, '.npm-cache')], {
      cwd: project,
      stdout: 'pipe',
      stderr: 'pipe',
    })
  expect(npm('init', '-y').exitCode).toBe(0)
  const install = npm('install', `${srv.url}/sdk/flagship-sdk.tgz`)
  expect({ code: install.exitCode, err: install.exitCode ? install.stderr.toString() : '' }).toEqual({ code: 0, err: '' })
  const installed = JSON.parse(readFileSync(join(project, 'node_modules', 'flagship-sdk', 'package.json'), 'utf8'))
  expect(installed).toMatchObject({ name: 'flagship-sdk', version: pkg.version, license: 'Apache-2.0' })
  // sdk/package.json moves with the service's version (the package built from a checkout says the same).
  expect(JSON.parse(readFileSync(join(import.meta.dir, '..', '..', 'sdk', 'package.json'), 'utf8')).version).toBe(pkg.version)
  expect(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).dependencies['flagship-sdk']).toBe(
    `${srv.url}/sdk/flagship-sdk.tgz`,
  )
  const token = await createToken(srv, ['read:flags'])
  writeFileSync(
    join(project, 'flags.mjs'),
    `import { createClient } from 'flagship-sdk'
const flags = createClient({ url: process.env.FLAGSHIP_URL, token: process.env.FLAGSHIP_TOKEN })
await flags.ready()
console.log(JSON.stringify([flags.evaluate('new-checkout', { user_id: 'u-42', plan: 'pro' }, false), ` +
      `flags.evaluate('new-checkout', { plan: 'free' }, false).value]))
await flags.close()
`,
  )
  const run = Bun.spawnSync([Bun.which('node') ?? process.execPath, 'flags.mjs'], {
    cwd: project,
    env: { ...process.env, FLAGSHIP_URL: srv.url, FLAGSHIP_TOKEN: token },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  expect(run.stderr.toString()).toBe('')
  expect(JSON.parse(run.stdout.toString())).toEqual([{ value: true, type: 'boolean', reason: 'targeting' }, false])
}, 120_000)

test('GET /sdk/flagship.js: an ES module from any origin, versioned and cacheable; unknown files are 404 JSON', async () => {
  const res = await fetch(`${srv.url}/sdk/flagship.js`, { headers: { origin: 'https://app.example.com' } })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
  expect(res.headers.get('access-control-allow-origin')).toBe('*')
  const etag = res.headers.get('etag')!
  expect(etag).toStartWith(`"${pkg.version}-`)
  const body = await res.text()
  expect(body).toMatch(/export\s*\{/)
  // Its imports are relative, so they resolve under /sdk/ on the same service.
  for (const m of body.matchAll(/from\s*"(\.\/[^"]+)"/g))
    expect((await fetch(new URL(m[1]!, `${srv.url}/sdk/flagship.js`))).status).toBe(200)
  expect((await fetch(`${srv.url}/sdk/flagship.js`, { headers: { 'if-none-match': etag } })).status).toBe(304)
  const tgz = await fetch(`${srv.url}/sdk/flagship-sdk.tgz`)
  expect(tgz.headers.get('content-type')).toBe('application/gzip')
  const missing = await api(srv, 'GET', '/sdk/nope.js')
  expect(missing.status).toBe(404)
  expect(missing.body.code).toBe('NOT_FOUND')
  expect((await api(srv, 'GET', '/sdk/..%2Fpackage.json')).status).toBe(404)
})

test('the console files under /assets/: cached for good; nothing outside the build is reachable', async () => {
  const index = await (await fetch(`${srv.url}/`)).text()
  const asset = /src="(\/assets\/[^"]+\.js)"/.exec(index)![1]!
  const res = await fetch(`${srv.url}${asset}`)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toStartWith('text/javascript')
  expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
  for (const path of [
    '/assets/..%2F..%2Fpackage.json',
    '/assets/%2e%2e/%2e%2e/package.json',
    '/assets/%2Fetc%2Fpasswd',
    '/assets/nope.js',
    '/sdk/..%2F..%2Fpackage.json',
    '/sdk/%2e%2e/build.ts',
  ]) {
    const refused = await fetch(`${srv.url}${path}`)
    expect([path, refused.status]).toEqual([path, 404])
    expect((await refused.json()).code).toBe('NOT_FOUND')
  }
})
