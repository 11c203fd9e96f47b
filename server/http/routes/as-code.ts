// Flags as code over HTTP (docs/as-code.md): the document's JSON Schema, export, and import with plan /
// apply. Each route checks its permissions in one place (`needs`), after which the service does the rest.
import { t } from 'elysia'
import { documentJsonSchemaText } from '../../documents/json-schema'
import { KINDS, type FlagshipDocument, type Kind } from '../../documents/model'
import { KIND_TYPES, perKind } from '../../kinds'
import { parseDocumentText, type DocumentFormat } from '../../documents/parse'
import { planView, type Plan } from '../../documents/plan'
import { planAffects } from '../../access/affected-environments'
import { serializeDocument } from '../../documents/serialize'
import { MAX_ITEMS } from '../../services/change-request-items'
import { AppError } from '../../errors'
import type { Permission } from '../../store/vocabulary/permissions'
import type { AppDeps } from '../deps'
import { callerOf, requesterOf } from '../auth'
import { authorizeRoute } from '../request-access'
import { etagOf, etagMatches } from '../caching'
import { MAX_IMPORT_BYTES } from '../json-input'
import * as S from '../../schemas'
import { openApiDetail, routeModule } from './common'

// Exporting segments needs only read:flags (what the flags that use them need), while their own routes, reads
// included, need write:flags (kinds/segment.ts): the kinds' read permission is their routes'.
const READ: Record<Kind, Permission> = { segments: 'read:flags', flags: 'read:flags', configs: 'read:configs' }
const WRITE: Record<Kind, Permission> = perKind((kind) => kind.write)
/** The one permission check of each route: every permission the kinds involved need, through the one
 *  authorization function (an import affects every environment of the project, teams.md §4). */
const needs = (request: Request, perms: Iterable<Permission>) => {
  for (const p of new Set(perms)) authorizeRoute(request, p, 'all')
  return callerOf(request)
}

const listParam = (v: string | undefined) =>
  v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : []
function kindsParam(v: string | undefined): Kind[] {
  const kinds = listParam(v)
  const bad = kinds.filter((k) => !(KINDS as readonly string[]).includes(k))
  if (bad.length)
    throw new AppError(400, 'VALIDATION_ERROR', `Unknown kind(s) ${bad.join(', ')}; use ${KINDS.join(', ')}`, {
      issues: [{ path: 'kinds', message: `must be a comma-separated list of ${KINDS.join(', ')}` }],
    })
  return kinds.length ? (kinds as Kind[]) : [...KINDS]
}

const PlanChange = t.Object(
  {
    resource_type: t.UnionEnum(KIND_TYPES),
    key: t.String(),
    action: t.UnionEnum(['create', 'update', 'delete']),
    current_version: t.Nullable(t.Number({ description: 'the version the plan read; null for a create' })),
    diff: t.Array(t.Object({ op: t.String(), path: t.String(), value: t.Optional(t.Any()) }, { additionalProperties: true }), {
      description: 'RFC 6902 operations from the current document form (without key) to the new one',
    }),
  },
  { title: 'PlanChange' },
)
const DocumentIssue = t.Object({ path: t.String(), line: t.Optional(t.Integer()), message: t.String() }, { title: 'DocumentIssue' })
export const PlanBody = t.Object(
  {
    plan_id: t.String({ description: 'send it back as If-Match: "{plan_id}" to apply exactly this plan' }),
    summary: t.Object({ create: t.Integer(), update: t.Integer(), delete: t.Integer(), unchanged: t.Integer() }),
    changes: t.Array(PlanChange),
    errors: t.Array(DocumentIssue),
    change_set: t.Optional(
      t.Nullable(t.String({ description: 'apply: the id in details.change_set of its audit entries (null when nothing changed)' })),
    ),
    change_request: t.Optional(
      t.Nullable(S.ChangeRequest, { description: 'propose: the change request opened (null when nothing would change)' }),
    ),
  },
  { title: 'ImportPlan' },
)

/** A document from a request body (the app's parser hands the route the text and its format), and where
 *  in the text a path is. */
