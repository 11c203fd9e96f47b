// /api/v1/flags: list, evaluate one, stored definition, create, partial update, delete, environment overrides.
import { t } from 'elysia'
import { flagView } from '../../services/flags'
import { validationError } from '../../errors'
import type { BodyFilter, DocumentRow } from '../../store/documents'
import { parseIfMatch } from '../../services/keys'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import { cachedJson } from '../caching'
import { flagResponse } from '../evaluation-responses'
import * as S from '../../schemas'
import { guard, listBody, paging, jsonBody, routeModule } from './common'

const EVALUATE_GUARD = guard('read:flags', 'evaluation', 'Evaluate one flag for a context')

/** The list's filters as one test of a stored row (docs/lifecycle.md §3). Checked here rather than with
 *  t.UnionEnum: Elysia fills an absent optional enum with its first member. */
function listFilter(url: string, query: { stale?: string; q?: string; archived?: string }): { matches: (row: DocumentRow) => boolean; inStore: BodyFilter | undefined } {
  const issues = []
  if (query.stale !== undefined && query.stale !== 'true' && query.stale !== 'false') issues.push({ path: 'stale', message: 'must be true or false' })
  const archived = query.archived ?? 'false'
  if (!['true', 'false', 'all'].includes(archived)) issues.push({ path: 'archived', message: 'must be true, false or all' })
  // Repeated `tag=` parameters: every one must match.
  const tags = new URL(url).searchParams.getAll('tag')
  if (tags.some((tag) => tag.length === 0 || tag.length > 63)) issues.push({ path: 'tag', message: 'must be a tag (1 to 63 characters)' })
  if (issues.length) throw validationError(issues)
  const q = query.q?.toLowerCase()
  // The archived state and tags are tests of the stored body the store can run (and page) itself; text is
  // matched here, case-insensitively as JavaScript folds case (the two databases fold only ASCII alike).
  const inStore = !q ? { archived: archived === 'all' ? undefined : archived === 'true', tags } : undefined
  const matches = (row: DocumentRow) => {
    const body = row.body as { archived?: boolean; tags?: string[]; description?: string }
    if (archived !== 'all' && (body.archived === true) !== (archived === 'true')) return false
    if (tags.length && !tags.every((tag) => body.tags?.includes(tag))) return false
    return !q || row.key.toLowerCase().includes(q) || (body.description ?? '').toLowerCase().includes(q)
  }
  return { matches, inStore }
}

export const flagRoutes = ({ services, snapshots }: Pick<AppDeps, 'services' | 'snapshots'>) =>
  routeModule('flags')
    .get('/api/v1/flags', async ({ request, query }) => {
      const { projectId } = callerOf(request).actor
      const { limit, offset } = paging(query)
      const { matches, inStore } = listFilter(request.url, query)
      const insight = await services.usage.insight(projectId)
      const item = (r: DocumentRow) => ({ key: r.key, flag: flagView(r), last_evaluated_at: insight.lastEvaluatedAt(r.key) })
      // Archived state and tags only: one page in the store. Text and staleness (usage) are matched here on
      // every flag, so their page is cut here.
      if (inStore !== undefined && query.stale !== 'true') {
        const { rows, total } = await services.flags.pageWhere(projectId, inStore, limit, offset)
        return cachedJson(request, listBody('flags', rows.map(item), total, offset), { maxAge: 30 })
      }
      const rows = (await services.flags.all(projectId)).filter(matches)
      const listed = query.stale === 'true'
        ? rows.flatMap((r) => {
          const reason = insight.staleReason(r)
          return reason ? [{ ...item(r), stale_reason: reason }] : []
        })
        : rows.map(item)
      return cachedJson(request, listBody('flags', listed.slice(offset, offset + limit), listed.length, offset), { maxAge: 30 })
    }, {
      ...guard('read:flags', 'flags', 'List flags: live ones by default; filter by tag, text, archived state or staleness'),
      query: t.Object({
        ...S.Page.properties,
        stale: t.Optional(t.String({ description: '`true`: only flags not evaluated for STALE_AFTER_DAYS, or serving one variant to everyone and unchanged that long' })),
        tag: t.Optional(t.Union([t.String(), t.Array(t.String())], { description: 'repeatable: only flags with every tag given' })),
        q: t.Optional(t.String({ description: 'only flags whose key or description contains this text (case-insensitive)' })),
        archived: t.Optional(t.String({ description: '`false` (default): live flags; `true`: archived ones; `all`: both' })),
      }),
      response: {
        200: t.Object({
          flags: t.Array(S.FlagListItem),
          total: t.Integer(), has_more: t.Boolean(),
        }),
        ...S.errors(400, 401, 403, 429),
      },
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
    }, { ...guard('write:flags', 'flags', 'Delete a flag (409 IN_USE while other flags require it)'), params: S.KeyParam, response: { 200: S.Deleted, ...S.errors(401, 403, 404, 409, 429) } })
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
