// The routes every versioned document (flags, configs, segments: services/versioned-documents.ts) has,
// written once: its stored definition, create, update at the version the client read (If-Match), delete and,
// for the kinds with per-environment overrides, setting and removing one environment's override; and the
// plain paged list of the kinds whose list has no filters. A kind names its paths, permissions, schemas,
// operations and the summaries the OpenAPI document shows; its own module adds what only it has (the flag
// list's filters, evaluation) between them, in the order the routes have always been registered.
import { t, type Static, type TSchema } from 'elysia'
import type { Affected } from '../../access/affected-environments'
import type { Actor } from '../../services/context'
import { parseIfMatch } from '../../services/keys'
import type { DocumentRow } from '../../store/documents'
import { callerOf } from '../auth'
import { cachedJson } from '../caching'
import * as S from '../../schemas'
import { guard, jsonBody, listBody, paging, routeModule, type RoutePermission } from './common'

/** Setting and removing one environment's override (PUT/DELETE …/:key/environments/:env). */
export interface OverrideRoutes<Override extends TSchema> {
  schema: Override
  /** stores the override; answers it as stored */
  set(actor: Actor, key: string, environment: string, input: Static<Override>, ifMatch: number | undefined): Promise<Static<Override>>
  remove(actor: Actor, key: string, environment: string, ifMatch: number | undefined): Promise<unknown>
  summaries: { set: string; remove: string }
}

/** What names a kind and shows its documents. */
export interface DocumentKind<Name extends string, View extends TSchema> {
  /** the resource in the paths (/api/v1/flags) and the OpenAPI tag */
  plural: string
  /** the field of the answers that holds the document: `{ key, flag }` */
  name: Name
  read: RoutePermission
  schemas: { view: View }
  /** the document's wire form */
  view(row: DocumentRow): Static<View>
}

/** A kind whose list is one page of every document, by key (documentListRoute). */
export interface ListedKind<Name extends string, View extends TSchema> extends DocumentKind<Name, View> {
  page(projectId: string, limit: number, offset: number): Promise<{ rows: DocumentRow[]; total: number }>
  list: { summary: string /** seconds a client may reuse a page */; maxAge: number }
}

export interface DocumentRoutesKind<
  Name extends string,
  View extends TSchema,
  Create extends TSchema,
  Patch extends TSchema,
  Override extends TSchema,
> extends DocumentKind<Name, View> {
  write: RoutePermission
  /** below /api/v1/<plural>: `/:key/definition` where GET /:key evaluates */
  definitionPath: string
  /** how long (seconds) a client may reuse the stored definition it read */
  definitionMaxAge: number
  schemas: { view: View; create: Create; patch: Patch }
  get(projectId: string, key: string): Promise<DocumentRow>
  create(actor: Actor, input: Static<Create>): Promise<DocumentRow>
  update(actor: Actor, key: string, input: Static<Patch>, ifMatch: number | undefined, onlyEnvironment?: string): Promise<DocumentRow>
  /** The one environment an update would touch (only its override changes: teams.md §4), read off the
   *  stored document as the caller's snapshot has it; undefined: every environment. */
  updateTouches?(request: Request, key: string, input: unknown): string | undefined
  /** `force` only where `forceDelete` documents the query parameter (segments) */
  remove(actor: Actor, key: string, force: boolean): Promise<void>
  /** DELETE takes `?force=true` (delete even while in use) */
  forceDelete?: boolean
  /** the error statuses DELETE answers (409 where something may refuse it) */
  deleteErrors: number[]
  summaries: { definition: string; create: string; update: string; delete: string }
  overrides?: OverrideRoutes<Override>
}

/** GET /api/v1/<plural>: one page of the documents, `{ <plural>: [{ key, <name> }], total, has_more }`. */
export function documentListRoute<Name extends string, View extends TSchema>(kind: ListedKind<Name, View>) {
  const Envelope = t.Object({ key: t.String(), [kind.name]: kind.schemas.view })
  // Typed as any schema, as the answers below (versionedDocumentRoutes).
  const Page: TSchema = t.Object({ [kind.plural]: t.Array(Envelope), total: t.Integer(), has_more: t.Boolean() })
  return routeModule(`${kind.plural}-list`).get(
    `/api/v1/${kind.plural}`,
    async ({ request, query }) => {
      const { limit, offset } = paging(query)
      const { rows, total } = await kind.page(callerOf(request).actor.projectId, limit, offset)
      return cachedJson(
        request,
        listBody(
          kind.plural,
          rows.map((r) => ({ key: r.key, [kind.name]: kind.view(r) })),
          total,
          offset,
        ),
        { maxAge: kind.list.maxAge },
      )
    },
    {
      ...guard(kind.read, kind.plural, kind.list.summary),
      query: S.Page,
      response: { 200: Page, ...S.errors(400, 401, 403, 429) },
    },
  )
}

