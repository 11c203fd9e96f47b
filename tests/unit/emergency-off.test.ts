// What counts as only stopping serving (services/emergency-off.ts, docs/change-requests.md "Emergency off"):
// switches turned off and rollouts lowered to 0, on the flag or an environment's own; nothing else.
import { expect, test } from 'bun:test'
import { onlyStopsServing } from '../../server/services/emergency-off'

const flag = (extra: Record<string, unknown> = {}) => ({
  key: 'f',
  enabled: true,
  value: true,
  version: 3,
  created_at: 'a',
  updated_at: 'b',
  ...extra,
})
const stamped = (extra: Record<string, unknown>) => ({ ...flag(extra), version: 4, updated_at: 'c' })

test("switches off: the main one, an environment's, a new override that is only off, all at once", () => {
  expect(onlyStopsServing(flag(), stamped({ enabled: false }))).toBe(true)
  expect(
    onlyStopsServing(
      flag({ environments: { production: { enabled: true, value: 1 } } }),
      stamped({ environments: { production: { enabled: false, value: 1 } } }),
    ),
  ).toBe(true)
  expect(onlyStopsServing(flag(), stamped({ environments: { production: { enabled: false } } }))).toBe(true)
  expect(
    onlyStopsServing(
      flag({ environments: { staging: { enabled: true }, production: { enabled: true } } }),
      stamped({ enabled: false, environments: { staging: { enabled: false }, production: { enabled: false } } }),
    ),
  ).toBe(true)
})

test("rollouts lowered to 0, on the flag or in an environment's own targeting", () => {
  const rollout = (percentage: number) => ({ rollout: { percentage, attribute: 'user_id' } })
  expect(onlyStopsServing(flag({ targeting: rollout(40) }), stamped({ targeting: rollout(0) }))).toBe(true)
  expect(
    onlyStopsServing(
      flag({ environments: { production: { enabled: true, targeting: rollout(40) } } }),
      stamped({ environments: { production: { enabled: true, targeting: rollout(0) } } }),
    ),
  ).toBe(true)
  expect(onlyStopsServing(flag({ targeting: rollout(40) }), stamped({ targeting: rollout(10) }))).toBe(false)
  expect(onlyStopsServing(flag({ targeting: rollout(0) }), stamped({ targeting: rollout(5) }))).toBe(false)
  expect(onlyStopsServing(flag(), stamped({ targeting: rollout(0) }))).toBe(false)
  expect(
    onlyStopsServing(flag({ targeting: rollout(40) }), stamped({ targeting: { rollout: { percentage: 0, attribute: 'plan' } } })),
  ).toBe(false)
})

test('anything more, or nothing at all, is not an emergency off', () => {
  expect(onlyStopsServing(flag(), stamped({}))).toBe(false)
  expect(onlyStopsServing(flag({ enabled: false }), stamped({ enabled: true }))).toBe(false)
  expect(onlyStopsServing(flag(), stamped({ enabled: false, description: 'why' }))).toBe(false)
  expect(onlyStopsServing(flag(), stamped({ environments: { production: { enabled: false, value: false } } }))).toBe(false)
  expect(onlyStopsServing(flag({ environments: { production: { enabled: true } } }), stamped({ environments: {} }))).toBe(false)
  expect(onlyStopsServing(flag(), stamped({ enabled: false, value: false }))).toBe(false)
  expect(onlyStopsServing(null, stamped({ enabled: false }))).toBe(false)
})
