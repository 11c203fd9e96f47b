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
      { conditions: [{ property: 'country', operator: 'in', value: ['jp', 'kr'] }, { property: 'plan', operator: 'equals', value: 'pro' }], value: true },
      { conditions: [{ property: 'custom.email', operator: 'ends_with', value: '@internal.example' }, { property: 'app_version', operator: 'semver_greater_than', value: '1.15.0' }], value: true },
    ],
    rollout: { percentage: 30, attribute: 'user_id' },
  },
})

export const simpleFlag = (key: string, n: number) => ({ key, enabled: n % 3 !== 0, value: n % 2 ? 'variant-b' : true })
