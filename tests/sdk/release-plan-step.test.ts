// The SDK records a release plan's exposure only when the flag it evaluates serves the plan's current step
// (docs/experiments.md §7): the definitions' flag and plan can disagree for a while (the server reloads the
// two one after the other), and a unit served at another percentage (with variants, weight) would count in
// the step's phase. An entry without a percentage (an older server) records every unit, as before.
import { expect, test } from 'bun:test'
import { createClient, type Definitions } from '../../sdk/src'
import { variantStepFlag } from '../helpers/release-flags'

type MeasuredReleasePlan = NonNullable<Definitions['release_plans']>[number]

const users = Array.from({ length: 40 }, (_, i) => `u${i}`)

/** The exposures a bootstrapped client records for `users` in production. */
function recorded(flag: Definitions['flags'][number], plan: MeasuredReleasePlan) {
  const doc: Definitions = { version: 1, environments: ['production'], flags: [flag], configs: [], segments: [], release_plans: [plan] }
  const client = createClient({ bootstrap: doc, usage: false })
  for (const u of users) client.evaluate(flag.key, { user_id: u, environment: 'production' })
  const exposures = client.pendingEvents().filter((e) => e.type === 'exposure')
  void client.close()
  return exposures
}

const withPercentage = (percentage: number): Definitions['flags'][number] => ({
  key: 'rp',
  enabled: true,
  value: true,
  environments: { production: { enabled: true, targeting: { rollout: { attribute: 'user_id', percentage } } } },
})

const plan = (extra: Partial<MeasuredReleasePlan>): MeasuredReleasePlan => ({
  id: 'p1',
  flag: 'rp',
  environment: 'production',
  unit: 'user_id',
  ...extra,
})

test("a unit served at another percentage than the plan's step is not recorded; at the step's, it is", () => {
  // the flag still serves the previous step (10 %) while the plan is at 30 %, or the reverse
  expect(recorded(withPercentage(10), plan({ percentage: 30 }))).toEqual([])
  expect(recorded(withPercentage(30), plan({ percentage: 10 }))).toEqual([])
  const agreed = recorded(withPercentage(30), plan({ percentage: 30 }))
  expect(agreed).toHaveLength(users.length)
  expect(new Set(agreed.map((e) => (e.type === 'exposure' ? e.variant : '')))).toEqual(new Set(['rollout', 'off']))
  // an older server names no percentage: every unit the rollout decided, as before
  expect(recorded(withPercentage(10), plan({}))).toHaveLength(users.length)
})

test("with variants: the new variant's weight must be the step's", () => {
  const weighted = (weight: number) => variantStepFlag('rp', weight)
  expect(recorded(weighted(50), plan({ variant: 'b', percentage: 25 }))).toEqual([])
  const agreed = recorded(weighted(25), plan({ variant: 'b', percentage: 25 }))
  expect(agreed).toHaveLength(users.length)
  expect(new Set(agreed.map((e) => (e.type === 'exposure' ? e.variant : '')))).toEqual(new Set(['rollout', 'off']))
})
