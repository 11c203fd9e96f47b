// Environment keys on two instances (one PostgreSQL database): a key made on A evaluates in its environment
// on B at once; removing that environment with ?force=true on A revokes the key on B too (the token map
// follows the change fan-out, not only the periodic reconcile).
import { describe, expect, test } from 'bun:test'
import { api } from '../helpers/server'
import { clusterFixture, fanoutEnv, FANOUT_VARIANTS } from '../helpers/cluster'
import { requireServices } from '../helpers/requirements'

const ready = await requireServices({ postgres: true, redis: true })

for (const variant of FANOUT_VARIANTS) {
  describe.skipIf(!ready)(`environment keys on two instances, ${variant}`, () => {
    const c = clusterFixture(fanoutEnv(variant))

    test('made on A, bound on B; its environment removed on A: 401 on B', async () => {
      expect((await api(c.a, 'POST', '/api/v1/project/environments', { token: c.admin, body: { name: 'qa' } })).status).toBe(201)
      expect((await api(c.a, 'POST', '/api/v1/flags', { token: c.admin, body: { key: 'f', enabled: true, value: 'base', environments: { qa: { enabled: true, value: 'qa' } } } })).status).toBe(201)
      const key = (await api(c.a, 'POST', '/api/v1/tokens', { token: c.admin, body: { name: 'qa key', project_id: 'default', permissions: ['read:flags'], environment: 'qa' } })).body.token
      expect((await api(c.b, 'GET', '/api/v1/flags/f', { token: key })).body.value).toBe('qa')
      const other = await api(c.b, 'GET', `/api/v1/flags/f?context=${encodeURIComponent('{"environment":"staging"}')}`, { token: key })
      expect([other.status, other.body.code]).toEqual([403, 'ENVIRONMENT_MISMATCH'])
      expect((await api(c.a, 'DELETE', '/api/v1/project/environments/qa?force=true', { token: c.admin })).status).toBe(200)
      let status = 0
      for (const started = Date.now(); Date.now() - started < 3000; await Bun.sleep(10)) {
        status = (await api(c.b, 'GET', '/api/v1/flags/f', { token: key })).status
        if (status === 401) break
      }
      expect(status).toBe(401)
      // B refuses the removed environment's name as unknown now.
      const unknown = await api(c.b, 'GET', `/api/v1/flags/f?context=${encodeURIComponent('{"environment":"qa"}')}`, { token: c.admin })
      expect([unknown.status, unknown.body.code]).toEqual([400, 'UNKNOWN_ENVIRONMENT'])
    }, 30_000)
  })
}
