// The SDK's `bootstrap` takes a flags-as-code document (docs/as-code.md): exported by a real server as YAML,
// parsed, and given to createClient with no server, it answers exactly as the server does.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { parse } from 'yaml'
import { createClient } from '../../sdk/src'
import { api, startServer, type TestServer } from '../helpers/server'

let srv: TestServer
beforeAll(async () => {
  srv = await startServer()
  const w = async (path: string, body?: unknown) =>
    expect((await api(srv, 'POST', path, { token: srv.adminToken, body })).status).toBeLessThan(300)
  await w('/api/v1/segments', { key: 'staff', conditions: [{ property: 'plan', operator: 'equals', value: 'staff' }] })
  await w('/api/v1/flags', { key: 'gate', enabled: true, value: 'open' })
  await w('/api/v1/flags', {
    key: 'layout',
    enabled: true,
    variants: { grid: 'grid', list: 'list' },
    default_variant: 'list',
    targeting: {
      rules: [{ conditions: [{ operator: 'in_segment', value: 'staff' }], variant: 'grid' }],
      rollout: {
        distribution: [
          { variant: 'grid', weight: 40 },
          { variant: 'list', weight: 60 },
        ],
        attribute: 'user_id',
      },
    },
    prerequisites: [{ key: 'gate', value: 'open' }],
    environments: { production: { enabled: false } },
  })
  await w('/api/v1/flags', { key: 'gone', enabled: true })
  await w('/api/v1/flags/gone/archive')
  await w('/api/v1/configs', { key: 'limits', value: 1, environments: { production: { value: 2 } } })
})
afterAll(() => srv.stop())

test('an exported YAML document, parsed, bootstraps a client that answers as the server does', async () => {
  const text = (await api(srv, 'GET', '/api/v1/export', { token: srv.adminToken })).text
  const client = createClient({ bootstrap: parse(text) })
  const contexts = [
    { user_id: 'u1' },
    { user_id: 'u2', plan: 'staff' },
    { user_id: 'u3', environment: 'production' },
    ...Array.from({ length: 20 }, (_, i) => ({ user_id: `user-${i}` })),
  ]
  for (const context of contexts) {
    for (const key of ['gate', 'layout']) {
      const server = (
        await api(srv, 'GET', `/api/v1/flags/${key}?context=${encodeURIComponent(JSON.stringify(context))}`, { token: srv.adminToken })
      ).body
      expect({ key, context, result: client.evaluate(key, context) }).toEqual({ key, context, result: server })
    }
  }
  expect(client.evaluate('gone', {}).reason).toBe('missing')
  expect(client.config('limits', 'production')).toBe(2)
  expect(() => createClient({ bootstrap: { flagship: 2 } as never })).toThrow('flagship: 1')
  client.close?.()
})
