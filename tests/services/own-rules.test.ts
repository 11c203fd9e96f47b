// A whole-flag update allowed as a change to one environment (teams.md §4): the flag service writes it only
// while it still touches that environment's override alone, and records it with that environment; on both
// stores, in process.
import { describe, expect, test } from 'bun:test'
import { actor, DIALECTS, inProcessServices, refusal } from '../helpers/in-process'
import { requireServices } from '../helpers/requirements'

const pgReady = await requireServices({ postgres: true })

for (const dialect of DIALECTS) {
  describe.skipIf(dialect === 'postgres' && !pgReady)(`own rules, in process: ${dialect}`, () => {
    const fx = inProcessServices(dialect)

    test('an update authorized for staging is refused (409, nothing written) once it would touch more', async () => {
      await fx.services.flags.create(actor, {
        key: 'own',
        enabled: true,
        value: 1,
        environments: { staging: { enabled: true }, production: { enabled: true } },
      })
      const staging = {
        environments: { staging: { enabled: true, targeting: { rules: [{ conditions: [], value: 2 }] } }, production: { enabled: true } },
      }
      const row = await fx.services.flags.update(actor, 'own', staging, undefined, 'staging')
      expect(row.version).toBe(2)
      expect(fx.notices.filter((n) => n.resourceKey === 'own').map((n) => n.change?.environment)).toEqual(['', 'staging'])
      // meanwhile production changed: the same body now also resets production's switch
      await fx.services.flags.putOverride(actor, 'own', 'production', { enabled: false })
      const audits = await fx.auditCount()
      expect(
        await refusal(() =>
          fx.services.flags.update(
            actor,
            'own',
            { ...staging, environments: { ...staging.environments, staging: { enabled: false } } },
            undefined,
            'staging',
          ),
        ),
      ).toEqual({ status: 409, code: 'CONFLICT' })
      expect(await fx.auditCount()).toBe(audits)
      expect((await fx.services.flags.get('default', 'own')).body.environments).toEqual({
        staging: staging.environments.staging,
        production: { enabled: false },
      })
    })
  })
}
