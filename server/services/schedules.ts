// Scheduled changes: a flag update or one environment's override, stored now and applied once at its time
// (schedules/worker.ts wakes for it). Creating checks the change as the flag update would check it right
// now (a dry run) and stores nothing when it would be refused. Applying marks the schedule `applied` and
// makes the change in one transaction, through the flags' own update step, so the change gets its normal
// audit entry (actor `schedule:<id>`), webhook event and stream entry, and a crash never half-applies it.
// A change that has become invalid meanwhile (a deleted segment, environment or flag) is refused as the
// update would be: the schedule becomes `failed` with that error and a `schedule.failed` event.
import { parseIsoDate } from '../engine/dates'
import { FLAG_FIELDS } from '../schemas'
import type { ScheduleFilter, ScheduleRow } from '../store/schedules'
import { isStoreUnavailable } from '../store/unavailable'
import type { Actor, ServiceDeps } from './context'
import { by } from './context'
import { AppError, notFound, validationError, limitReached, conflict } from '../errors'
import { SCHEDULE_FAILED } from '../store/vocabulary/changes'
import { isOverrideChange, type FlagChange, type FlagService } from './flags'

export const MAX_PENDING_SCHEDULES_PER_PROJECT = 1000
/** How far ahead a change may be scheduled. */
export const MAX_SCHEDULE_AHEAD_MS = 365 * 86_400_000
const MAX_NOTE_LENGTH = 500
/** The fields of a flag update that change something (the read-only ones a client may echo do not). */
const CHANGING_FIELDS = FLAG_FIELDS
/** A date-time with an explicit offset: a schedule's moment must not depend on anyone's time zone. */
const DATE_TIME_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})$/
const NOTE = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/

export interface ScheduleInput {
  at: string
  change: FlagChange
  note?: string | null
}

/** The wire form. */
export function scheduleView(row: ScheduleRow) {
  return {
    id: row.id,
    flag_key: row.flagKey,
    at: row.at,
    change: row.change,
    note: row.note,
    status: row.status,
    created_by: row.createdBy,
    created_at: row.createdAt,
    finished_at: row.finishedAt,
    cancelled_by: row.cancelledBy,
    result_version: row.resultVersion,
    error: row.errorCode === null ? null : { code: row.errorCode, message: row.error ?? '' },
  }
}

/** Whom the applied change is audited as. */
export const scheduleActor = (row: ScheduleRow): Actor => ({ projectId: row.projectId, name: `schedule:${row.id}` })

const environmentOf = (row: ScheduleRow): string =>
  isOverrideChange(row.change as FlagChange) ? (row.change as { environment: string }).environment : ''

/** How long a finished schedule stays listed (its audit entries and the change it made stay for good). */
export const SCHEDULE_RETENTION_MS = 90 * 24 * 3600_000

/** What one call of applyDue did. */
export type ApplyOutcome =
  | { outcome: 'none' }
  | { outcome: 'applied'; schedule: ScheduleRow }
  | { outcome: 'failed'; schedule: ScheduleRow; cause: unknown }

/** The schedule as it is stored: `at` in UTC (ISO 8601, milliseconds), and a flag update without the
 *  read-only fields a client may echo (an update ignores them). */
function checkInput(input: ScheduleInput, now: number): { at: string; change: FlagChange } {
  const issues: { path: string; message: string }[] = []
  const at = DATE_TIME_WITH_OFFSET.test(input.at) ? parseIsoDate(input.at) : NaN
  if (Number.isNaN(at)) issues.push({ path: 'at', message: 'must be an ISO 8601 date-time with an offset, e.g. 2030-06-01T09:00:00Z' })
  else if (at <= now) issues.push({ path: 'at', message: 'must be in the future' })
  else if (at > now + MAX_SCHEDULE_AHEAD_MS) issues.push({ path: 'at', message: 'must be at most 365 days ahead' })
  const sent = input.change
  if (!isOverrideChange(sent) && !CHANGING_FIELDS.some((f) => sent[f] !== undefined)) {
    issues.push({ path: 'change', message: `must change something: one of ${CHANGING_FIELDS.join(', ')}, or { environment, override }` })
  }
  if (input.note != null && (input.note.length > MAX_NOTE_LENGTH || !NOTE.test(input.note))) {
    issues.push({
      path: 'note',
      message: `must be at most ${MAX_NOTE_LENGTH} characters, without control characters other than line breaks and tabs`,
    })
  }
  if (issues.length) throw validationError(issues)
  const change = isOverrideChange(sent)
    ? sent
    : Object.fromEntries(CHANGING_FIELDS.filter((f) => sent[f] !== undefined).map((f) => [f, sent[f]]))
  return { at: new Date(at).toISOString(), change }
}

/** The flag update's refusal, with its field paths under `change`. */
function underChange(e: unknown): unknown {
  if (!(e instanceof AppError) || e.code !== 'VALIDATION_ERROR') return e
  const issues = e.details?.issues as { path: string; message: string }[] | undefined
  if (!issues) return e
  return new AppError(e.status, e.code, e.message, {
    ...e.details,
    issues: issues.map((i) => ({ ...i, path: i.path ? `change.${i.path}` : 'change' })),
  })
}

/** A failure worth waiting out (the database is briefly unreachable), not a verdict on the change. */
const transient = (e: unknown) => isStoreUnavailable(e) || (e instanceof AppError && e.status >= 500)

