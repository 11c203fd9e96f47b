// A flag's life beyond its definition (docs/lifecycle.md §3-4): archive and restore, history and rollback,
// and explain ("why does this context get this value", for the stored flag or an unsaved draft).
import { t } from 'elysia'
import type { Actor } from '../../services/context'
import { flagView } from '../../services/flags'
import { validationError } from '../../errors'
import { isIsoDate, parseIsoDate } from '../../engine'
import { parseIfMatch } from '../../services/keys'
import type { DocumentRow } from '../../store/documents'
import type { FlagBody } from '../../kinds'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import { checkContext } from '../evaluation-context'
import { contextIn } from '../key-environment'
import { strictChecker } from '../strict-schema'
import * as S from '../../schemas'
import { guard, jsonBody, listBody, paging, routeModule } from './common'

/** A draft is read as strictly as a write of it (PUT /flags/:key's body): unknown fields are refused. */
const checkDraft = strictChecker(S.FlagPatch, 'flag')

const FlagWritten = t.Object({ success: S.Success, key: t.String(), flag: S.Flag })
const written = (row: DocumentRow<FlagBody>) => ({ success: true as const, key: row.key, flag: flagView(row) })

/** Archive, restore and turn-off: one step on the flag at the version the client read (If-Match), without a
 *  body, answering the flag written. */
const stepRoute = (summary: string, errors: number[]) => ({
  ...guard('write:flags', 'flags', summary),
  params: S.KeyParam,
  headers: S.IfMatch,
  response: { 200: FlagWritten, ...S.errors(...errors) },
})

export const flagLifecycleRoutes = ({ services, snapshots }: Pick<AppDeps, 'services' | 'snapshots'>) => {
  type Step = (actor: Actor, key: string, ifMatch: number | undefined) => Promise<DocumentRow<FlagBody>>
  const step =
    (run: Step) =>
    async ({ request, params, headers }: { request: Request; params: { key: string }; headers: { 'if-match'?: string } }) =>
      written(await run(callerOf(request).actor, params.key, parseIfMatch(headers['if-match'])))
  return routeModule('flag-lifecycle')
    .post(
      '/api/v1/flags/:key/archive',
      step(services.flags.archive),
      stepRoute(
        'Archive a flag: no longer evaluated anywhere (404), not editable until restored; its key and history stay',
        [401, 403, 404, 409, 429],
      ),
    )
    .post('/api/v1/flags/:key/restore', step(services.flags.restore), stepRoute('Restore an archived flag', [400, 401, 403, 404, 409, 429]))
    .post(
      '/api/v1/flags/:key/turn-off',
      step(services.flags.turnOffEverywhere),
      stepRoute(
        'Turn the flag off everywhere: the main switch and every environment override off, in one change ' +
          '(undo: rollback to the version before)',
        [401, 403, 404, 409, 429],
      ),
    )
    .get(
      '/api/v1/flags/:key/history',
      async ({ request, params, query }) => {
        const { limit, offset } = paging(query)
        const { versions, total } = await services.flags.history(callerOf(request).actor.projectId, params.key, limit, offset)
        return listBody('versions', versions, total, offset)
      },
      {
        ...guard('read:flags', 'flags', "The flag's versions, newest first, since it was created"),
        params: S.KeyParam,
        query: S.Page,
        response: {
          200: t.Object({ versions: t.Array(S.FlagVersion), total: t.Integer(), has_more: t.Boolean() }),
          ...S.errors(400, 401, 403, 404, 429),
        },
      },
    )
    .post(
      '/api/v1/flags/:key/rollback',
      async ({ request, params, body, headers }) => {
        return written(await services.flags.rollback(callerOf(request).actor, params.key, body.version, parseIfMatch(headers['if-match'])))
      },
      {
        ...guard('write:flags', 'flags', 'Write a new version equal to an earlier one'),
        params: S.KeyParam,
        headers: S.IfMatch,
        ...jsonBody(
          t.Object({ version: t.Integer({ minimum: 1, description: 'a version from GET /flags/:key/history' }) }, { title: 'Rollback' }),
        ),
        response: { 200: FlagWritten, ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    )
    .post(
      '/api/v1/flags/:key/explain',
      async ({ request, params, body }) => {
        const { actor, token } = callerOf(request)
        // As every evaluation: an environment key's environment, an unknown environment refused.
        const context = contextIn(
          token.environment,
          checkContext(body.context),
          snapshots.project(actor.projectId)?.project.environments ?? [],
        )
        let at: number | undefined
        if (body.at !== undefined) {
          if (!isIsoDate(body.at)) throw validationError([{ path: 'at', message: 'must be an ISO 8601 date-time' }])
          at = parseIsoDate(body.at)
        }
        if (body.flag !== undefined && (body.flag === null || typeof body.flag !== 'object' || Array.isArray(body.flag)))
          throw validationError([{ path: 'flag', message: 'must be a flag definition (an object)' }])
        const flag = body.flag === undefined ? undefined : checkDraft(body.flag)
        return services.explain(actor, params.key, { context, flag, at })
      },
      {
        ...guard('read:flags', 'evaluation', 'Why this context gets this value: the answer and a step-by-step trace (of a draft, too)'),
        params: S.KeyParam,
        ...jsonBody(S.ExplainRequest),
        response: { 200: S.Explanation, ...S.errors(400, 401, 403, 404, 413, 415, 429) },
      },
    )
}
