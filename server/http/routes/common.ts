// What every resource route shares: the permission guard (checked before body validation), OpenAPI
// metadata, and the list/pagination shape of docs/behaviour.md §2.
import { Elysia, type TSchema } from 'elysia'
import type { Permission } from '../../services/tokens'
import { callerOf, requirePermission } from '../auth'
import { strict } from '../strict-schema'

export type RoutePermission = Permission | 'any'

/** Route options: permission enforced in `transform` (before validation: 403 wins over 400) plus its OpenAPI detail. */
export function guard(permission: RoutePermission, tag: string, summary: string) {
  return {
    transform({ request }: { request: Request }) {
      if (permission === 'any') callerOf(request)
      else requirePermission(request, permission)
    },
    detail: { tags: [tag], summary, security: [{ bearer: [] }], description: `Permission: \`${permission === 'any' ? 'any valid token' : permission}\`` },
  }
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
