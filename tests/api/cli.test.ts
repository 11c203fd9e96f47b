// The command line changes state through the change path (docs/behaviour.md §8): one transaction per
// command with its audit entry (actor `cli`) and webhook deliveries, against the database of a running
// server (SQLite or PostgreSQL, as the suite runs); the server accepts the new token and delivers the events.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { printedToken, runCli } from '../helpers/cli'
import { api, startServer, type TestServer } from '../helpers/server'
import { until } from '../helpers/until'

let srv: TestServer
const received: any[] = []
const hook = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(req) {
    received.push(await req.json())
    return new Response('ok')
  },
})

beforeAll(async () => {
  srv = await startServer()
  const res = await api(srv, 'POST', '/api/v1/webhooks', {
    token: srv.adminToken,
    body: { url: `http://127.0.0.1:${hook.port}/hook`, events: ['*'] },
  })
  expect(res.status).toBe(201)
})
afterAll(async () => {
  await srv.stop()
  hook.stop(true)
})

const cli = (...args: string[]) => runCli(srv, ...args)

const auditOf = async (token: string, type: string) =>
  (await api(srv, 'GET', `/api/v1/audit?resource_type=${type}`, { token })).body.entries as any[]

test('tokens create: one audited change (actor cli), a token.created delivery, a token the running server accepts', async () => {
  const run = cli('tokens', 'create', '--project', 'default', '--name', 'ops reader', '--permissions', 'read:flags')
  expect(run).toMatchObject({ code: 0, err: '' })
  const token = printedToken(run.out)
  expect((await api(srv, 'GET', '/api/v1/flags', { token })).status).toBe(200)
  const entries = (await auditOf(srv.adminToken, 'token')).filter((e) => e.after?.name === 'ops reader')
  expect(entries).toHaveLength(1)
  expect(entries[0]).toMatchObject({ actor: 'cli', action: 'create', resource_key: token.slice(0, 12) })
  expect(JSON.stringify(entries)).not.toContain(token)
  const event = await until('the token.created delivery', () =>
    received.find((e) => e.event === 'token.created' && e.data.name === 'ops reader'),
  )
  expect(event).toMatchObject({ resource: token.slice(0, 12), data: { name: 'ops reader', permissions: ['read:flags'] } })
  expect(JSON.stringify(event)).not.toContain(token)
})

test('tokens create --environment: an environment key, validated as the API validates it', async () => {
  const run = cli('tokens', 'create', '--project', 'default', '--name', 'web', '--permissions', 'client', '--environment', 'production')
  expect(run).toMatchObject({ code: 0, err: '' })
  const listed = (await api(srv, 'GET', '/api/v1/tokens', { token: srv.adminToken })).body.tokens.find(
    (t: { name: string }) => t.name === 'web',
  )
  expect(listed).toMatchObject({ permissions: ['client'], environment: 'production' })
  const refused = cli('tokens', 'create', '--project', 'default', '--name', 'web2', '--permissions', 'client')
  expect(refused.code).toBe(1)
  expect(refused.err).toContain('environment')
})

test('projects create: audited in the new project with actor cli; its first token is audited too', async () => {
  const slug = `shop-${Date.now()}`
  const made = cli('projects', 'create', '--name', 'Shop', '--slug', slug)
  expect(made).toMatchObject({ code: 0, err: '' })
  const id = /created project (\w+)/.exec(made.out)![1]!
  expect(id).not.toBe(slug)
  // --project takes the slug as well as the id.
  const tokenRun = cli('tokens', 'create', '--project', slug, '--name', 'shop admin', '--permissions', '*')
  expect(tokenRun.code).toBe(0)
  const token = printedToken(tokenRun.out)
  // The server re-reads its token table on an unknown token at most once a second: the first use may wait for it.
  const project_ = await until(
    'the new token to be accepted',
    async () => {
      const res = await api(srv, 'GET', '/api/v1/project', { token })
      return res.status === 200 ? res.body : undefined
    },
    3000,
  )
  expect(project_).toMatchObject({ id, name: 'Shop', environments: ['development', 'staging', 'production'] })
  const project = await auditOf(token, 'project')
  expect(project).toHaveLength(1)
  expect(project[0]).toMatchObject({ actor: 'cli', action: 'create', resource_key: id, before: null, after: { id, name: 'Shop' } })
  expect((await auditOf(token, 'token')).map((e) => [e.actor, e.action, e.after.name])).toEqual([['cli', 'create', 'shop admin']])
})

test('bad input changes nothing and says why', async () => {
  const before = (await api(srv, 'GET', '/api/v1/audit', { token: srv.adminToken })).body.total
  for (const args of [
    ['tokens', 'create', '--project', 'default', '--name', 'bad\u0007name', '--permissions', 'read:flags'],
    ['tokens', 'create', '--project', 'default', '--name', 'x', '--permissions', 'admin'],
    ['tokens', 'create', '--project', 'nope', '--name', 'x', '--permissions', '*'],
    ['projects', 'create', '--name', 'X', '--slug', 'Not A Slug'],
  ]) {
    const run = cli(...args)
    expect(run.code).toBe(1)
    expect(run.err).toStartWith('error: ')
  }
  expect((await api(srv, 'GET', '/api/v1/audit', { token: srv.adminToken })).body.total).toBe(before)
})
