// The routes every versioned document (flags, configs, segments: services/versioned-documents.ts) has,
// written once: its stored definition, create, update at the version the client read (If-Match), delete and,
// for the kinds with per-environment overrides, setting and removing one environment's override; and the
// plain paged list of the kinds whose list has no filters. The kind's definition (kinds/) names its paths,
// tag, permissions, schemas and wire form; its routes module adds the operations and the summaries the
// OpenAPI document shows, and what only it has (the flag list's filters, evaluation) between them, in the
// order the routes have always been registered.
import { t, type Static, type TSchema } from 'elysia'
import type { Affected } from '../../access/affected-environments'
import type { Actor } from '../../services/context'
import { parseIfMatch } from '../../services/keys'
import type { DocumentKind, StoredDocument } from '../../kinds'
import type { DocumentType } from '../../store/vocabulary/changes'
import { callerOf } from '../auth'
import { cachedJson } from '../caching'
import * as S from '../../schemas'
import { guard, jsonBody, listBody, paging, routeModule } from './common'

/** A kind whose schemas are type parameters of their own: Elysia types a handler's body from a schema that
 *  is one (Create), not from one looked up in another (K['schemas']['create']). */
type KindOf<
  Body extends object,
  View extends TSchema,
  Create extends TSchema,
  Patch extends TSchema,
  Override extends TSchema,
> = DocumentKind<DocumentType, Body, { view: View; create: Create; patch: Patch; override?: Override }>

/** Setting and removing one environment's override (PUT/DELETE …/:key/environments/:env), for a kind whose
 *  definition has an override schema. */
export interface OverrideRoutes<Override extends TSchema> {
  /** stores the override; answers it as stored */
  set(actor: Actor, key: string, environment: string, input: Static<Override>, ifMatch: number | undefined): Promise<Static<Override>>
  remove(actor: Actor, key: string, environment: string, ifMatch: number | undefined): Promise<unknown>
  summaries: { set: string; remove: string }
}

/** A kind's plain list: one page of every document, by key (documentListRoute). */
export interface ListRoute<Body extends object> {
  page(projectId: string, limit: number, offset: number): Promise<{ rows: StoredDocument<Body>[]; total: number }>
  summary: string
  /** seconds a client may reuse a page */
  maxAge: number
}

/** What a kind's routes add to its definition (kinds/): the service operations they call and what the
 *  OpenAPI document says of them. */
