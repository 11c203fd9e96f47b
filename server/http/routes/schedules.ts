// Scheduled changes: a flag's schedules (/api/v1/flags/:key/schedules) and the project's
// (/api/v1/schedules), upcoming first. Reading takes read:flags; scheduling and cancelling write:flags.
import { getSchemaValidator, mapValueError, t, type TSchema } from 'elysia'
import { AppError, validationError } from '../../errors'
import type { ScheduleInput } from '../../services/schedules'
import { scheduleView } from '../../services/schedules'
import { SCHEDULE_STATUSES, type ScheduleStatus } from '../../store/vocabulary/schedule-statuses'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import { validationIssues } from '../errors'
import type { Affected } from '../../access/authorize'
import * as S from '../../schemas'
import { guard, jsonBody, listBody, paging, routeModule } from './common'
import { isObject } from '../../engine/is-object'

const ListQuery = t.Object({ ...S.Page.properties, status: t.Optional(t.String({ description: SCHEDULE_STATUSES.join(', ') })) })
const List = t.Object({ schedules: t.Array(S.Schedule), total: t.Integer(), has_more: t.Boolean() })
const IdParam = t.Object({ id: t.String() })

/** Checked here rather than with t.UnionEnum: Elysia fills an absent optional enum query with its first member. */
function statusOf(query: { status?: string }): ScheduleStatus | undefined {
  if (query.status === undefined) return undefined
  if (!(SCHEDULE_STATUSES as readonly string[]).includes(query.status))
    throw validationError([{ path: 'status', message: `must be one of ${SCHEDULE_STATUSES.join(', ')}` }])
  return query.status as ScheduleStatus
}

// `change` is one of two shapes. Validated as a union, a mistake inside it is reported at `change` as "one
// of two objects"; checked here against the shape it means (it names `override`: the override form), the
// 400 names the field as PUT /flags/:key or PUT …/environments/:env would. Runs after the permission check
// and before the schema validation, which then passes what this passes.
type Validator = { Errors(value: unknown): Iterable<Parameters<typeof mapValueError>[0] & {}> }
const validators = new Map<TSchema, Validator>()
/** Elysia's own wording (its summary), with the path from the body's root. */
const errorsOf = (schema: TSchema, value: unknown, at: string) => {
  if (!validators.has(schema)) validators.set(schema, getSchemaValidator(schema) as unknown as Validator)
  return [...validators.get(schema)!.Errors(value)].map((e) => ({
    path: `${at}${e.path}`,
    message: mapValueError(e)?.summary ?? e.message,
  }))
}

function checkChangeShape(body: unknown): void {
  if (!isObject(body) || body.change === undefined) return
  const change = body.change
  const all = !isObject(change)
    ? [{ path: '/change', message: 'must be an object: the fields of a flag update, or { environment, override }' }]
    : 'override' in change || 'environment' in change
      ? [
          ...errorsOf(S.ScheduledOverride, change, '/change'),
          ...(isObject(change.override) ? errorsOf(S.FlagEnvironmentOverride, change.override, '/change/override') : []),
        ]
      : errorsOf(S.FlagPatch, change, '/change')
  if (!all.length) return
  // TypeBox may report one missing field twice (required, then of the wrong type): one issue per field.
  const issues = validationIssues({ all }, 'body').filter((issue, i, list) => list.findIndex((o) => o.path === issue.path) === i)
  throw new AppError(400, 'VALIDATION_ERROR', `Invalid body: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues })
}

/** A schedule affects what its change affects (teams.md §4): one environment's override, else every one. */
const scheduleAffects = ({ body }: { body?: unknown }): Affected => {
  const change = (body as { change?: { override?: unknown; environment?: unknown } } | undefined)?.change
  return change && typeof change === 'object' && 'override' in change && typeof change.environment === 'string'
    ? [change.environment]
    : 'all'
}
const CREATE_GUARD = guard(
  'write:flags',
  'schedules',
  'Schedule a change to a flag: applied once at `at`, as the same update made then would be',
  scheduleAffects,
)

export const scheduleRoutes = ({ services }: Pick<AppDeps, 'services'>) =>
  routeModule('schedules')
    .get(
      '/api/v1/flags/:key/schedules',
      async ({ request, params, query }) => {
        const { limit, offset } = paging(query)
        const { rows, total } = await services.schedules.pageForFlag(
          callerOf(request).actor.projectId,
          params.key,
          { status: statusOf(query) },
          limit,
          offset,
        )
        return listBody('schedules', rows.map(scheduleView), total, offset)
      },
      {
        ...guard('read:flags', 'schedules', "A flag's scheduled changes: pending ones first, soonest first, then the rest, latest first"),
        params: S.KeyParam,
        query: ListQuery,
        response: { 200: List, ...S.errors(400, 401, 403, 404, 429) },
      },
    )
    .post(
      '/api/v1/flags/:key/schedules',
      async ({ request, params, body, set }) => {
        const row = await services.schedules.create(callerOf(request).actor, params.key, body as ScheduleInput)
        set.status = 201
        return { success: true as const, schedule: scheduleView(row) }
      },
      {
        ...CREATE_GUARD,
        // Destructured (see common.ts's guard): Elysia's source analysis fails on a context passed on whole.
        transform({ request, params, body }: { request: Request; params?: Record<string, string | undefined>; body?: unknown }) {
          CREATE_GUARD.transform({ request, params, body })
          checkChangeShape(body)
        },
        params: S.KeyParam,
        ...jsonBody(S.ScheduleCreate),
        response: { 201: t.Object({ success: S.Success, schedule: S.Schedule }), ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    )
    .get(
      '/api/v1/schedules',
      async ({ request, query }) => {
        const { limit, offset } = paging(query)
        const { rows, total } = await services.schedules.page(callerOf(request).actor.projectId, { status: statusOf(query) }, limit, offset)
        return listBody('schedules', rows.map(scheduleView), total, offset)
      },
      {
        ...guard(
          'read:flags',
          'schedules',
          "The project's scheduled changes: pending ones first, soonest first, then the rest, latest first",
        ),
        query: ListQuery,
        response: { 200: List, ...S.errors(400, 401, 403, 429) },
      },
    )
    .get(
      '/api/v1/schedules/:id',
      async ({ request, params }) => scheduleView(await services.schedules.get(callerOf(request).actor.projectId, params.id)),
      {
        ...guard('read:flags', 'schedules', 'One scheduled change'),
        params: IdParam,
        response: { 200: S.Schedule, ...S.errors(401, 403, 404, 429) },
      },
    )
    .delete(
      '/api/v1/schedules/:id',
      async ({ request, params }) => {
        const row = await services.schedules.cancel(callerOf(request).actor, params.id)
        return { success: true as const, id: row.id, schedule: scheduleView(row) }
      },
      {
        ...guard('write:flags', 'schedules', 'Cancel a pending scheduled change (409 NOT_PENDING once applied, failed or cancelled)'),
        params: IdParam,
        response: { 200: t.Object({ success: S.Success, id: t.String(), schedule: S.Schedule }), ...S.errors(401, 403, 404, 409, 429) },
      },
    )
