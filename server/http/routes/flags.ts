// /api/v1/flags: list, evaluate one, stored definition, create, partial update, delete, environment overrides.
import { t } from 'elysia'
import { flagView } from '../../services/flags'
import { parseIfMatch } from '../../services/keys'
import type { AppDeps } from '../app'
import { callerOf } from '../auth'
import { cachedJson } from '../caching'
import { flagResponse } from '../evaluation-responses'
import * as S from '../schemas'
import { guard, listBody, paging, jsonBody, routeModule } from './common'

const EVALUATE_GUARD = guard('read:flags', 'evaluation', 'Evaluate one flag for a context')

export const flagRoutes = ({ services, snapshots }: AppDeps) =>
  routeModule('flags')
    .get('/api/v1/flags', async ({ request, query }) => {
      const { projectId } = callerOf(request).actor
      const { limit, offset } = paging(query)
      const { rows, total } = await services.flags.page(projectId, limit, offset)
      return cachedJson(request, listBody('flags', rows.map((r) => ({ key: r.key, flag: flagView(r) })), total, offset), { maxAge: 30 })
    }, {
      ...guard('read:flags', 'flags', 'List flags'),
      query: S.Page,
      response: { 200: t.Object({ flags: t.Array(t.Object({ key: t.String(), flag: S.Flag })), total: t.Integer(), has_more: t.Boolean() }), ...S.errors(400, 401, 403, 429) },
    })
    // The hot path, from the in-memory snapshot. Bun's router sends the common case to fast-evaluation.ts,
    // which answers it the same way; this route serves what that hands back (errors, unknown tokens).
    .get('/api/v1/flags/:key', ({ request, params }) => flagResponse(snapshots, callerOf(request).actor.projectId, params.key, request.url).send(request), {
      ...EVALUATE_GUARD,
      params: S.KeyParam,
      // Declared so that any other parameter (`?ctx=`) is refused and `context` is documented; the handler
      // reads it from the URL itself (evaluation-context.ts caches parsed contexts per raw text).
      query: t.Object({ context: t.Optional(t.String({ description: 'URL-encoded JSON evaluation context, e.g. {"user_id":"u-42","plan":"pro"}' })) }),
      response: { 200: S.EvaluationResult, ...S.errors(400, 401, 403, 404, 429) },
    })
    .get('/api/v1/flags/:key/definition', async ({ request, params }) => {
      const row = await services.flags.get(callerOf(request).actor.projectId, params.key)
      return cachedJson(request, { key: row.key, flag: flagView(row) }, { maxAge: 0 })
    }, {
      ...guard('read:flags', 'flags', 'The stored flag (for editors); evaluation is GET /flags/:key'),
      params: S.KeyParam,
      response: { 200: t.Object({ key: t.String(), flag: S.Flag }), ...S.errors(401, 403, 404, 429) },
    })
    .post('/api/v1/flags', async ({ request, body, set }) => {
      const row = await services.flags.create(callerOf(request).actor, body)
      set.status = 201
      return { success: true as const, key: row.key, flag: flagView(row) }
    }, {
      ...guard('write:flags', 'flags', 'Create a flag'),
      ...jsonBody(S.FlagCreate),
      response: { 201: t.Object({ success: S.Success, key: t.String(), flag: S.Flag }), ...S.errors(400, 401, 403, 409, 413, 415, 429) },
    })
    .put('/api/v1/flags/:key', async ({ request, params, body, headers }) => {
      const row = await services.flags.update(callerOf(request).actor, params.key, body, parseIfMatch(headers['if-match']))
      return { success: true as const, key: row.key, flag: flagView(row) }
    }, {
      ...guard('write:flags', 'flags', 'Update a flag (only the fields sent; null clears an optional field)'),
      params: S.KeyParam,
      ...jsonBody(S.FlagPatch),
      headers: S.IfMatch,
      response: { 200: t.Object({ success: S.Success, key: t.String(), flag: S.Flag }), ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
    })
    .delete('/api/v1/flags/:key', async ({ request, params }) => {
      await services.flags.delete(callerOf(request).actor, params.key)
      return { success: true as const, key: params.key }
    }, { ...guard('write:flags', 'flags', 'Delete a flag'), params: S.KeyParam, response: { 200: S.Deleted, ...S.errors(401, 403, 404, 429) } })
    .put('/api/v1/flags/:key/environments/:env', async ({ request, params, body, headers }) => {
      const { override } = await services.flags.putOverride(callerOf(request).actor, params.key, params.env, body, parseIfMatch(headers['if-match']))
      return { success: true as const, key: params.key, environment: params.env, override }
    }, {
      ...guard('write:flags', 'flags', "Set a flag's override for one environment"),
      params: S.KeyEnvParams,
      headers: S.IfMatch,
      ...jsonBody(S.FlagEnvironmentOverride),
      response: { 200: t.Object({ success: S.Success, key: t.String(), environment: t.String(), override: S.FlagEnvironmentOverride }), ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
    })
    .delete('/api/v1/flags/:key/environments/:env', async ({ request, params, headers }) => {
      await services.flags.deleteOverride(callerOf(request).actor, params.key, params.env, parseIfMatch(headers['if-match']))
      return { success: true as const, key: params.key, environment: params.env }
    }, { ...guard('write:flags', 'flags', "Remove a flag's override for one environment"), params: S.KeyEnvParams, headers: S.IfMatch, response: { 200: S.DeletedOverride, ...S.errors(400, 401, 403, 404, 409, 429) } })
