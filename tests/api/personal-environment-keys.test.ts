// Personal environment keys and client keys (POST /api/v1/me/tokens with `environment`) through HTTP: bound
// like the project's keys, still bounded by the owner's rights, and refused as /tokens refuses. Run on
// SQLite and (TEST_STORE=postgres) PostgreSQL.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { api, startServer, type TestServer } from '../helpers/server'
import { cookieOf, PASSWORD, sapi, setupOwner } from '../helpers/teams'

let srv: TestServer
let editor: string

beforeAll(async () => {
  srv = await startServer()
  const owner = await setupOwner(srv)
  expect(
    (
      await api(srv, 'POST', '/api/v1/flags', {
        token: srv.adminToken,
        body: { key: 'f', enabled: true, value: 'base', client_side: true, environments: { staging: { enabled: true, value: 'staging' } } },
      })
    ).status,
  ).toBe(201)
  const inv = await sapi(srv, 'POST', '/api/v1/invitations', {
    cookie: owner,
    body: { email: 'ed@example.com', projects: [{ project: 'default', role: 'editor', environments: { production: 'viewer' } }] },
  })
  const accepted = await sapi(srv, 'POST', '/api/v1/auth/invitations/accept', {
    body: { token: inv.body.token, name: 'ed', password: PASSWORD },
  })
  editor = cookieOf(accepted)
})
afterAll(() => srv?.stop())

const make = (body: Record<string, unknown>) =>
  sapi(srv, 'POST', '/api/v1/me/tokens', { cookie: editor, body: { name: 'mine', project: 'default', ...body } })

test('a personal staging key evaluates in staging, writes only there, and is refused elsewhere', async () => {
  const made = await make({ permissions: ['read:flags', 'write:flags'], environment: 'staging' })
  expect([made.status, made.body.meta.environment, made.body.meta.environments]).toEqual([201, 'staging', ['staging']])
  const key = made.body.token
  expect((await api(srv, 'GET', '/api/v1/flags/f', { token: key })).body.value).toBe('staging')
  const other = await api(srv, 'GET', `/api/v1/flags/f?context=${encodeURIComponent('{"environment":"production"}')}`, { token: key })
  expect([other.status, other.body.code]).toEqual([403, 'ENVIRONMENT_MISMATCH'])
  expect((await api(srv, 'PUT', '/api/v1/flags/f/environments/staging', { token: key, body: { enabled: false } })).status).toBe(200)
  expect((await api(srv, 'PUT', '/api/v1/flags/f/environments/development', { token: key, body: { enabled: false } })).body.code).toBe(
    'ENVIRONMENT_FORBIDDEN',
  )
  expect((await sapi(srv, 'GET', '/api/v1/me/tokens', { cookie: editor })).body.tokens[0]).toMatchObject({ environment: 'staging' })
})

test("refusals: an unknown environment, a scope other than the key's, a client key without an environment", async () => {
  expect((await make({ permissions: ['read:flags'], environment: 'prod' })).status).toBe(400)
  expect((await make({ permissions: ['write:flags'], environment: 'staging', environments: ['development'] })).status).toBe(400)
  expect((await make({ permissions: ['client'] })).status).toBe(400)
  const client = await make({ permissions: ['client'], environment: 'production' })
  expect(client.status).toBe(201)
  expect((await api(srv, 'GET', '/api/v1/flags/f', { token: client.body.token })).body.value).toBe('base')
  expect((await api(srv, 'GET', '/api/v1/flags', { token: client.body.token })).status).toBe(403)
})