export function versionedDocumentRoutes<
  Name extends string,
  View extends TSchema,
  Create extends TSchema,
  Patch extends TSchema,
  Override extends TSchema,
>(kind: DocumentRoutesKind<Name, View, Create, Patch, Override>) {
  const base = `/api/v1/${kind.plural}`
  const tag = kind.plural
  const { view, create, patch } = kind.schemas
  const envelope = (row: DocumentRow) => ({ key: row.key, [kind.name]: kind.view(row) })
  const written = (row: DocumentRow) => ({ success: true as const, ...envelope(row) })
  // The answers' schemas are typed as any schema: Elysia cannot resolve the type of a schema built from a
  // generic one to check a handler's answer against at compile time (the schema objects are the same).
  const Written = (): TSchema => t.Object({ success: S.Success, key: t.String(), [kind.name]: view })
  const OverrideWritten = (override: TSchema): TSchema =>
    t.Object({ success: S.Success, key: t.String(), environment: t.String(), override })

  // Registered one by one on the module (Elysia's methods add to the instance they are called on), as a kind
  // has some routes and not others; nothing reads the routes' types off the module returned.
  const routes = routeModule(`${kind.plural}-documents`)
  routes.get(
    `${base}${kind.definitionPath}`,
    async ({ request, params }) => {
      const row = await kind.get(callerOf(request).actor.projectId, params.key)
      return cachedJson(request, envelope(row), { maxAge: kind.definitionMaxAge })
    },
    {
      ...guard(kind.read, tag, kind.summaries.definition),
      params: S.KeyParam,
      response: { 200: t.Object({ key: t.String(), [kind.name]: view }), ...S.errors(401, 403, 404, 429) },
    },
  )
  routes.post(
    base,
    async ({ request, body, set }) => {
      const row = await kind.create(callerOf(request).actor, body)
      set.status = 201
      return written(row)
    },
    {
      ...guard(kind.write, tag, kind.summaries.create),
      ...jsonBody(create),
      response: { 201: Written(), ...S.errors(400, 401, 403, 409, 413, 415, 429) },
    },
  )
  // An update touching one environment's override only is authorized as a change to that environment; the
  // service then refuses it should it touch more by the time it is written.
  const touches = new WeakMap<Request, string>()
  const updateAffects =
    kind.updateTouches &&
    ((ctx: { request: Request; params?: Record<string, string | undefined>; body?: unknown }): Affected => {
      const env = kind.updateTouches!(ctx.request, ctx.params?.key ?? '', ctx.body)
      if (env === undefined) return 'all'
      touches.set(ctx.request, env)
      return [env]
    })
  routes.put(
    `${base}/:key`,
    async ({ request, params, body, headers }) =>
      written(await kind.update(callerOf(request).actor, params.key, body, parseIfMatch(headers['if-match']), touches.get(request))),
    {
      ...guard(kind.write, tag, kind.summaries.update, updateAffects),
      params: S.KeyParam,
      ...jsonBody(patch),
      headers: S.IfMatch,
      response: { 200: Written(), ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
    },
  )
  const removed = async (request: Request, key: string, force: boolean) => {
    await kind.remove(callerOf(request).actor, key, force)
    return { success: true as const, key }
  }
  const deleteHook = { ...guard(kind.write, tag, kind.summaries.delete), params: S.KeyParam }
  const deleteResponse = { response: { 200: S.Deleted, ...S.errors(...kind.deleteErrors) } }
  if (kind.forceDelete)
    routes.delete(`${base}/:key`, ({ request, params, query }) => removed(request, params.key, query.force === true), {
      ...deleteHook,
      query: S.Force,
      ...deleteResponse,
    })
  else routes.delete(`${base}/:key`, ({ request, params }) => removed(request, params.key, false), { ...deleteHook, ...deleteResponse })

  const overrides = kind.overrides
  if (overrides) {
    routes.put(
      `${base}/:key/environments/:env`,
      async ({ request, params, body, headers }) => {
        const override = await overrides.set(callerOf(request).actor, params.key, params.env, body, parseIfMatch(headers['if-match']))
        return { success: true as const, key: params.key, environment: params.env, override }
      },
      {
        ...guard(kind.write, tag, overrides.summaries.set),
        params: S.KeyEnvParams,
        headers: S.IfMatch,
        ...jsonBody(overrides.schema),
        response: { 200: OverrideWritten(overrides.schema), ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    )
    routes.delete(
      `${base}/:key/environments/:env`,
      async ({ request, params, headers }) => {
        await overrides.remove(callerOf(request).actor, params.key, params.env, parseIfMatch(headers['if-match']))
        return { success: true as const, key: params.key, environment: params.env }
      },
      {
        ...guard(kind.write, tag, overrides.summaries.remove),
        params: S.KeyEnvParams,
        headers: S.IfMatch,
        response: { 200: S.DeletedOverride, ...S.errors(400, 401, 403, 404, 409, 429) },
      },
    )
  }
  return routes
}
