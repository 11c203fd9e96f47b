// Usage as the API reports it: a flag's hourly buckets (GET /flags/:key/usage), and the flag lists' entries
// with when each flag was last evaluated and, with ?stale=true, why it is stale.
import { t, type Static } from 'elysia'
import { Flag } from './flag'

/** One hour of one flag's evaluations in one environment by one variant. */
export const UsageBucket = t.Object(
  { hour: t.String(), environment: t.String(), variant: t.String(), count: t.Integer() },
  { title: 'UsageBucket' },
)
export type UsageBucket = Static<typeof UsageBucket>

/** One entry of GET /flags. */
export const FlagListItem = t.Object(
  {
    key: t.String(),
    flag: Flag,
    last_evaluated_at: t.Nullable(t.String({ description: 'the latest evaluation counted (ISO 8601), null if none' })),
    stale_reason: t.Optional(t.String({ description: 'with ?stale=true: never evaluated, not evaluated recently, or serves one variant' })),
  },
  { title: 'FlagListItem' },
)
export type FlagListItem = Static<typeof FlagListItem>
