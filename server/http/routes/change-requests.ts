// /api/v1/change-requests and environment policies (docs/change-requests.md): propose, edit, review,
// cancel and apply changes to protected environments. The services check states, revisions and the author;
// here each route checks the caller's rights on the environments the request affects (access/authorize.ts).
import { t } from 'elysia'
import type { Affected } from '../../access/affected-environments'
import type { ChangeRequestRow } from '../../store/change-requests'
import { CHANGE_REQUEST_STATES, type ChangeRequestState } from '../../store/vocabulary/change-requests'
import { itemsAffect, permissionOf } from '../../services/change-request-items'
import type { Requester } from '../../services/change-requests'
import { AppError, validationError } from '../../errors'
import * as S from '../../schemas'
import type { AppDeps } from '../deps'
import { callerOf, requesterOf } from '../auth'
import { authorizeRoute } from '../request-access'
import { writingDocuments } from '../offline-gate'
import { guard, jsonBody, listBody, paging, routeModule } from './common'

const requester = (request: Request): Requester => requesterOf(callerOf(request))
/** Write rights, as the items' direct routes need them, in every environment they affect. */
function authorizeItems(request: Request, items: Parameters<typeof itemsAffect>[0]): void {
  const affected: Affected = itemsAffect(items)
  for (const permission of new Set(items.map(permissionOf))) authorizeRoute(request, permission, affected)
}
const Written = t.Object({ success: S.Success, change_request: S.ChangeRequest })
const IdParam = t.Object({ id: t.String() })