export function documentFrom(body: unknown): { document: FlagshipDocument; lineOf: (path: string) => number | undefined } {
  const { text, format } = (body ?? {}) as { text?: string; format?: DocumentFormat }
  if (typeof text !== 'string' || text.trim() === '')
    throw new AppError(400, 'VALIDATION_ERROR', 'Send a document in the body', { issues: [{ path: '', message: 'empty body' }] })
  const parsed = parseDocumentText(text, { format, maxBytes: MAX_IMPORT_BYTES })
  if (!parsed.document) {
    // Problems of the whole text (size, syntax, nesting) are the body's, as on every other route.
    const e = parsed.errors.map((i) => (i.path ? i : { ...i, path: 'body' }))
    throw new AppError(
      400,
      'VALIDATION_ERROR',
      `The document is invalid: ${e
        .slice(0, 5)
        .map((i) => `${i.path}${i.line ? ` (line ${i.line})` : ''}: ${i.message}`)
        .join('; ')}`,
      { issues: e },
    )
  }
  return { document: parsed.document, lineOf: parsed.lineOf ?? (() => undefined) }
}

/** Problems found after parsing (a plan's), with the line of the text they point at. */
const withLines = <T extends { path: string; line?: number }>(issues: T[], lineOf: (path: string) => number | undefined): T[] =>
  issues.map((i) => {
    const line = i.line ?? lineOf(i.path)
    return line === undefined ? i : { ...i, line }
  })