export function scheduleService({ store, changes }: Pick<ServiceDeps, 'store' | 'changes'>, flags: FlagService) {
  async function mustGet(projectId: string, id: string): Promise<ScheduleRow> {
    const row = await store.schedules.get(store.db, projectId, id)
    if (!row) throw notFound('SCHEDULE_NOT_FOUND', `Schedule "${id}"`)
    return row
  }

  /** Records a claimed schedule's refusal; undefined when another instance resolved it first. */
  function recordFailure(claimed: ScheduleRow, error: { code: string; message: string }): Promise<ScheduleRow | undefined> {
    return changes.run(async (tx, record) => {
      const failed = await store.schedules.markFailed(tx, claimed.id, new Date().toISOString(), error)
      if (!failed) return undefined
      await record({
        projectId: failed.projectId,
        actor: scheduleActor(failed).name,
        action: 'update',
        resourceType: 'schedule',
        resourceKey: failed.id,
        before: scheduleView({ ...claimed, status: 'pending', finishedAt: null }),
        after: scheduleView(failed),
        event: { kind: SCHEDULE_FAILED, environment: environmentOf(failed), data: scheduleView(failed) },
      })
      return failed
    })
  }

  return {
    get: mustGet,
    page: (projectId: string, filter: ScheduleFilter, limit: number, offset: number) =>
      store.schedules.page(store.db, projectId, filter, limit, offset),
    /** A flag's schedules; 404 when there is no such flag. */
    async pageForFlag(projectId: string, key: string, filter: Omit<ScheduleFilter, 'flagKey'>, limit: number, offset: number) {
      await flags.get(projectId, key)
      return store.schedules.page(store.db, projectId, { ...filter, flagKey: key }, limit, offset)
    },

    create(actor: Actor, key: string, input: ScheduleInput, now = Date.now()): Promise<ScheduleRow> {
      const { at, change } = checkInput(input, now)
      return changes.run(async (tx, record) => {
        await flags.checkChange(tx, actor, key, change).catch((e) => Promise.reject(underChange(e)))
        if ((await store.schedules.countPending(tx, actor.projectId)) >= MAX_PENDING_SCHEDULES_PER_PROJECT) {
          throw limitReached(`A project holds at most ${MAX_PENDING_SCHEDULES_PER_PROJECT} pending schedules`)
        }
        const row: ScheduleRow = {
          id: crypto.randomUUID(),
          projectId: actor.projectId,
          flagKey: key,
          at,
          change,
          note: input.note ?? null,
          status: 'pending',
          createdBy: actor.name,
          createdByToken: actor.tokenHash ?? null,
          createdAt: new Date(now).toISOString(),
          finishedAt: null,
          cancelledBy: null,
          resultVersion: null,
          errorCode: null,
          error: null,
        }
        await store.schedules.insert(tx, row)
        await record({
          projectId: actor.projectId,
          ...by(actor),
          action: 'create',
          resourceType: 'schedule',
          resourceKey: row.id,
          before: null,
          after: scheduleView(row),
          authority: actor.authority,
        })
        return row
      })
    },

    /** Cancels a pending schedule (409 NOT_PENDING once it was applied, failed or cancelled). */
    cancel(actor: Actor, id: string): Promise<ScheduleRow> {
      return changes.run(async (tx, record) => {
        const before = await store.schedules.get(tx, actor.projectId, id)
        if (!before) throw notFound('SCHEDULE_NOT_FOUND', `Schedule "${id}"`)
        const row = await store.schedules.cancel(tx, actor.projectId, id, new Date().toISOString(), actor.name)
        if (!row) {
          const status = (await store.schedules.get(tx, actor.projectId, id))?.status ?? before.status
          throw conflict('NOT_PENDING', `Schedule "${id}" is ${status}; only a pending schedule can be cancelled`, { status })
        }
        await record({
          projectId: actor.projectId,
          ...by(actor),
          action: 'update',
          resourceType: 'schedule',
          resourceKey: id,
          before: scheduleView(before),
          after: scheduleView(row),
        })
        return row
      })
    },

    /** Forgets the schedules that finished (applied, failed, cancelled) more than SCHEDULE_RETENTION_MS ago. */
    // A delete: through the writer (on SQLite a write on the reader connection would wait, blocking the event
    // loop, for a writer's open transaction that cannot finish meanwhile: 'database is locked').
    pruneFinished: (now = Date.now()) =>
      store.transaction((tx) => store.schedules.pruneFinished(tx, new Date(now - SCHEDULE_RETENTION_MS).toISOString())),

    /** When the worker should look next: the earliest pending `at`, or null. */
    nextDueAt: () => store.schedules.nextDueAt(store.db),

    /**
     * Applies the earliest due schedule, if any: claimed (marked `applied`) and applied in one transaction.
     * When the flag update refuses, that transaction is rolled back and the refusal recorded (`failed`).
     * Throws only what is worth retrying (the store unreachable): the schedule then stays pending.
     */
    async applyDue(now = new Date().toISOString()): Promise<ApplyOutcome> {
      let claimed: ScheduleRow | undefined
      try {
        const applied = await changes.run(async (tx, record) => {
          claimed = await store.schedules.claimDue(tx, now)
          if (!claimed) return undefined
          const flag = await flags.applyIn(tx, record, scheduleActor(claimed), claimed.flagKey, claimed.change as FlagChange)
          await store.schedules.setResultVersion(tx, claimed.id, flag.version)
          return { ...claimed, resultVersion: flag.version }
        })
        return applied ? { outcome: 'applied', schedule: applied } : { outcome: 'none' }
      } catch (e) {
        if (!claimed || transient(e)) throw e
        // Anything else is the change's own verdict (or a fault that would recur): record it, don't retry.
        const error =
          e instanceof AppError
            ? { code: e.code, message: e.message }
            : { code: 'INTERNAL', message: 'Internal error while applying the change' }
        const failed = await recordFailure(claimed, error)
        return failed ? { outcome: 'failed', schedule: failed, cause: e } : { outcome: 'none' }
      }
    },
  }
}
export type ScheduleService = ReturnType<typeof scheduleService>
