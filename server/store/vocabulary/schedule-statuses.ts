// Where a scheduled change is in its life (services/schedules.ts). Pure: shared with the console.
export const SCHEDULE_STATUSES = ['pending', 'applied', 'failed', 'cancelled'] as const
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number]