export interface DocumentRoutes<Body extends object, Create extends TSchema, Patch extends TSchema, Override extends TSchema> {
  /** below /api/v1/<plural>: `/:key/definition` where GET /:key evaluates */
  definitionPath: string
  /** how long (seconds) a client may reuse the stored definition it read */
  definitionMaxAge: number
  get(projectId: string, key: string): Promise<StoredDocument<Body>>
  create(actor: Actor, input: Static<Create>): Promise<StoredDocument<Body>>
  update(
    actor: Actor,
    key: string,
    input: Static<Patch>,
    ifMatch: number | undefined,
    onlyEnvironment?: string,
  ): Promise<StoredDocument<Body>>
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

/** GET /api/v1/<plural>: one page of the documents, `{ <plural>: [{ key, <type> }], total, has_more }`. */
export function documentListRoute<Body extends object>(kind: DocumentKind<DocumentType, Body>, list: ListRoute<Body>) {
  const Envelope = t.Object({ key: t.String(), [kind.type]: kind.schemas.view })
  // Typed as any schema, as the answers below (versionedDocumentRoutes).
  const Page: TSchema = t.Object({ [kind.plural]: t.Array(Envelope), total: t.Integer(), has_more: t.Boolean() })
  return routeModule(`${kind.plural}-list`).get(
    `/api/v1/${kind.plural}`,
    async ({ request, query }) => {
      const { limit, offset } = paging(query)
      const { rows, total } = await list.page(callerOf(request).actor.projectId, limit, offset)
      return cachedJson(
        request,
        listBody(
          kind.plural,
          rows.map((r) => ({ key: r.key, [kind.type]: kind.view(r) })),
          total,
          offset,
        ),
        { maxAge: list.maxAge },
      )
    },
    {
      ...guard(kind.read, kind.plural, list.summary),
      query: S.Page,
      response: { 200: Page, ...S.errors(400, 401, 403, 429) },
    },
  )
}

export function versionedDocumentRoutes<
  Body extends object,
  View extends TSchema,
  Create extends TSchema,
  Patch extends TSchema,
  Override extends TSchema,
>(kind: KindOf<Body, View, Create, Patch, Override>, ops: DocumentRoutes<Body, Create, Patch, Override>) {
  const base = `/api/v1/${kind.plural}`
  const tag = kind.plural
  const { view, create, patch } = kind.schemas
  const envelope = (row: StoredDocument<Body>) => ({ key: row.key, [kind.type]: kind.view(row) })
  const written = (row: StoredDocument<Body>) => ({ success: true as const, ...envelope(row) })
  // The answers' schemas are typed as any schema: Elysia cannot resolve the type of a schema built from a
  // generic one to check a handler's answer against at compile time (the schema objects are the same).
  const Written = (): TSchema => t.Object({ success: S.Success, key: t.String(), [kind.type]: view })
  const OverrideWritten = (override: TSchema): TSchema =>
    t.Object({ success: S.Success, key: t.String(), environment: t.String(), override })

  // Registered one by one on the module (Elysia's methods add to the instance they are called on), as a kind
  // has some routes and not others; nothing reads the routes' types off the module returned.
  const routes = routeModule(`${kind.plural}-documents`)
  routes.get(
    `${base}${ops.definitionPath}`,
    async ({ request, params }) => {
      const row = await ops.get(callerOf(request).actor.projectId, params.key)
      return cachedJson(request, envelope(row), { maxAge: ops.definitionMaxAge })
    },
    {
      ...guard(kind.read, tag, ops.summaries.definition),
      params: S.KeyParam,
      response: { 200: t.Object({ key: t.String(), [kind.type]: view }), ...S.errors(401, 403, 404, 429) },
    },
  )
  routes.post(
    base,
    async ({ request, body, set }) => {
      const row = await ops.create(callerOf(request).actor, body)
      set.status = 201
      return written(row)
    },
    {
      ...guard(kind.write, tag, ops.summaries.create),
      ...jsonBody(create),
      response: { 201: Written(), ...S.errors(400, 401, 403, 409, 413, 415, 429) },
    },
  )
  // An update touching one environment's override only is authorized as a change to that environment; the
  // service then refuses it should it touch more by the time it is written.
  const touches = new WeakMap<Request, string>()
  const updateAffects =
    ops.updateTouches &&
    ((ctx: { request: Request; params?: Record<string, string | undefined>; body?: unknown }): Affected => {
      const env = ops.updateTouches!(ctx.request, ctx.params?.key ?? '', ctx.body)
      if (env === undefined) return 'all'
      touches.set(ctx.request, env)
      return [env]
    })
  routes.put(
    `${base}/:key`,
    async ({ request, params, body, headers }) =>
      written(await ops.update(callerOf(request).actor, params.key, body, parseIfMatch(headers['if-match']), touches.get(request))),
    {
      ...guard(kind.write, tag, ops.summaries.update, updateAffects),
      params: S.KeyParam,
      ...jsonBody(patch),
      headers: S.IfMatch,
      response: { 200: Written(), ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
    },
  )
  const removed = async (request: Request, key: string, force: boolean) => {
    await ops.remove(callerOf(request).actor, key, force)
    return { success: true as const, key }
  }
  const deleteHook = { ...guard(kind.write, tag, ops.summaries.delete), params: S.KeyParam }
  const deleteResponse = { response: { 200: S.Deleted, ...S.errors(...ops.deleteErrors) } }
  if (ops.forceDelete)
    routes.delete(`${base}/:key`, ({ request, params, query }) => removed(request, params.key, query.force === true), {
      ...deleteHook,
      query: S.Force,
      ...deleteResponse,
    })
  else routes.delete(`${base}/:key`, ({ request, params }) => removed(request, params.key, false), { ...deleteHook, ...deleteResponse })

  const overrides = ops.overrides
  const overrideSchema = kind.schemas.override
  if (overrides && overrideSchema) {
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
        ...jsonBody(overrideSchema),
        response: { 200: OverrideWritten(overrideSchema), ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
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
