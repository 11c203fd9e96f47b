// The benchmark fixtures, shared by every bench script (no side effects on import): the flag with 3 rules
// and a rollout, the context that walks all of it, and the segment its first rule references.
import type { FlagDefinition, SegmentDefinition } from '../server/engine'

export const CONTEXT = {
  user_id: 'user-4242',
  plan: 'free',
  environment: 'production',
  custom: { country: 'us', app_version: '1.2.0', email: 'u4242@example.com' },
}

export const BETA_SEGMENT: SegmentDefinition = { key: 'beta', conditions: [{ property: 'plan', operator: 'equals', value: 'enterprise' }] }

// The context matches none of the rules, so evaluation walks all three and ends in the rollout.
export const benchFlag = (key: string): FlagDefinition => ({
  key,
  enabled: true,
  value: true,
  targeting: {
    rules: [
      { conditions: [{ property: 'user_id', operator: 'in_segment', value: 'beta' }], value: true },
      {
        conditions: [
          { property: 'country', operator: 'in', value: ['jp', 'kr'] },
          { property: 'plan', operator: 'equals', value: 'pro' },
        ],
        value: true,
      },
      {
        conditions: [
          { property: 'custom.email', operator: 'ends_with', value: '@internal.example' },
          { property: 'app_version', operator: 'semver_greater_than', value: '1.15.0' },
        ],
        value: true,
      },
    ],
    rollout: { percentage: 30, attribute: 'user_id' },
  },
})

/** benchFlag's rules and rollout as production's own (docs/behaviour.md §4), the flag's own rules one that
 *  CONTEXT (in production) never reaches: evaluation takes production's rules and walks all of them. */
export const ownRulesFlag = (key: string): FlagDefinition => ({
  key,
  enabled: true,
  value: true,
  targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'never' }], value: false }] },
  environments: { production: { enabled: true, targeting: benchFlag(key).targeting } },
})

export const simpleFlag = (key: string, n: number) => ({ key, enabled: n % 3 !== 0, value: n % 2 ? 'variant-b' : true })

/** A flag with 5 variants split by weight, behind a 3-deep prerequisite chain (chain-1 ← chain-2 ← chain-3 ←
 *  the flag), in the order they must be created. Every prerequisite holds for CONTEXT, so evaluation walks
 *  the whole chain (each link with a rule) and ends in the weighted split. */
export const variantChainFlags = (key: string): FlagDefinition[] => {
  const link = (n: number): FlagDefinition => ({
    key: `${key}-chain-${n}`,
    enabled: true,
    value: true,
    ...(n > 1 && { prerequisites: [{ key: `${key}-chain-${n - 1}`, value: true }] }),
    targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'blocked' }], value: false }] },
  })
  const names = ['a', 'b', 'c', 'd', 'e']
  return [
    link(1),
    link(2),
    link(3),
    {
      key,
      enabled: true,
      value: 'A',
      variants: Object.fromEntries(names.map((n) => [n, n.toUpperCase()])),
      default_variant: 'a',
      off_variant: 'e',
      prerequisites: [{ key: `${key}-chain-3`, value: true }],
      targeting: {
        rules: [{ conditions: [{ property: 'country', operator: 'in', value: ['jp', 'kr'] }], variant: 'b' }],
        rollout: { attribute: 'user_id', distribution: names.map((variant) => ({ variant, weight: 20 })) },
      },
    },
  ]
}
