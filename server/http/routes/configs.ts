// /api/v1/configs: read one (per environment); the list, stored definition, create, update, delete and
// environment overrides are every versioned document's routes (versioned-document-routes.ts).
import { t } from 'elysia'
import { configKind } from '../../kinds'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import { isClientKey } from '../../access/client-keys'
import { configResponse } from '../evaluation-responses'
import * as S from '../../schemas'
import { guard, routeModule } from './common'
import { withRateClass } from '../route-contract'
import { documentListRoute, versionedDocumentRoutes } from './versioned-document-routes'

/** GET /api/v1/configs/:key, a config's value: an origin's and a relay's (server/relay/) alike. */
export const configEvaluationRoute = ({ snapshots }: Pick<AppDeps, 'snapshots'>) =>
  routeModule('config-evaluation')
    // Evaluation class, from the in-memory snapshot; like GET /flags/:key, fast-dispatch.ts sends the common case
    // to fast-evaluation.ts first.
    .get(
      '/api/v1/configs/:key',
      ({ request, params, query }) => {
        const { actor, token } = callerOf(request)
        return configResponse(
          snapshots,
          actor.projectId,
          params.key,
          query.environment,
          token.environment,
          isClientKey(token.permissions),
        ).send(request)
      },
      {
        ...withRateClass(
          'evaluation',
          guard('read:configs', 'evaluation', "A config's value (the environment's override when `environment` has one)"),
        ),
        params: S.KeyParam,
        query: t.Object({ environment: t.Optional(t.String()) }),
        response: { 200: t.Object({ value: t.Any() }), ...S.errors(400, 401, 403, 404, 429) },
      },
    )

export const configRoutes = ({ services, snapshots }: Pick<AppDeps, 'services' | 'snapshots'>) =>
  routeModule('configs')
    .use(documentListRoute(configKind, { page: services.configs.page, summary: 'List configs', maxAge: 60 }))
    .use(configEvaluationRoute({ snapshots }))
    .use(
      versionedDocumentRoutes(configKind, {
        definitionPath: '/:key/definition',
        definitionMaxAge: 0,
        get: services.configs.get,
        create: services.configs.create,
        update: services.configs.update,
        remove: (actor, key) => services.configs.delete(actor, key),
        deleteErrors: [401, 403, 404, 429],
        summaries: {
          definition: 'The stored config with its environment overrides (for editors)',
          create: 'Create a config',
          update: 'Update a config',
          delete: 'Delete a config',
        },
        overrides: {
          set: async (actor, key, environment, { value }, ifMatch) => {
            await services.configs.putOverride(actor, key, environment, value, ifMatch)
            return { value }
          },
          remove: services.configs.deleteOverride,
          summaries: { set: "Set a config's value for one environment", remove: "Remove a config's environment override" },
        },
      }),
    )
