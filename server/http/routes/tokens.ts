// /api/v1/tokens (permission *): list by prefix and hash, create (plaintext returned once), revoke by hash.
import { t } from 'elysia'
import { tokenView } from '../../services/tokens'
import type { AppDeps } from '../deps'
import { callerOf, personBehind } from '../auth'
import * as S from '../../schemas'
import { guard, listBody, paging, jsonBody, routeModule } from './common'

export const tokenRoutes = ({ services }: Pick<AppDeps, 'services'>) =>
  routeModule('tokens')
    .get(
      '/api/v1/tokens',
      async ({ request, query }) => {
        const { limit, offset } = paging(query)
        const { rows, total } = await services.tokens.page(callerOf(request).actor.projectId, limit, offset)
        return listBody('tokens', rows.map(tokenView), total, offset)
      },
      {
        ...guard('*', 'tokens', "List the project's tokens (never plaintext)"),
        query: S.Page,
        response: {
          200: t.Object({ tokens: t.Array(S.TokenEntry), total: t.Integer(), has_more: t.Boolean() }),
          ...S.errors(400, 401, 403, 429),
        },
      },
    )
    .post(
      '/api/v1/tokens',
      async ({ request, body, set }) => {
        const caller = callerOf(request)
        const { token, row } = await services.tokens.create(
          caller.actor,
          { ...body, owner_user_id: null, created_by_user_id: personBehind(caller) },
          caller.token.environments,
        )
        set.status = 201
        const { last_used_at: _unused, expires_at, ...meta } = tokenView(row)
        return { success: true as const, token, meta: { ...meta, ...(expires_at ? { expires_at } : {}) } }
      },
      {
        ...guard('*', 'tokens', 'Create a token; its plaintext is in this response only'),
        ...jsonBody(S.TokenCreate),
        response: {
          201: t.Object({ success: S.Success, token: t.String(), meta: S.TokenMeta }),
          ...S.errors(400, 401, 403, 409, 413, 415, 429),
        },
      },
    )
    .delete(
      '/api/v1/tokens/:hash',
      async ({ request, params }) => {
        await services.tokens.delete(callerOf(request).actor, params.hash)
        return { success: true as const, hash: params.hash }
      },
      {
        ...guard('*', 'tokens', 'Revoke a token by its hash (409 IN_USE for the last admin token)'),
        params: t.Object({ hash: t.String() }),
        response: { 200: t.Object({ success: S.Success, hash: t.String() }), ...S.errors(401, 403, 404, 409, 429) },
      },
    )
