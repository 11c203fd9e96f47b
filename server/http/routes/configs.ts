// /api/v1/configs: list, read one (per environment), stored definition, create, update, delete, overrides.
import { t } from 'elysia'
import { configView } from '../../services/configs'
import { parseIfMatch } from '../../services/keys'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import { cachedJson } from '../caching'
import { configResponse } from '../evaluation-responses'
import * as S from '../../schemas'
import { guard, listBody, paging, jsonBody, routeModule } from './common'

export const configRoutes = ({ services, snapshots }: Pick<AppDeps, 'services' | 'snapshots'>) =>
  routeModule('configs')
    .get('/api/v1/configs', async ({ request, query }) => {
      const { limit, offset } = paging(query)
      const { rows, total } = await services.configs.page(callerOf(request).actor.projectId, limit, offset)
      return cachedJson(request, listBody('configs', rows.map((r) => ({ key: r.key, config: configView(r) })), total, offset), { maxAge: 60 })
    }, {
      ...guard('read:configs', 'configs', 'List configs'),
      query: S.Page,
      response: { 200: t.Object({ configs: t.Array(t.Object({ key: t.String(), config: S.Config })), total: t.Integer(), has_more: t.Boolean() }), ...S.errors(400, 401, 403, 429) },
    })
    // Evaluation class, from the in-memory snapshot; like GET /flags/:key, Bun's router sends the common case
    // to fast-evaluation.ts first.
    .get('/api/v1/configs/:key', ({ request, params, query }) => configResponse(snapshots, callerOf(request).actor.projectId, params.key, query.environment).send(request), {
      ...guard('read:configs', 'evaluation', "A config's value (the environment's override when `environment` has one)"),
      params: S.KeyParam,
      query: t.Object({ environment: t.Optional(t.String()) }),
      response: { 200: t.Object({ value: t.Any() }), ...S.errors(401, 403, 404, 429) },
    })
    .get('/api/v1/configs/:key/definition', async ({ request, params }) => {
      const row = await services.configs.get(callerOf(request).actor.projectId, params.key)
      return cachedJson(request, { key: row.key, config: configView(row) }, { maxAge: 0 })
    }, {
      ...guard('read:configs', 'configs', 'The stored config with its environment overrides (for editors)'),
      params: S.KeyParam,
      response: { 200: t.Object({ key: t.String(), config: S.Config }), ...S.errors(401, 403, 404, 429) },
    })
    .post('/api/v1/configs', async ({ request, body, set }) => {
      const row = await services.configs.create(callerOf(request).actor, body)
      set.status = 201
      return { success: true as const, key: row.key, config: configView(row) }
    }, {
      ...guard('write:configs', 'configs', 'Create a config'),
      ...jsonBody(S.ConfigCreate),
      response: { 201: t.Object({ success: S.Success, key: t.String(), config: S.Config }), ...S.errors(400, 401, 403, 409, 413, 415, 429) },
    })
    .put('/api/v1/configs/:key', async ({ request, params, body, headers }) => {
      const row = await services.configs.update(callerOf(request).actor, params.key, body, parseIfMatch(headers['if-match']))
      return { success: true as const, key: row.key, config: configView(row) }
    }, {
      ...guard('write:configs', 'configs', 'Update a config'),
      params: S.KeyParam,
      ...jsonBody(S.ConfigPatch),
      headers: S.IfMatch,
      response: { 200: t.Object({ success: S.Success, key: t.String(), config: S.Config }), ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
    })
    .delete('/api/v1/configs/:key', async ({ request, params }) => {
      await services.configs.delete(callerOf(request).actor, params.key)
      return { success: true as const, key: params.key }
    }, { ...guard('write:configs', 'configs', 'Delete a config'), params: S.KeyParam, response: { 200: S.Deleted, ...S.errors(401, 403, 404, 429) } })
    .put('/api/v1/configs/:key/environments/:env', async ({ request, params, body, headers }) => {
      await services.configs.putOverride(callerOf(request).actor, params.key, params.env, body.value, parseIfMatch(headers['if-match']))
      return { success: true as const, key: params.key, environment: params.env, override: { value: body.value } }
    }, {
      ...guard('write:configs', 'configs', "Set a config's value for one environment"),
      params: S.KeyEnvParams,
      headers: S.IfMatch,
      ...jsonBody(S.ConfigEnvironmentOverride),
      response: { 200: t.Object({ success: S.Success, key: t.String(), environment: t.String(), override: S.ConfigEnvironmentOverride }), ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
    })
    .delete('/api/v1/configs/:key/environments/:env', async ({ request, params, headers }) => {
      await services.configs.deleteOverride(callerOf(request).actor, params.key, params.env, parseIfMatch(headers['if-match']))
      return { success: true as const, key: params.key, environment: params.env }
    }, { ...guard('write:configs', 'configs', "Remove a config's environment override"), params: S.KeyEnvParams, headers: S.IfMatch, response: { 200: S.DeletedOverride, ...S.errors(400, 401, 403, 404, 409, 429) } })
