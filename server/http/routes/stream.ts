// The change stream over Server-Sent Events: GET /api/v1/stream (every change the token may read),
// POST /api/v1/stream/tickets (a short-lived URL for EventSource, which cannot send headers) and
// GET /ofrep/v1/stream (OFREP's view of the same changes: one `refetchEvaluation` per change that can
// alter an evaluation). The hub (streams/hub.ts) does the fan-out; this module opens subscribers.
import { t } from 'elysia'
import type { Server } from 'bun'
import { AppError, validationError } from '../../errors'
import type { Permission } from '../../services/tokens'
import { Subscriber, type StreamKind } from '../../streams/sse'
import type { AppDeps } from '../deps'
import { callerOf, can, canEvaluate, type Caller } from '../auth'
import * as S from '../../schemas'
import { routeModule } from './common'
import { authorizeRoute } from '../request-access'

export const NATIVE_STREAM_PATH = '/api/v1/stream'
export const OFREP_STREAM_PATH = '/ofrep/v1/stream'
export const STREAM_PATHS: ReadonlySet<string> = new Set([NATIVE_STREAM_PATH, OFREP_STREAM_PATH])

/** What a token may see on the native stream: flags and segments need read:flags, configs read:configs,
 *  project changes (environments) either. */
function nativeView(caller: Caller): (resourceType: string, environment: string) => boolean {
  const flags = can(caller.token, 'read:flags')
  const configs = can(caller.token, 'read:configs')
  const own = inEnvironment(caller)
  return (type, environment) => own(environment) && (type === 'config' ? configs : type === 'project' ? true : flags)
}

/** An environment key's streams carry no change made to another environment only (environments.md §2). */
const inEnvironment = (caller: Caller) => {
  const mine = caller.token.environment
  return (environment: string) => mine === null || environment === '' || environment === mine
}

const forbidden = (required: string) => new AppError(403, 'FORBIDDEN', `This token lacks the "${required}" permission`, { required })

/** The stream's resume point: `Last-Event-ID` (EventSource sends it when reconnecting) or ?last_event_id=. */
function lastEventIdOf(request: Request, query: string | undefined): number | undefined {
  const raw = request.headers.get('last-event-id') ?? query
  if (raw === undefined || raw === null || raw === '') return undefined
  if (!/^\d{1,15}$/.test(raw)) {
    throw new AppError(400, 'VALIDATION_ERROR', 'Last-Event-ID must be a change number (a non-negative integer) from this stream', {
      issues: [{ path: 'last_event_id', message: 'must be a non-negative integer' }],
    })
  }
  return Number(raw)
}

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' }

/** The address clients reach us at: PUBLIC_URL, else the request's own origin. */
export const publicBase = (deps: Pick<AppDeps, 'settings'>, request: Request): string =>
  deps.settings.publicUrl ?? new URL(request.url).origin

/** An absolute, ticketed URL of a stream for this caller (for EventSource, which cannot send headers). */
export function ticketUrl(deps: Pick<AppDeps, 'settings' | 'tickets'>, request: Request, caller: Caller, path: string) {
  const { ticket, expiresAtMs } = deps.tickets.issue(caller.token.projectId, caller.token.hash)
  return { ticket, expiresAtMs, url: `${publicBase(deps, request)}${path}?ticket=${ticket}` }
}

const StreamQuery = t.Object({
  ticket: t.Optional(t.String({ description: 'from POST /api/v1/stream/tickets, instead of the Authorization header' })),
  last_event_id: t.Optional(t.String({ description: 'resume after this change number (same as the Last-Event-ID header)' })),
})

const streamDoc = (summary: string, description: string) => ({
  tags: ['stream'],
  summary,
  description,
  security: [{ bearer: [] }],
  'x-permission': 'read:flags|read:configs',
  'x-rate-class': 'evaluation',
})
const SseBody = t.String({ description: 'Server-Sent Events (text/event-stream)' })

/** The OpenAPI plugin documents every string answer as text/plain; the streams' is text/event-stream.
 *  Applied to the generated document before it is served (app.ts). */
export function documentStreamMediaType(doc: {
  paths?: Record<string, { get?: { responses?: Record<string, { content?: Record<string, unknown> }> } }>
}): void {
  for (const path of STREAM_PATHS) {
    const ok = doc.paths?.[path]?.get?.responses?.['200']
    if (ok?.content) ok.content = { 'text/event-stream': { schema: { type: 'string', description: 'Server-Sent Events' } } }
  }
}

