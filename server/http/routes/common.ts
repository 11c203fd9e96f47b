// What every resource route shares: the permission guard (checked before body validation), OpenAPI
// metadata, and the list/pagination shape of docs/behaviour.md §2.
import { Elysia, type DocumentDecoration, type TSchema } from 'elysia'
import type { Affected, RouteAction } from '../../access/authorize'
import { affectedByParams, authorizeRoute } from '../request-access'
import { strict } from '../strict-schema'
import type { DocumentWrites } from '../offline-gate'
import type { RateClass } from '../rate-limit'

export type RoutePermission = RouteAction

const DESCRIBED: Record<string, string> = {
  any: 'any valid token or signed-in member of the project',
  self: 'any valid token or session',
  session: 'a signed-in person (session)',
  'instance:admin': 'an instance owner or admin (session)',
  'instance:owner': 'an instance owner (session)',
  public: 'none',
}

interface GuardContext {
  request: Request
  params?: Record<string, string | undefined>
  body?: unknown
}

/** Route options: the one authorization function (access/authorize.ts) runs in `transform`, before
 *  validation (403 wins over 400), with the environments the request changes (by default `:env` of the
 *  path, else all); `x-permission` declares the permission in the OpenAPI document (the route inventory
 *  test requires one on every route), and `x-rate-class` the rate class of a route that takes a caller
 *  (`management` here; withRateClass() in route-contract.ts declares another). */
export function guard(permission: RoutePermission, tag: string, summary: string, affects?: (ctx: GuardContext) => Affected) {
  return {
    // Destructured, not passed on whole: Elysia's source analysis (Sucrose) of this function in the minified
    // binary failed on `affects ? affects(ctx) : …` and printed a multi-line warning into the JSON log.
    transform({ request, params, body }: GuardContext) {
      authorizeRoute(request, permission, affects ? affects({ request, params, body }) : affectedByParams(params))
    },
    detail: {
      tags: [tag],
      summary,
      ...(permission !== 'public' && { security: [{ bearer: [] }] }),
      description: `Permission: \`${DESCRIBED[permission] ?? permission}\``,
      'x-permission': permission,
      ...(permission !== 'public' && { 'x-rate-class': 'management' as RateClass }),
    },
  }
}

/** OpenAPI metadata with the permission declared (`x-permission`, which the route inventory requires), for
 *  a route that checks its permissions in its handler because what it needs depends on the request (the
 *  kinds a document holds, the environment named): its description says what a caller needs;
 *  `x-writes-documents` tells offline mode's gate that it writes flags, configs or segments; the rate class
 *  is guard()'s default unless declared. Elysia's type for `detail` knows no `x-` fields; this one does. */
export const openApiDetail = (detail: DeclaredDetail): DocumentDecoration =>
  detail['x-permission'] === 'public' ? detail : ({ ...detail, 'x-rate-class': detail['x-rate-class'] ?? 'management' } as DeclaredDetail)

type DeclaredDetail = DocumentDecoration & {
  'x-permission': RoutePermission
  'x-writes-documents'?: DocumentWrites
  'x-rate-class'?: RateClass
}

export function paging(query: { limit?: number; offset?: number }): { limit: number; offset: number } {
  return { limit: query.limit ?? 100, offset: query.offset ?? 0 }
}

export function listBody<K extends string, T>(plural: K, items: T[], total: number, offset: number) {
  return { [plural]: items, total, has_more: offset + items.length < total } as { [P in K]: T[] } & { total: number; has_more: boolean }
}

/** A JSON request body: the schema, read strictly (strict-schema.ts: no numbers from strings, no unknown
 *  fields), validates it, and naming the json parser lets the OpenAPI document list `application/json` (the
 *  app's own onParse runs first and enforces media type, size and syntax). */
export const jsonBody = <T extends TSchema>(schema: T) => ({ body: strict(schema), parse: 'json' as const })

/** Every route module is one of these. Normalisation is off: Elysia's default rewrites a body before
 *  validating it (a string where an object belongs becomes `{}`, an array `{ "0": … }`), which would store
 *  data the client never sent; schemas must accept or refuse what was actually sent. */
export const routeModule = (name: string) => new Elysia({ name, normalize: false })
