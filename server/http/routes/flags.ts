// /api/v1/flags: list (with its filters) and evaluate one; the stored definition, create, partial update,
// delete and environment overrides are every versioned document's routes (versioned-document-routes.ts).
import { t } from 'elysia'
import { flagView, mergeFlagFields } from '../../services/flags'
import { touchedEnvironment } from '../../access/affected-environments'
import type { FlagPatchInput } from '../../schemas'
import { validationError } from '../../errors'
import type { BodyFilter, DocumentRow } from '../../store/documents'
import { flagKind, type FlagBody } from '../../kinds'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import { isClientKey } from '../../access/client-keys'
import { cachedJson } from '../caching'
import { flagResponse } from '../evaluation-responses'
import * as S from '../../schemas'
import { guard, listBody, paging, routeModule } from './common'
import { withRateClass } from '../route-contract'
import { versionedDocumentRoutes } from './versioned-document-routes'

const EVALUATE_GUARD = withRateClass('evaluation', guard('read:flags', 'evaluation', 'Evaluate one flag for a context'))

/** The list's filters as one test of a stored row (docs/lifecycle.md §3). Checked here rather than with
 *  t.UnionEnum: Elysia fills an absent optional enum with its first member. */
function listFilter(
  url: string,
  query: { stale?: string; q?: string; archived?: string },
): { matches: (row: DocumentRow<FlagBody>) => boolean; inStore: BodyFilter | undefined } {
  const issues = []
  if (query.stale !== undefined && query.stale !== 'true' && query.stale !== 'false')
    issues.push({ path: 'stale', message: 'must be true or false' })
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
  const matches = (row: DocumentRow<FlagBody>) => {
    const body = row.body
    if (archived !== 'all' && (body.archived === true) !== (archived === 'true')) return false
    if (tags.length && !tags.every((tag) => body.tags?.includes(tag))) return false
    return !q || row.key.toLowerCase().includes(q) || (body.description ?? '').toLowerCase().includes(q)
  }
  return { matches, inStore }
}

/** GET /api/v1/flags/:key, the evaluation: an origin's and a relay's (server/relay/) alike. */
export const flagEvaluationRoute = ({ snapshots }: Pick<AppDeps, 'snapshots'>) =>
  routeModule('flag-evaluation')
    // The hot path, from the in-memory snapshot. fast-dispatch.ts sends the common case to fast-evaluation.ts,
    // which answers it the same way; this route serves what that hands back (errors, unknown tokens).
    .get(
      '/api/v1/flags/:key',
      ({ request, params }) => {
        const { actor, token } = callerOf(request)
        return flagResponse(snapshots, actor.projectId, params.key, request.url, token.environment, isClientKey(token.permissions)).send(
          request,
        )
      },
      {
        ...EVALUATE_GUARD,
        params: S.KeyParam,
        // Declared so that any other parameter (`?ctx=`) is refused and `context` is documented; the handler
        // reads it from the URL itself (evaluation-context.ts caches parsed contexts per raw text).
        query: t.Object({
          context: t.Optional(t.String({ description: 'URL-encoded JSON evaluation context, e.g. {"user_id":"u-42","plan":"pro"}' })),
        }),
        response: { 200: S.EvaluationResult, ...S.errors(400, 401, 403, 404, 429) },
      },
    )

export const flagRoutes = ({ services, snapshots }: Pick<AppDeps, 'services' | 'snapshots'>) =>
  routeModule('flags')
    .get(
      '/api/v1/flags',
      async ({ request, query }) => {
        const { projectId } = callerOf(request).actor
        const { limit, offset } = paging(query)
        const { matches, inStore } = listFilter(request.url, query)
        const insight = await services.usage.insight(projectId)
        const item = (r: DocumentRow<FlagBody>) => ({ key: r.key, flag: flagView(r), last_evaluated_at: insight.lastEvaluatedAt(r.key) })
        // Archived state and tags only: one page in the store. Text and staleness (usage) are matched here on
        // every flag, so their page is cut here.
        if (inStore !== undefined && query.stale !== 'true') {
          const { rows, total } = await services.flags.pageWhere(projectId, inStore, limit, offset)
          return cachedJson(request, listBody('flags', rows.map(item), total, offset), { maxAge: 30 })
        }
        const rows = (await services.flags.all(projectId)).filter(matches)
        const listed =
          query.stale === 'true'
            ? rows.flatMap((r) => {
                const reason = insight.staleReason(r)
                return reason ? [{ ...item(r), stale_reason: reason }] : []
              })
            : rows.map(item)
        return cachedJson(request, listBody('flags', listed.slice(offset, offset + limit), listed.length, offset), { maxAge: 30 })
      },
      {
        ...guard('read:flags', 'flags', 'List flags: live ones by default; filter by tag, text, archived state or staleness'),
        query: t.Object({
          ...S.Page.properties,
          stale: t.Optional(
            t.String({
              description:
                '`true`: only flags not evaluated for STALE_AFTER_DAYS, or serving one variant to everyone and unchanged that long',
            }),
          ),
          tag: t.Optional(t.Union([t.String(), t.Array(t.String())], { description: 'repeatable: only flags with every tag given' })),
          q: t.Optional(t.String({ description: 'only flags whose key or description contains this text (case-insensitive)' })),
          archived: t.Optional(t.String({ description: '`false` (default): live flags; `true`: archived ones; `all`: both' })),
        }),
        response: {
          200: t.Object({
            flags: t.Array(S.FlagListItem),
            total: t.Integer(),
            has_more: t.Boolean(),
          }),
          ...S.errors(400, 401, 403, 429),
        },
      },
    )
    .use(flagEvaluationRoute({ snapshots }))
    .use(
      versionedDocumentRoutes(flagKind, {
        definitionPath: '/:key/definition',
        definitionMaxAge: 0,
        get: services.flags.get,
        create: services.flags.create,
        update: services.flags.update,
        updateTouches: (request, key, input) => {
          const row = snapshots.project(callerOf(request).actor.projectId)?.flags.get(key)?.row
          if (!row || input === null || typeof input !== 'object') return undefined
          try {
            return touchedEnvironment(row.body, mergeFlagFields(row.body, input as FlagPatchInput)) || undefined
          } catch {
            return undefined // a body the service refuses anyway
          }
        },
        remove: (actor, key) => services.flags.delete(actor, key),
        deleteErrors: [401, 403, 404, 409, 429],
        summaries: {
          definition: 'The stored flag (for editors); evaluation is GET /flags/:key',
          create: 'Create a flag',
          update: 'Update a flag (only the fields sent; null clears an optional field)',
          delete: 'Delete a flag (409 IN_USE while other flags require it)',
        },
        overrides: {
          set: async (actor, key, environment, override, ifMatch) =>
            (await services.flags.putOverride(actor, key, environment, override, ifMatch)).override,
          remove: services.flags.deleteOverride,
          summaries: { set: "Set a flag's override for one environment", remove: "Remove a flag's override for one environment" },
        },
      }),
    )
