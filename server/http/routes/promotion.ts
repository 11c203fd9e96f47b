// Environment promotion and comparison (docs/as-code.md §3). Each route checks its permissions in one
// place (`needs` / `can`), then the import service plans (and applies) through the same path as imports.
import { t } from 'elysia'
import { planView } from '../../documents/plan'
import { AppError, validationError } from '../../errors'
import type { AppDeps } from '../deps'
import { callerOf, can, requesterOf } from '../auth'
import { MAX_ITEMS } from '../../services/change-request-items'
import { authorizeRoute } from '../request-access'
import * as S from '../../schemas'
import { jsonBody, openApiDetail, routeModule } from './common'
import { PlanBody } from './as-code'

const Comparison = t.Array(
  t.Object({
    key: t.String(),
    status: t.UnionEnum(['identical', 'different', 'only_a', 'only_b']),
    diff: t.Optional(
      t.Array(t.Object({ op: t.String(), path: t.String(), value: t.Optional(t.Any()) }, { additionalProperties: true }), {
        description: "RFC 6902 operations from a's override to b's",
      }),
    ),
  }),
)

export const promotionRoutes = ({ services }: Pick<AppDeps, 'services'>) =>
  routeModule('promotion')
    .post(
      '/api/v1/promote',
      async ({ request, body, set }) => {
        // Promoting everything (no names) touches both kinds; otherwise the kinds named.
        const all = body.flags === undefined && body.configs === undefined
        // A promotion changes the overrides of `to` only (teams.md §4).
        if (all || body.flags !== undefined) authorizeRoute(request, 'write:flags', [body.to])
        if (all || body.configs !== undefined) authorizeRoute(request, 'write:configs', [body.to])
        if (body.propose) {
          // A protected `to`: the promotion as a change request (its items affect `to` only).
          const caller = callerOf(request)
          const { plan, items } = await services.imports.proposePromotion(caller.actor, body)
          if (!items.length) return { ...planView(plan), change_request: null }
          if (items.length > MAX_ITEMS)
            throw new AppError(
              400,
              'TOO_MANY_CHANGES',
              `The promotion makes ${items.length} changes; a change request holds at most ${MAX_ITEMS}: name fewer keys`,
              { changes: items.length, limit: MAX_ITEMS },
            )
          const row = await services.changeRequests.create(requesterOf(caller), {
            title: body.title ?? `Promote ${items.length} change${items.length === 1 ? '' : 's'} from ${body.from} to ${body.to}`,
            description: body.description,
            items,
          })
          set.status = 201
          return { ...planView(plan), change_request: await services.changeRequests.view(row) }
        }
        const applied = await services.imports.promote(callerOf(request).actor, body)
        return { ...planView(applied), change_set: applied.change_set }
      },
      {
        ...jsonBody(
          t.Object(
            {
              from: t.String(),
              to: t.String(),
              flags: t.Optional(t.Array(t.String(), { maxItems: 10000 })),
              configs: t.Optional(t.Array(t.String(), { maxItems: 10000 })),
              dry_run: t.Optional(t.Boolean()),
              propose: t.Optional(
                t.Boolean({
                  description:
                    'open a change request holding the promotion (one set_override or delete_override in `to` per change) ' +
                    'instead of applying it: 201 with `change_request`; 200 with `change_request: null` when nothing would change',
                }),
              ),
              title: t.Optional(t.String({ description: "propose: the change request's title" })),
              description: t.Optional(t.String({ description: "propose: the change request's description" })),
              expect: t.Optional(S.Dict(t.Integer(), 'key -> the version the caller saw; 409 CONFLICT if it moved')),
            },
            { title: 'PromoteRequest' },
          ),
        ),
        detail: openApiDetail({
          tags: ['as-code'],
          summary: "Copy flags' and configs' overrides from one environment to another",
          security: [{ bearer: [] }],
          'x-writes-documents': 'always',
          description:
            'Permission: `write:flags` for flags, `write:configs` for configs ' +
            '(both when nothing is named: everything is promoted), in the `to` environment. ' +
            'Answers the import plan shape; dry_run plans only; propose opens a change request instead (for a protected `to`).',
          'x-permission': 'any',
        }),
        response: { 200: PlanBody, 201: PlanBody, ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    )
    .get(
      '/api/v1/environments/compare',
      async ({ request, query }) => {
        authorizeRoute(request, 'any', 'all')
        const { token, actor } = callerOf(request)
        const kinds = { flags: can(token, 'read:flags'), configs: can(token, 'read:configs') }
        if (!kinds.flags && !kinds.configs)
          throw new AppError(403, 'FORBIDDEN', 'This token lacks the "read:flags" permission', { required: 'read:flags' })
        const missing = (['a', 'b'] as const).filter((k) => !query[k])
        if (missing.length) throw validationError(missing.map((path) => ({ path, message: 'is required: an environment name' })))
        return services.imports.compare(actor.projectId, query.a!, query.b!, kinds)
      },
      {
        // Checked in the handler (as every route's query here): unknown parameters are refused on their own.
        query: t.Object({
          a: t.Optional(t.String({ description: 'an environment (required)' })),
          b: t.Optional(t.String({ description: 'another environment (required)' })),
        }),
        detail: openApiDetail({
          tags: ['as-code'],
          summary: 'Compare the overrides of two environments',
          security: [{ bearer: [] }],
          description: 'Permission: `read:flags` (flags) and/or `read:configs` (configs): each list is there when the caller reads it.',
          'x-permission': 'any',
        }),
        response: {
          200: t.Object(
            { a: t.String(), b: t.String(), flags: t.Optional(Comparison), configs: t.Optional(Comparison) },
            { title: 'EnvironmentComparison' },
          ),
          ...S.errors(400, 401, 403, 429),
        },
      },
    )