export const asCodeRoutes = ({ services }: Pick<AppDeps, 'services'>) =>
  routeModule('as-code')
    .get(
      '/schemas/flagship-v1.json',
      () =>
        new Response(documentJsonSchemaText(), {
          headers: { 'Content-Type': 'application/schema+json; charset=utf-8', 'Cache-Control': 'public, max-age=3600' },
        }),
      {
        detail: openApiDetail({
          tags: ['as-code'],
          summary: 'The JSON Schema of a flagship document (format version 1)',
          'x-permission': 'public',
        }),
      },
    )
    .get(
      '/api/v1/export',
      async ({ request, query }) => {
        const kinds = kindsParam(query.kinds)
        const caller = needs(
          request,
          kinds.map((k) => READ[k]),
        )
        const format = query.format ?? 'yaml'
        const doc = await services.imports.export(caller.actor.projectId, {
          kinds,
          keys: listParam(query.keys),
          tags: listParam(query.tags),
        })
        const text = serializeDocument(doc, format)
        const etag = etagOf(text)
        const headers = { ETag: etag, 'Cache-Control': 'private, max-age=0, must-revalidate' }
        if (etagMatches(request.headers.get('if-none-match'), etag)) return new Response(null, { status: 304, headers })
        return new Response(text, {
          headers: {
            ...headers,
            'Content-Type': format === 'json' ? 'application/json; charset=utf-8' : 'application/yaml; charset=utf-8',
          },
        })
      },
      {
        query: t.Object({
          format: t.Optional(t.UnionEnum(['yaml', 'json'])),
          kinds: t.Optional(t.String({ description: 'comma-separated: flags, configs, segments (default all)' })),
          keys: t.Optional(t.String({ description: 'comma-separated keys; the segments and prerequisite flags they need are included' })),
          tags: t.Optional(t.String({ description: 'comma-separated: only flags with every one of these tags' })),
        }),
        detail: openApiDetail({
          tags: ['as-code'],
          summary: 'Export flags, configs and segments as a document',
          security: [{ bearer: [] }],
          description: 'Permission: `read:flags` for flags and segments, `read:configs` for configs. Byte-stable; strong ETag.',
          'x-permission': 'any',
        }),
        response: { ...S.errors(400, 401, 403, 429) },
      },
    )
    .post(
      '/api/v1/import',
      async ({ request, query, body, headers, set }) => {
        const mode = query.mode ?? 'plan'
        const { document: doc, lineOf } = documentFrom(body)
        const prune = query.prune === true
        const perms = KINDS.filter((k) => doc[k] !== undefined).map((k) => WRITE[k])
        // Write rights everywhere, or else in every environment the plan's changes affect (an import touching
        // only staging's overrides is a change to staging: teams.md §4). Then it is applied at that plan only.
        let planned: Plan | undefined
        try {
          needs(request, perms)
        } catch (e) {
          if (!(e instanceof AppError) || e.status !== 403) throw e
          for (const p of new Set(perms)) authorizeRoute(request, p, [])
          planned = await services.imports.plan(callerOf(request).actor, doc, prune)
          const affected = planAffects(planned.changes)
          for (const p of new Set(perms)) authorizeRoute(request, p, affected)
        }
        const caller = callerOf(request)
        if (mode === 'plan') {
          const plan = planView(planned ?? (await services.imports.plan(caller.actor, doc, prune)))
          return { ...plan, errors: withLines(plan.errors, lineOf) }
        }
        const ifMatch = headers['if-match']?.trim().replace(/^"(.*)"$/, '$1')
        const given = ifMatch && ifMatch !== '*' ? ifMatch : undefined
        if (planned && given !== undefined && given !== planned.plan_id)
          throw new AppError(409, 'PLAN_OUTDATED', `The state changed since plan ${given}; plan again`, {
            plan_id: given,
            current_plan_id: planned.plan_id,
          })
        const planId = planned ? { planId: planned.plan_id } : given !== undefined ? { planId: given } : {}
        try {
          if (mode === 'propose') {
            const { plan, items } = await services.imports.propose(caller.actor, doc, { prune, ...planId })
            if (!items.length) return { ...planView(plan), change_request: null }
            if (items.length > MAX_ITEMS)
              throw new AppError(
                400,
                'TOO_MANY_CHANGES',
                `The import makes ${items.length} changes; a change request holds at most ${MAX_ITEMS}: split the document`,
                { changes: items.length, limit: MAX_ITEMS },
              )
            const n = plan.changes.length
            const row = await services.changeRequests.create(requesterOf(caller), {
              title: query.title ?? `Import of ${n} change${n === 1 ? '' : 's'}`,
              description: query.description,
              items,
            })
            set.status = 201
            return { ...planView(plan), change_request: await services.changeRequests.view(row) }
          }
          const applied = await services.imports.apply(caller.actor, doc, { prune, ...planId })
          return { ...planView(applied), change_set: applied.change_set }
        } catch (e) {
          const issues =
            e instanceof AppError ? (e.details?.issues as { path: string; line?: number; message: string }[] | undefined) : undefined
          if (issues)
            throw new AppError((e as AppError).status, (e as AppError).code, (e as AppError).message, {
              ...(e as AppError).details,
              issues: withLines(issues, lineOf),
            })
          throw e
        }
      },
      {
        query: t.Object({
          mode: t.Optional(t.UnionEnum(['plan', 'apply', 'propose'])),
          prune: t.Optional(t.BooleanString()),
          title: t.Optional(t.String({ description: 'propose: the change request\'s title (default "Import of N changes")' })),
          description: t.Optional(t.String({ description: "propose: the change request's description" })),
        }),
        headers: t.Object({
          'if-match': t.Optional(
            t.String({
              description: 'apply and propose: the plan id in double quotes; 409 PLAN_OUTDATED if anything the plan covers changed',
            }),
          ),
        }),
        detail: openApiDetail({
          tags: ['as-code'],
          summary: 'Plan or apply a document (YAML or JSON, at most 10 MiB)',
          security: [{ bearer: [] }],
          'x-permission': 'any',
          'x-writes-documents': 'unless-plan',
          description:
            'Permission: `write:flags` when the document has flags or segments, `write:configs` when it has configs, ' +
            "in every environment the plan's changes affect (a change touching only one environment's overrides affects that one; " +
            'anything else every one). Apply on a protected environment answers 409 CHANGE_REQUEST_REQUIRED. ' +
            'mode=propose plans as mode=plan and opens one change request holding every change of the plan as items ' +
            "(create: the create body; update: the whole new entry; delete; a flag's archive state as archive/restore items), " +
            "in apply's order, each at the version the plan read: 201 with the plan and `change_request`; " +
            '200 with `change_request: null` when nothing would change; 400 TOO_MANY_CHANGES above 100 items; ' +
            'plan errors 400, If-Match as for apply, and nothing opened.',
          requestBody: {
            required: true,
            content: {
              'application/yaml': { schema: { type: 'string' } },
              'application/json': { schema: { type: 'object', description: 'the document (see GET /schemas/flagship-v1.json)' } },
            },
          },
        }),
        response: { 200: PlanBody, 201: PlanBody, ...S.errors(400, 401, 403, 409, 413, 415, 429) },
      },
    )