export const streamRoutes = (deps: Pick<AppDeps, 'hub' | 'settings' | 'tickets'>) => {
  const { hub } = deps

  function open(
    request: Request,
    server: Server<unknown> | null,
    kind: StreamKind,
    sees: (type: string, environment: string) => boolean,
    lastEventId: number | undefined,
  ): Response {
    const caller = callerOf(request)
    // A stream is quiet between changes and heartbeats: Bun's idle timeout must not end it.
    server?.timeout(request, 0)
    const sub = new Subscriber(caller.token.projectId, caller.token.hash, kind, sees, SSE_HEADERS, (s) => hub.remove(s))
    sub.feedsRelay = kind === 'native' && caller.token.permissions.includes('relay')
    hub.add(sub, lastEventId)
    return sub.response
  }

  const streamPermission = (caller: Caller): void => {
    if (!can(caller.token, 'read:flags') && !can(caller.token, 'read:configs')) throw forbidden('read:flags')
  }

  return routeModule('stream')
    .get(
      NATIVE_STREAM_PATH,
      ({ request, query, server }) => {
        authorizeRoute(request, 'any', 'all')
        const caller = callerOf(request)
        streamPermission(caller)
        return open(request, server, 'native', nativeView(caller), lastEventIdOf(request, query.last_event_id))
      },
      {
        query: StreamQuery,
        detail: streamDoc(
          'The change stream (Server-Sent Events)',
          [
            'Permission: `read:flags` (flags, segments) and/or `read:configs` (configs); project changes reach both.',
            'Events: `ready` `{version}` first;',
            'then `change` `{resource_type, key, action, version, environment}` per committed change,',
            "in commit order, `id:` = the project's change number;",
            '`reset` `{version}` when a resume point is older than what is kept (reload everything). A comment heartbeat every 15 s.',
            'Resume with `Last-Event-ID` (or `?last_event_id=`).',
            'Auth: the Authorization header, or `?ticket=` from POST /api/v1/stream/tickets.',
          ].join(' '),
        ),
        response: { 200: SseBody, ...S.errors(400, 401, 403, 429) },
      },
    )
    .post(
      '/api/v1/stream/tickets',
      ({ request, body }) => {
        authorizeRoute(request, 'any', 'all')
        const caller = callerOf(request)
        streamPermission(caller)
        // Elysia lets an optional body's schema pass arrays and scalars; only {} (or nothing) is meant.
        if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body)))
          throw validationError([{ path: 'body', message: 'must be an object (or absent)' }])
        const { ticket, expiresAtMs, url } = ticketUrl(deps, request, caller, NATIVE_STREAM_PATH)
        return { ticket, expires_at: new Date(expiresAtMs).toISOString(), url }
      },
      {
        // Nothing to send; a body, if any, must be an empty object (anything else is refused, not ignored).
        body: t.Optional(t.Object({}, { description: 'no fields: send no body, or {}' })),
        detail: {
          tags: ['stream'],
          summary: 'A short-lived ticket to open the change stream without headers (EventSource)',
          security: [{ bearer: [] }],
          description:
            'Permission: `read:flags` or `read:configs`. ' +
            'The ticket is bound to this token and project, expires within 10 minutes and opens only the streams.',
          'x-permission': 'read:flags|read:configs',
          'x-rate-class': 'evaluation',
        },
        response: {
          200: t.Object(
            {
              ticket: t.String(),
              expires_at: t.String({ format: 'date-time' }),
              url: t.String({ description: 'absolute URL of GET /api/v1/stream with the ticket' }),
            },
            { title: 'StreamTicket' },
          ),
          ...S.errors(401, 403, 429),
        },
      },
    )
    .get(
      OFREP_STREAM_PATH,
      ({ request, query, server }) => {
        authorizeRoute(request, 'read:flags', 'all')
        const caller = callerOf(request)
        if (!canEvaluate(caller.token, 'read:flags')) throw forbidden('read:flags' satisfies Permission)
        const own = inEnvironment(caller)
        const sees = (type: string, environment: string) => type !== 'config' && own(environment)
        return open(request, server, 'ofrep', sees, lastEventIdOf(request, query.last_event_id))
      },
      {
        query: StreamQuery,
        detail: streamDoc(
          'OFREP change notifications (Server-Sent Events)',
          'Permission: `read:flags`. The URL comes from `eventStreams` in the OFREP bulk answer. ' +
            'Each change that can alter an evaluation sends ' +
            '`data: {"type":"refetchEvaluation","etag":…,"lastModified":…}` with an `id:`; a comment heartbeat every 15 s.',
        ),
        response: { 200: SseBody, ...S.errors(400, 401, 403, 429) },
      },
    )
}
