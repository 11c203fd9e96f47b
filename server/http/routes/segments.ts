// /api/v1/segments: every endpoint, reads included, needs write:flags (segments exist to target flags).
import { t } from 'elysia'
import { parseIfMatch } from '../../services/keys'
import { segmentView } from '../../services/segments'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import { cachedJson } from '../caching'
import * as S from '../../schemas'
import { guard, listBody, paging, jsonBody, routeModule } from './common'

const SegmentEnvelope = t.Object({ key: t.String(), segment: S.Segment })

export const segmentRoutes = ({ services }: Pick<AppDeps, 'services'>) =>
  routeModule('segments')
    .get('/api/v1/segments', async ({ request, query }) => {
      const { limit, offset } = paging(query)
      const { rows, total } = await services.segments.page(callerOf(request).actor.projectId, limit, offset)
      return cachedJson(request, listBody('segments', rows.map((r) => ({ key: r.key, segment: segmentView(r) })), total, offset), { maxAge: 30 })
    }, {
      ...guard('write:flags', 'segments', 'List segments'),
      query: S.Page,
      response: { 200: t.Object({ segments: t.Array(SegmentEnvelope), total: t.Integer(), has_more: t.Boolean() }), ...S.errors(400, 401, 403, 429) },
    })
    .get('/api/v1/segments/:key', async ({ request, params }) => {
      const row = await services.segments.get(callerOf(request).actor.projectId, params.key)
      return cachedJson(request, { key: row.key, segment: segmentView(row) }, { maxAge: 30 })
    }, { ...guard('write:flags', 'segments', 'Get a segment'), params: S.KeyParam, response: { 200: SegmentEnvelope, ...S.errors(401, 403, 404, 429) } })
    .post('/api/v1/segments', async ({ request, body, set }) => {
      const row = await services.segments.create(callerOf(request).actor, body)
      set.status = 201
      return { success: true as const, key: row.key, segment: segmentView(row) }
    }, {
      ...guard('write:flags', 'segments', 'Create a segment'),
      ...jsonBody(S.SegmentCreate),
      response: { 201: t.Object({ success: S.Success, key: t.String(), segment: S.Segment }), ...S.errors(400, 401, 403, 409, 413, 415, 429) },
    })
    .put('/api/v1/segments/:key', async ({ request, params, body, headers }) => {
      const row = await services.segments.update(callerOf(request).actor, params.key, body, parseIfMatch(headers['if-match']))
      return { success: true as const, key: row.key, segment: segmentView(row) }
    }, {
      ...guard('write:flags', 'segments', "Replace a segment's conditions"),
      params: S.KeyParam,
      ...jsonBody(S.SegmentPatch),
      headers: S.IfMatch,
      response: { 200: t.Object({ success: S.Success, key: t.String(), segment: S.Segment }), ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
    })
    .delete('/api/v1/segments/:key', async ({ request, params, query }) => {
      await services.segments.delete(callerOf(request).actor, params.key, query.force === true)
      return { success: true as const, key: params.key }
    }, {
      ...guard('write:flags', 'segments', 'Delete a segment (409 IN_USE while flag rules reference it, unless ?force=true)'),
      params: S.KeyParam,
      query: S.Force,
      response: { 200: S.Deleted, ...S.errors(401, 403, 404, 409, 429) },
    })
