// `cli users create --owner`: the way back in for a lost owner, through the same user creation and
// instance audit as the API, picked up by a running server without a restart.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { startServer, type TestServer } from '../helpers/server'
import { runCli } from '../helpers/cli'
import { cookieOf, PASSWORD, sapi, setupOwner, signIn } from '../helpers/teams'

const ROOT = join(import.meta.dir, '..', '..')

describe('cli users create', () => {
  let srv: TestServer
  let owner: string
  beforeAll(async () => {
    srv = await startServer()
    owner = await setupOwner(srv)
  })
  afterAll(() => srv.stop())

  test('--owner prints a one-time link; the link sets the password once; the new owner signs in', async () => {
    const run = runCli(srv, 'users', 'create', '--email', 'Rescue@Example.com', '--name', 'Rescue', '--owner')
    expect(run.code).toBe(0)
    expect(run.out).toContain('created user rescue@example.com (owner')
    const token = /\/reset\/([A-Za-z0-9_-]{43})/.exec(run.out)![1]!
    const use = () => sapi(srv, 'POST', '/api/v1/auth/password-reset', { body: { token, password: PASSWORD } })
    expect((await use()).status).toBe(200)
    expect((await use()).status).toBe(410)
    const cookie = await signIn(srv, 'rescue@example.com')
    expect((await sapi(srv, 'GET', '/api/v1/me', { cookie })).body.user.instance_role).toBe('owner')
    const log = (await sapi(srv, 'GET', '/api/v1/admin/audit?actor=cli', { cookie })).body.entries
    expect(log.some((e: { action: string; resource_type: string }) => e.action === 'create' && e.resource_type === 'user')).toBe(true)
    expect(JSON.stringify(log)).not.toContain(token)
  })

  test('--password-stdin; a taken email or a bad one is refused, nothing created', async () => {
    const proc = Bun.spawnSync(
      [
        process.execPath,
        join(ROOT, 'server', 'cli.ts'),
        'users',
        'create',
        '--email',
        'admin2@example.com',
        '--name',
        'Two',
        '--admin',
        '--password-stdin',
      ],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: srv.databaseUrl },
        stdin: new TextEncoder().encode(`${PASSWORD}\n`),
      },
    )
    expect(proc.exitCode).toBe(0)
    expect(proc.stdout.toString()).not.toContain('/reset/')
    const cookie = cookieOf(await sapi(srv, 'POST', '/api/v1/auth/login', { body: { email: 'admin2@example.com', password: PASSWORD } }))
    expect((await sapi(srv, 'GET', '/api/v1/me', { cookie })).body.user.instance_role).toBe('admin')
    expect(runCli(srv, 'users', 'create', '--email', 'admin2@example.com', '--name', 'Again').code).toBe(1)
    expect(runCli(srv, 'users', 'create', '--email', 'not-an-email', '--name', 'X').code).not.toBe(0)
    const users = (await sapi(srv, 'GET', '/api/v1/admin/users', { cookie: owner })).body.users
    expect(users.map((u: { email: string }) => u.email).sort()).toEqual(['admin2@example.com', 'owner@example.com', 'rescue@example.com'])
  })
})
