// Environment keys on two instances (one PostgreSQL database): a key made on A evaluates in its environment
// on B at once; removing that environment with ?force=true on A revokes the key on B too (the token map
// follows the change fan-out, not only the periodic reconcile).
import { describe, expect, test } from 'bun:test'
import { api } from '../helpers/server'
import { clusterFixture, fanoutEnv, FANOUT_VARIANTS } from '../helpers/cluster'
import { requireServices } from '../helpers/requirements'
import { until } from '../helpers/until'

const ready = await requireServices({ postgres: true, redis: true })

for (const variant of FANOUT_VARIANTS) {
  describe.skipIf(!ready)(`environment keys on two instances, ${variant}`, () => {
    const c = clusterFixture(fanoutEnv(variant))

    test('made on A, bound on B; its environment removed on A: 401 on B', async () => {
      expect((await api(c.a, 'POST', '/api/v1/project/environments', { token: c.admin, body: { name: 'qa' } })).status).toBe(201)
      expect(
        (
          await api(c.a, 'POST', '/api/v1/flags', {
            token: c.admin,
            body: { key: 'f', enabled: true, value: 'base', environments: { qa: { enabled: true, value: 'qa' } } },
          })
        ).status,
      ).toBe(201)
      const key = (
        await api(c.a, 'POST', '/api/v1/tokens', {
          token: c.admin,
          body: { name: 'qa key', project_id: 'default', permissions: ['read:flags'], environment: 'qa' },
        })
      ).body.token
      expect((await api(c.b, 'GET', '/api/v1/flags/f', { token: key })).body.value).toBe('qa')
      const other = await api(c.b, 'GET', `/api/v1/flags/f?context=${encodeURIComponent('{"environment":"staging"}')}`, { token: key })
      expect([other.status, other.body.code]).toEqual([403, 'ENVIRONMENT_MISMATCH'])
      expect((await api(c.a, 'DELETE', '/api/v1/project/environments/qa?force=true', { token: c.admin })).status).toBe(200)
      // The token's revocation and the project's new environment list are separate notices: each arrives.
      await until('the key is refused on B', async () => (await api(c.b, 'GET', '/api/v1/flags/f', { token: key })).status === 401, 10_000)
      // B refuses the removed environment's name as unknown now.
      await until(
        'B refuses the removed environment as unknown',
        async () => {
          const unknown = await api(c.b, 'GET', `/api/v1/flags/f?context=${encodeURIComponent('{"environment":"qa"}')}`, { token: c.admin })
          return unknown.status === 400 && unknown.body.code === 'UNKNOWN_ENVIRONMENT'
        },
        10_000,
      )
    }, 30_000)
  })
}
