// Environment promotion and comparison (docs/as-code.md §3) against a real server.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { api, createToken, startServer, type TestServer } from '../helpers/server'

const ROOT = join(import.meta.dir, '..', '..')
let srv: TestServer
beforeAll(async () => {
  srv = await startServer()
  const w = (path: string, body: unknown) => api(srv, 'POST', path, { token: srv.adminToken, body })
  await w('/api/v1/flags', { key: 'same', enabled: true, environments: { staging: { enabled: false }, production: { enabled: false } } })
  await w('/api/v1/flags', {
    key: 'differs',
    enabled: true,
    value: 1,
    environments: { staging: { enabled: true, value: 2 }, production: { enabled: true, value: 3 } },
  })
  await w('/api/v1/flags', { key: 'staging-only', enabled: true, environments: { staging: { enabled: false } } })
  await w('/api/v1/flags', { key: 'production-only', enabled: true, environments: { production: { enabled: false } } })
  await w('/api/v1/flags', { key: 'plain', enabled: true })
  await w('/api/v1/configs', { key: 'limits', value: 1, environments: { staging: { value: 5 } } })
})
afterAll(() => srv.stop())

const compare = async (token = srv.adminToken) =>
  (await api(srv, 'GET', '/api/v1/environments/compare?a=staging&b=production', { token })).body

describe('compare and promote', () => {
  test('compare: identical, different (with the diff), only_a, only_b', async () => {
    const c = await compare()
    expect(c.flags).toEqual([
      { key: 'differs', status: 'different', diff: [{ op: 'replace', path: '/value', value: 3 }] },
      { key: 'plain', status: 'identical' },
      { key: 'production-only', status: 'only_b' },
      { key: 'same', status: 'identical' },
      { key: 'staging-only', status: 'only_a' },
    ])
    expect(c.configs).toEqual([{ key: 'limits', status: 'only_a' }])
    expect((await api(srv, 'GET', '/api/v1/environments/compare?a=staging&b=moon', { token: srv.adminToken })).status).toBe(400)
    const configsOnly = await createToken(srv, ['read:configs'])
    expect(Object.keys(await compare(configsOnly)).sort()).toEqual(['a', 'b', 'configs'])
    const writeOnly = await createToken(srv, ['write:configs'])
    expect((await api(srv, 'GET', '/api/v1/environments/compare?a=staging&b=production', { token: writeOnly })).status).toBe(403)
  })

  test('promote named rows: dry run plans only; apply copies (or removes) overrides, one change set, expect versions', async () => {
    const req = { from: 'staging', to: 'production', flags: ['differs', 'production-only'], configs: ['limits'] }
    const dry = await api(srv, 'POST', '/api/v1/promote', { token: srv.adminToken, body: { ...req, dry_run: true } })
    expect(dry.status).toBe(200)
    expect(dry.body.changes.map((c: any) => `${c.resource_type}:${c.key}`)).toEqual([
      'flag:differs',
      'flag:production-only',
      'config:limits',
    ])
    expect((await compare()).flags.find((f: any) => f.key === 'differs').status).toBe('different')
    const stale = await api(srv, 'POST', '/api/v1/promote', { token: srv.adminToken, body: { ...req, expect: { differs: 7 } } })
    expect(stale.status).toBe(409)
    const done = await api(srv, 'POST', '/api/v1/promote', { token: srv.adminToken, body: { ...req, expect: { differs: 1 } } })
    expect(done.status).toBe(200)
    expect(done.body.summary).toEqual({ create: 0, update: 3, delete: 0, unchanged: 0 })
    const c = await compare()
    expect(c.flags.find((f: any) => f.key === 'differs').status).toBe('identical')
    expect(c.flags.find((f: any) => f.key === 'production-only').status).toBe('identical')
    expect(c.configs).toEqual([{ key: 'limits', status: 'identical' }])
    const audit = (await api(srv, 'GET', '/api/v1/audit?limit=3', { token: srv.adminToken })).body.entries as any[]
    expect(new Set(audit.map((e) => e.details.change_set))).toEqual(new Set([done.body.change_set]))
    const again = await api(srv, 'POST', '/api/v1/promote', { token: srv.adminToken, body: req })
    expect(again.body.summary).toMatchObject({ update: 0, unchanged: 3 })
  })

  test('permissions, unknown names; the CLI promotes with exit 2 then 0', async () => {
    const flagsOnly = await createToken(srv, ['write:flags'])
    expect(
      (await api(srv, 'POST', '/api/v1/promote', { token: flagsOnly, body: { from: 'staging', to: 'production', configs: ['limits'] } }))
        .status,
    ).toBe(403)
    expect((await api(srv, 'POST', '/api/v1/promote', { token: flagsOnly, body: { from: 'staging', to: 'production' } })).status).toBe(403)
    expect(
      (await api(srv, 'POST', '/api/v1/promote', { token: flagsOnly, body: { from: 'staging', to: 'production', flags: ['nope'] } }))
        .status,
    ).toBe(404)
    const readOnly = await createToken(srv, ['read:flags'])
    expect(
      (await api(srv, 'POST', '/api/v1/promote', { token: readOnly, body: { from: 'staging', to: 'production', flags: ['same'] } })).status,
    ).toBe(403)
    const cli = (...args: string[]) =>
      Bun.spawnSync([process.execPath, join(ROOT, 'server', 'gitops', 'cli.ts'), ...args], {
        cwd: ROOT,
        env: { ...process.env, FLAGSHIP_URL: srv.url, FLAGSHIP_TOKEN: srv.adminToken },
      })
    const first = cli('promote', '--from', 'staging', '--to', 'production', 'staging-only')
    expect(first.stdout.toString()).toContain('~ flag staging-only')
    expect(first.exitCode).toBe(2)
    expect(cli('promote', '--from', 'staging', '--to', 'production', 'staging-only').exitCode).toBe(0)
  })
})