export const changeRequestRoutes = ({ services }: Pick<AppDeps, 'services'>) => {
  const crs = services.changeRequests
  /** authorizeItems for proposed items: an update item counts as every environment's until its dry run
   *  shows it touches one environment's override only (teams.md §4), which is looked at only when needed. */
  async function authorizeProposed(request: Request, raw: unknown): Promise<void> {
    const items = crs.checkItemShapes(raw)
    try {
      authorizeItems(request, items)
    } catch (e) {
      if (!(e instanceof AppError) || e.status !== 403 || !items.some((i) => i.action === 'update')) throw e
      for (const permission of new Set(items.map(permissionOf))) authorizeRoute(request, permission, [])
      authorizeItems(request, await crs.dryRun(requester(request), raw))
    }
  }
  const written = async (row: ChangeRequestRow) => ({ success: true as const, change_request: await crs.view(row) })
  return routeModule('change-requests')
    .get(
      '/api/v1/project/policies',
      async ({ request }) => ({ policies: await services.policies.all(callerOf(request).actor.projectId) }),
      {
        ...guard('any', 'change-requests', "Every environment's change-request policy"),
        response: { 200: t.Object({ policies: t.Array(S.Policy) }), ...S.errors(401, 429) },
      },
    )
    .get(
      '/api/v1/project/environments/:name/policy',
      async ({ request, params }) => services.policies.get(callerOf(request).actor.projectId, params.name),
      {
        ...guard('any', 'change-requests', "An environment's change-request policy"),
        params: t.Object({ name: t.String() }),
        response: { 200: S.Policy, ...S.errors(401, 404, 429) },
      },
    )
    .put(
      '/api/v1/project/environments/:name/policy',
      async ({ request, params, body }) => {
        const caller = callerOf(request)
        return services.policies.put(caller.actor, params.name, body, caller.person?.sessionId !== undefined)
      },
      {
        ...guard(
          '*',
          'change-requests',
          'Protect an environment: direct changes then need an approved change request. ' +
            'Lowering protection (unprotecting, fewer approvals, a lower approver role, turning emergency off on) ' +
            "needs a project admin's session: 403 for any token",
        ),
        params: t.Object({ name: t.String() }),
        ...jsonBody(S.PolicyInput),
        response: { 200: S.Policy, ...S.errors(400, 401, 403, 404, 413, 415, 429) },
      },
    )
    .get(
      '/api/v1/change-requests',
      async ({ request, query }) => {
        const req = requester(request)
        const { limit, offset } = paging(query)
        const issues = []
        if (query.state !== undefined && !CHANGE_REQUEST_STATES.includes(query.state as ChangeRequestState))
          issues.push({ path: 'state', message: `must be one of ${CHANGE_REQUEST_STATES.join(', ')}` })
        if (query.awaiting !== undefined && query.awaiting !== 'me') issues.push({ path: 'awaiting', message: 'must be me' })
        if (issues.length) throw validationError(issues)
        const projectId = req.actor.projectId
        const author =
          query.author === 'me'
            ? req.userId !== null
              ? { authorUserId: req.userId }
              : { authorName: req.actor.name }
            : query.author !== undefined
              ? { authorUserId: query.author }
              : {}
        if (query.awaiting === 'me') {
          // Open requests this person may review and has not reviewed at this revision, never their own;
          // looked at over the 500 most recently changed open ones.
          if (req.userId === null) return listBody('change_requests', [], 0, offset)
          const { rows } = await crs.page(projectId, { states: ['open'], ...author }, 500, 0)
          const reviews = await crs.reviewsOf(rows.map((r) => r.id))
          const unreviewed = rows.filter(
            (row) =>
              row.authorUserId !== req.userId &&
              !reviews.some(
                (r) =>
                  r.changeRequestId === row.id &&
                  r.reviewerUserId === req.userId &&
                  r.revision === row.revision &&
                  r.decision !== 'comment',
              ),
          )
          const awaiting = await crs.reviewable(req.userId, projectId, unreviewed)
          return listBody('change_requests', await crs.views(projectId, awaiting.slice(offset, offset + limit)), awaiting.length, offset)
        }
        const { rows, total } = await crs.page(
          projectId,
          { ...(query.state !== undefined && { states: [query.state as ChangeRequestState] }), ...author },
          limit,
          offset,
        )
        return listBody('change_requests', await crs.views(projectId, rows), total, offset)
      },
      {
        ...guard('read:flags', 'change-requests', 'List change requests, most recently changed first'),
        query: t.Object({
          limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 50 })),
          offset: S.Page.properties.offset,
          state: t.Optional(t.String({ description: CHANGE_REQUEST_STATES.join(', ') })),
          author: t.Optional(t.String({ description: 'a user id, or `me`' })),
          awaiting: t.Optional(
            t.String({ description: '`me`: open requests the caller may review and has not reviewed at this revision (never their own)' }),
          ),
        }),
        response: {
          200: t.Object({ change_requests: t.Array(S.ChangeRequest), total: t.Integer(), has_more: t.Boolean() }),
          ...S.errors(400, 401, 403, 429),
        },
      },
    )
    .get(
      '/api/v1/change-requests/applied-without-review',
      async ({ request, query }) => ({
        changes: await services.audit.withoutReview(callerOf(request).actor.projectId, query.limit ?? 50),
      }),
      {
        ...guard(
          'read:flags',
          'change-requests',
          'The newest changes of the last 30 days applied through a protected environment without review: emergency off and break glass',
        ),
        query: t.Object({ limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 50 })) }),
        response: { 200: t.Object({ changes: t.Array(S.UnreviewedChange) }), ...S.errors(400, 401, 403, 429) },
      },
    )
    .get(
      '/api/v1/change-requests/:id',
      async ({ request, params }) => ({ change_request: await crs.view(await crs.get(callerOf(request).actor.projectId, params.id)) }),
      {
        ...guard('read:flags', 'change-requests', 'One change request, with per-item current versions and its reviews'),
        params: IdParam,
        response: { 200: t.Object({ change_request: S.ChangeRequest }), ...S.errors(401, 403, 404, 429) },
      },
    )
    .post(
      '/api/v1/change-requests',
      async ({ request, body, set }) => {
        await authorizeProposed(request, body.items)
        const row = await crs.create(requester(request), body)
        set.status = 201
        return written(row)
      },
      {
        ...guard(
          'any',
          'change-requests',
          'Propose changes (editor rights in every environment they affect, or a token with the write permissions)',
        ),
        ...jsonBody(S.ChangeRequestCreate),
        response: { 201: Written, ...S.errors(400, 401, 403, 404, 413, 415, 429) },
      },
    )
    .put(
      '/api/v1/change-requests/:id',
      async ({ request, params, body }) => {
        if (body.items !== undefined) await authorizeProposed(request, body.items)
        return written(await crs.edit(requester(request), params.id, body))
      },
      {
        ...guard('any', 'change-requests', "The author's edit: a new revision; approvals given so far no longer count"),
        params: IdParam,
        ...jsonBody(S.ChangeRequestEdit),
        response: { 200: Written, ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    )
    .post(
      '/api/v1/change-requests/:id/reviews',
      async ({ request, params, body }) => {
        const req = requester(request)
        const row = await crs.get(req.actor.projectId, params.id)
        // A person with write rights in every environment the request affects (a personal token: within its own permissions too).
        if (body.decision !== 'comment') authorizeItems(request, row.items)
        return written(await crs.review(req, params.id, body))
      },
      {
        ...guard('any', 'change-requests', 'Approve, reject or comment (people only; never the author)'),
        params: IdParam,
        ...jsonBody(S.ReviewInput),
        response: { 200: Written, ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    )
    .post(
      '/api/v1/change-requests/:id/cancel',
      async ({ request, params }) => {
        const caller = callerOf(request)
        return written(await crs.cancel(requester(request), params.id, caller.token.permissions.includes('*')))
      },
      {
        ...guard('any', 'change-requests', 'Cancel (the author or a project admin)'),
        params: IdParam,
        response: { 200: Written, ...S.errors(401, 403, 404, 409, 429) },
      },
    )
    .post(
      '/api/v1/change-requests/:id/apply',
      async ({ request, params, body }) => {
        const req = requester(request)
        const row = await crs.get(req.actor.projectId, params.id)
        if (!crs.isAuthor(req, row)) authorizeItems(request, row.items)
        return written(await crs.apply(req, params.id, body.revision))
      },
      {
        ...writingDocuments(
          guard(
            'any',
            'change-requests',
            'Apply an approved request now, as one transaction (409 STALE_CHANGE_REQUEST when what it changes moved on)',
          ),
        ),
        params: IdParam,
        ...jsonBody(S.RevisionInput),
        response: { 200: Written, ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    )
}
