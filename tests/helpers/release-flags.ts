// A flag as a release plan leaves it in production (docs/experiments.md §7): production's own rules hold the
// step's rollout. Shared by the server's exposure tests and the SDK's, which must agree on it.
import type { FlagDefinition } from '../../server/engine/types'

/** A flag with variants a and b whose production split serves the new variant `b` to `weight` percent. */
export const variantStepFlag = (key: string, weight: number): FlagDefinition => ({
  key,
  enabled: true,
  value: 'A',
  variants: { a: 'A', b: 'B' },
  default_variant: 'a',
  environments: {
    production: {
      enabled: true,
      targeting: {
        rollout: {
          attribute: 'user_id',
          distribution: [
            { variant: 'b', weight },
            { variant: 'a', weight: 100 - weight },
          ],
        },
      },
    },
  },
})
