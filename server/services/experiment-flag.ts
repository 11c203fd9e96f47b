// What an experiment needs of its flag in its environment (docs/experiments.md §2): the targeting in force
// there (the environment's own rules, else the flag's), its split, what decides the environment (a change
// to it opens a new phase), and the override that ships one variant.
import type { Targeting } from '../engine/types'
import type { FlagBody } from './flag-body'
import type { FlagOverride } from '../schemas'

/** The targeting that applies in `environment`: its own rules when it has them, else the flag's. */
export function targetingIn(body: FlagBody, environment: string): Targeting | null {
  const own = body.environments?.[environment]?.targeting
  return own ?? body.targeting ?? null
}

/** The split's variants in order, or undefined when the environment has no distribution split. */
export function splitIn(body: FlagBody, environment: string): { variant: string; weight: number }[] | undefined {
  const distribution = targetingIn(body, environment)?.rollout?.distribution
  return Array.isArray(distribution) && distribution.length > 0 ? distribution : undefined
}

/** Everything of the flag that decides what `environment` serves: its switch, window, prerequisites,
 *  variants, the override and the targeting in force there. */
export function fingerprintIn(body: FlagBody, environment: string): string {
  const o = body.environments?.[environment]
  return JSON.stringify([
    o ? o.enabled : body.enabled,
    o ?? null,
    targetingIn(body, environment),
    body.variants ?? null,
    body.default_variant ?? null,
    body.off_variant ?? null,
    body.prerequisites ?? null,
    body.active_from ?? null,
    body.active_until ?? null,
  ])
}

/** The environment's override with its own rules serving `variant` to every unit that reaches the split (its
 *  rules and individual targeting stay), so other environments keep theirs. */
export function shippingOverride(body: FlagBody, environment: string, variant: string): FlagOverride {
  const current = body.environments?.[environment]
  const targeting = targetingIn(body, environment) ?? {}
  const rollout = targeting.rollout!
  return {
    ...(current ?? { enabled: body.enabled }),
    targeting: { ...targeting, rollout: { attribute: rollout.attribute, distribution: [{ variant, weight: 100 }] } },
  } as FlagOverride
}
