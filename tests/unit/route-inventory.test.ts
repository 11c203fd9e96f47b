// The route inventory: every route declares the permission it needs. The app refuses to start otherwise
// (server/http/route-inventory.ts); this shows the check finding an undeclared route, and the service's
// own OpenAPI document carrying a declaration on every operation.
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
