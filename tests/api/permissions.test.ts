import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { api, createToken, startServer, type TestServer } from '../helpers/server'

let srv: TestServer
const ALL = ['read:flags', 'read:configs', 'write:flags', 'write:configs']
const tokens: Record<string, string> = {}

beforeAll(async () => {
  srv = await startServer()
  // For each permission, a token holding every other non-admin permission.
  for (const p of ALL)
    tokens[`all-but:${p}`] = await createToken(
      srv,
      ALL.filter((x) => x !== p),
    )
  tokens.allNonAdmin = await createToken(srv, ALL)
  tokens.readFlags = await createToken(srv, ['read:flags'])
  tokens.readConfigs = await createToken(srv, ['read:configs'])
  await api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: { key: 'f1', enabled: true } })
  await api(srv, 'POST', '/api/v1/configs', { token: srv.adminToken, body: { key: 'c1', value: 1 } })
  await api(srv, 'POST', '/api/v1/segments', { token: srv.adminToken, body: { key: 's1', conditions: [] } })
})
afterAll(() => srv.stop())

type Case = [method: string, path: string, body?: unknown]
const byPermission: Record<string, Case[]> = {
  'read:flags': [
    ['GET', '/api/v1/flags'],
    ['GET', '/api/v1/flags/f1'],
    ['GET', '/api/v1/flags/f1/definition'],
  ],
  'write:flags': [
    ['POST', '/api/v1/flags', { key: 'nope' }],
    ['PUT', '/api/v1/flags/f1', { enabled: false }],
    ['DELETE', '/api/v1/flags/f1'],
    ['PUT', '/api/v1/flags/f1/environments/staging', { enabled: true }],
    ['DELETE', '/api/v1/flags/f1/environments/staging'],
    ['POST', '/api/v1/flags/f1/turn-off'],
    ['GET', '/api/v1/segments'],
    ['GET', '/api/v1/segments/s1'],
    ['POST', '/api/v1/segments', { key: 'nope', conditions: [] }],
    ['PUT', '/api/v1/segments/s1', { conditions: [] }],
    ['DELETE', '/api/v1/segments/s1'],
  ],
  'read:configs': [
    ['GET', '/api/v1/configs'],
    ['GET', '/api/v1/configs/c1'],
    ['GET', '/api/v1/configs/c1/definition'],
  ],
  'write:configs': [
    ['POST', '/api/v1/configs', { key: 'nope', value: 1 }],
    ['PUT', '/api/v1/configs/c1', { value: 2 }],
    ['DELETE', '/api/v1/configs/c1'],
    ['PUT', '/api/v1/configs/c1/environments/staging', { value: 1 }],
    ['DELETE', '/api/v1/configs/c1/environments/staging'],
  ],
  '*': [
    ['GET', '/api/v1/tokens'],
    ['POST', '/api/v1/tokens', { name: 'x', project_id: 'default', permissions: ['read:flags'] }],
    ['DELETE', '/api/v1/tokens/abc'],
    ['GET', '/api/v1/webhooks'],
    ['POST', '/api/v1/webhooks', { url: 'https://example.com/h', events: ['*'] }],
    ['DELETE', '/api/v1/webhooks/abc'],
    ['GET', '/api/v1/audit'],
    ['PUT', '/api/v1/project', { name: 'x' }],
    ['POST', '/api/v1/project/environments', { name: 'qa' }],
    ['DELETE', '/api/v1/project/environments/staging'],
  ],
}

