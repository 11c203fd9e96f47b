// The route inventory: every route declares the permission it needs, and an API route that takes a caller its
// rate class. The app refuses to start otherwise (server/http/route-inventory.ts); this shows the check
// finding undeclared routes, and the service's own OpenAPI document carrying a declaration on every operation.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { undeclaredRoutes } from '../../server/http/route-inventory'
import { guard } from '../../server/http/routes/common'
import { api, startServer, type TestServer } from '../helpers/server'

describe('route inventory', () => {
  test('a route without a declared permission is found; guarded ones pass', () => {
    const app = new Elysia()
      .get('/api/v1/guarded', () => 'ok', guard('read:flags', 'flags', 'guarded'))
      .post('/api/v1/forgotten', () => 'oops', { detail: { summary: 'no permission' } })
      .get('/api/v1/bare', () => 'oops')
    expect(undeclaredRoutes(app.routes as never)).toEqual(['POST /api/v1/forgotten', 'GET /api/v1/bare'])
  })

  test('an API route that takes a caller without a declared rate class is found; public and non-API ones need none', () => {
    // (Elysia's type for `detail` knows no `x-` fields)
    const declared = (detail: Record<string, unknown>) => ({ detail })
    const app = new Elysia()
      .get('/api/v1/unmetered', () => 'oops', declared({ 'x-permission': 'read:flags' }))
      .get('/ofrep/v1/unmetered', () => 'oops', declared({ 'x-permission': 'read:flags', 'x-rate-class': 'cheap' }))
      .get('/api/v1/metered', () => 'ok', declared({ 'x-permission': 'read:flags', 'x-rate-class': 'evaluation' }))
      .post('/api/v1/sign-in', () => 'ok', guard('public', 'auth', 'sign in'))
      .get('/metrics', () => 'ok', declared({ 'x-permission': 'metrics-token' }))
    expect(undeclaredRoutes(app.routes as never)).toEqual(['GET /api/v1/unmetered', 'GET /ofrep/v1/unmetered'])
  })

  describe('the service', () => {
    let srv: TestServer
    beforeAll(async () => {
      srv = await startServer()
    })
    afterAll(() => srv.stop())

    test('every operation of the OpenAPI document declares x-permission', async () => {
      const doc = (await api(srv, 'GET', '/openapi.json')).body
      const missing: string[] = []
      let count = 0
      for (const [path, ops] of Object.entries<Record<string, { 'x-permission'?: string }>>(doc.paths)) {
        for (const [method, op] of Object.entries(ops)) {
          count++
          if (typeof op['x-permission'] !== 'string' || !op['x-permission']) missing.push(`${method.toUpperCase()} ${path}`)
        }
      }
      expect(count).toBeGreaterThan(50)
      expect(missing).toEqual([])
    })
  })
})
