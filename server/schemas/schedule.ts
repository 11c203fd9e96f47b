// Scheduled changes (docs/behaviour.md §11).
import { t, type Static } from 'elysia'
import { SCHEDULE_STATUSES } from '../store/vocabulary/schedule-statuses'
import { Timestamp } from './common'
import { FlagEnvironmentOverride, FlagPatch } from './flag'

/** One environment's override as a scheduled change: what PUT /flags/:key/environments/:env takes, and where. */
export const ScheduledOverride = t.Object({ environment: t.String(), override: FlagEnvironmentOverride }, { title: 'ScheduledOverride' })
export type ScheduledOverrideInput = Static<typeof ScheduledOverride>
const ScheduledChange = t.Union([FlagPatch, ScheduledOverride], {
  description:
    'what PUT /flags/:key takes (the fields to change), or { environment, override } as PUT /flags/:key/environments/:env takes it',
})
export const ScheduleCreate = t.Object(
  {
    at: t.String({
      description: 'when to apply it: an ISO 8601 date-time with an offset (Z or +hh:mm), in the future, at most 365 days ahead',
    }),
    change: ScheduledChange,
    note: t.Optional(t.Nullable(t.String({ description: 'at most 500 characters' }))),
  },
  { title: 'ScheduleCreate', example: { at: '2030-06-01T09:00:00Z', change: { enabled: true }, note: 'launch at 9:00 UTC' } },
)
export const Schedule = t.Object(
  {
    id: t.String(),
    flag_key: t.String(),
    at: Timestamp,
    change: ScheduledChange,
    note: t.Nullable(t.String()),
    status: t.UnionEnum([...SCHEDULE_STATUSES]),
    created_by: t.String({ description: 'the prefix of the token that scheduled it' }),
    created_at: Timestamp,
    finished_at: t.Nullable(t.String({ description: 'when it was applied, failed or cancelled' })),
    cancelled_by: t.Nullable(t.String({ description: 'the prefix of the token that cancelled it' })),
    result_version: t.Nullable(t.Number({ description: 'the flag version the applied change produced (an integer)' })),
    error: t.Nullable(
      t.Object({ code: t.String(), message: t.String() }, { description: 'why it failed: the error the change met at its time' }),
    ),
  },
  { title: 'Schedule' },
)
export type Schedule = Static<typeof Schedule>