describe('every permission rule refuses a token without it (403 FORBIDDEN, details.required)', () => {
  for (const [permission, cases] of Object.entries(byPermission)) {
    for (const [method, path, body] of cases) {
      test(`${method} ${path} needs ${permission}`, async () => {
        const token = permission === '*' ? tokens.allNonAdmin : tokens[`all-but:${permission}`]
        const res = await api(srv, method, path, { token, body })
        expect(res.status).toBe(403)
        expect(res.body).toMatchObject({ code: 'FORBIDDEN', details: { required: permission } })
        expect(res.headers.get('x-ratelimit-limit')).not.toBeNull()
      })
    }
  }

  test('refused writes changed nothing', async () => {
    const flag = await api(srv, 'GET', '/api/v1/flags/f1/definition', { token: srv.adminToken })
    expect(flag.body.flag).toMatchObject({ enabled: true, version: 1 })
    expect((await api(srv, 'GET', '/api/v1/segments/s1', { token: srv.adminToken })).status).toBe(200)
    expect((await api(srv, 'GET', '/api/v1/audit?resource_type=flag', { token: srv.adminToken })).body.total).toBe(1)
  })

  test('bulk evaluation: needs read:flags or read:configs; explicit lists need the matching one', async () => {
    const writeOnly = await createToken(srv, ['write:flags', 'write:configs'])
    expect((await api(srv, 'POST', '/api/v1/evaluate', { token: writeOnly, body: {} })).status).toBe(403)
    const flagsOnly = await api(srv, 'POST', '/api/v1/evaluate', { token: tokens.readFlags, body: {} })
    expect(flagsOnly.status).toBe(200)
    expect(Object.keys(flagsOnly.body.flags)).toEqual(['f1'])
    expect(flagsOnly.body.configs).toEqual({})
    const refused = await api(srv, 'POST', '/api/v1/evaluate', { token: tokens.readFlags, body: { configs: ['c1'] } })
    expect(refused.status).toBe(403)
    expect(refused.body.details.required).toBe('read:configs')
    const refused2 = await api(srv, 'POST', '/api/v1/evaluate', { token: tokens.readConfigs, body: { flags: ['f1'] } })
    expect(refused2.status).toBe(403)
    expect(refused2.body.details.required).toBe('read:flags')
  })

  test('any valid token reads the project, its environments and itself', async () => {
    for (const path of ['/api/v1/project', '/api/v1/project/environments', '/api/v1/me']) {
      expect((await api(srv, 'GET', path, { token: tokens.readConfigs })).status).toBe(200)
    }
    const me = await api(srv, 'GET', '/api/v1/me', { token: tokens.readConfigs })
    expect(me.body).toMatchObject({ project_id: 'default', permissions: ['read:configs'] })
  })
})

describe('authentication', () => {
  test('missing, malformed and unknown tokens: 401 UNAUTHORIZED', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Basic abc' },
      { authorization: 'Bearer' },
      { authorization: 'Bearer ff_defa_AAAAAAAAAAAAAAAAAAAA' },
    ]) {
      const res = await api(srv, 'GET', '/api/v1/flags', { headers })
      expect(res.status).toBe(401)
      expect(res.body.code).toBe('UNAUTHORIZED')
    }
  })

  test('an expired token: 401 TOKEN_EXPIRED', async () => {
    const token = await createToken(srv, ['read:flags'], { expires_at: new Date(Date.now() + 1500).toISOString() })
    expect((await api(srv, 'GET', '/api/v1/flags', { token })).status).toBe(200)
    await Bun.sleep(1700)
    const res = await api(srv, 'GET', '/api/v1/flags', { token })
    expect(res.status).toBe(401)
    expect(res.body.code).toBe('TOKEN_EXPIRED')
  })

  test('a * token acts only inside its own project', async () => {
    const cli = (args: string[]) => {
      const p = Bun.spawnSync([process.execPath, join(import.meta.dir, '..', '..', 'server', 'cli.ts'), ...args], {
        env: { ...process.env, DATABASE_URL: srv.databaseUrl },
      })
      return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() }
    }
    const made = cli(['projects', 'create', '--name', 'Shop', '--slug', 'shop'])
    expect(made.code).toBe(0)
    const id = /created project (\S+)/.exec(made.out)![1]
    expect(id).toMatch(/^[a-z0-9]{8,}$/)
    expect(cli(['projects', 'list']).out).toContain(`${id}\tshop\tShop`)
    const tok = cli(['tokens', 'create', '--project', id, '--name', 'shop admin', '--permissions', '*'])
    expect(tok.code).toBe(0)
    const shopAdmin = /shown once, store it now\): (\S+)/.exec(tok.out)![1]
    expect(shopAdmin.startsWith(`ff_${id.slice(0, 4)}_`)).toBe(true)

    const project = await api(srv, 'GET', '/api/v1/project', { token: shopAdmin })
    expect(project.status).toBe(200)
    expect(project.body.id).toBe(id)
    // The default project's flag is invisible to the other project's admin.
    expect((await api(srv, 'GET', '/api/v1/flags/f1', { token: shopAdmin })).status).toBe(404)
    expect((await api(srv, 'GET', '/api/v1/flags', { token: shopAdmin })).body.total).toBe(0)
    const cross = await api(srv, 'POST', '/api/v1/tokens', {
      token: shopAdmin,
      body: { name: 'x', project_id: 'default', permissions: ['*'] },
    })
    expect(cross.status).toBe(403)
    const listed = await api(srv, 'GET', '/api/v1/tokens', { token: shopAdmin })
    expect(listed.body.tokens.every((t: any) => t.project_id === id)).toBe(true)
    const defaultTokens = await api(srv, 'GET', '/api/v1/tokens', { token: srv.adminToken })
    const hash = defaultTokens.body.tokens[0].hash
    expect((await api(srv, 'DELETE', `/api/v1/tokens/${hash}`, { token: shopAdmin })).status).toBe(404)
  })
})
