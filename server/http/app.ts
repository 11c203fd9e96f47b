// server/http: transport only. Requests come in here and go one way: route -> service (changes) or the
// in-memory cache (evaluation); nothing in http/ writes to the store itself. This file is the application:
// cross-cutting request handling (auth, rate limits, body parsing, errors, 404/405), the OpenAPI document,
// the console, and one plugin per resource under routes/ (each taking only the parts of deps.ts it uses).
import { Elysia } from 'elysia'
import { openapi } from '@elysiajs/openapi'
import { EvaluationBudgetExceeded } from '../engine/budget'
import { errorForLog } from '../log'
import { AppError } from '../errors'
import { isStoreUnavailable, storeUnavailable } from '../store/unavailable'
import { cachedJson } from './caching'
import { consoleAsset, consoleResponse } from './console'
import { createCors } from './cors'
import { errorResponse, fromAppError, validationIssues } from './errors'
import { fastDispatch } from './fast-dispatch'
import { fastEvaluationRoutes } from './fast-evaluation'
import { fastOfrepRoutes } from './fast-ofrep'
import { bodyLimitOf, IMPORT_PATH, readDocumentBody, readJsonBody } from './json-input'
import { countRequests } from './count-requests'
import { routeTemplates } from './route-templates'
import { undeclaredRoutes } from './route-inventory'
import { rateClassOf, routeContracts, takesNoCaller, type RouteContracts } from './route-contract'
import { rateHeaders, rateLimited, type RateClass } from './rate-limit'
import * as S from '../schemas'
import { checkUrl, pathOf } from './url-input'
import { healthRoutes } from './routes/health'
import { docsRoutes } from './routes/docs'
import { sdkRoutes } from './routes/sdk'
import { flagRoutes } from './routes/flags'
import { flagLifecycleRoutes } from './routes/flag-lifecycle'
import { configRoutes } from './routes/configs'
import { segmentRoutes } from './routes/segments'
import { evaluateRoutes } from './routes/evaluate'
import { tokenRoutes } from './routes/tokens'
import { webhookRoutes } from './routes/webhooks'
import { deliveryRoutes } from './routes/deliveries'
import { auditRoutes } from './routes/audit'
import { projectRoutes } from './routes/project'
import { ofrepErrorResponse, ofrepRoutes } from './routes/ofrep'
import { definitionRoutes } from './routes/definitions'
import { scheduleRoutes } from './routes/schedules'
import { changeRequestRoutes } from './routes/change-requests'
import { usageRoutes } from './routes/usage'
import { metricsRoutes } from './routes/metrics'
import { documentStreamMediaType, publicBase, STREAM_PATHS, streamRoutes } from './routes/stream'
import { finishOpenApi } from './openapi-document'
import { authRoutes } from './routes/auth'
import { oidcRoutes } from './routes/oidc'
import { meRoutes } from './routes/me'
import { peopleRoutes } from './routes/people'
import { projectsRoutes } from './routes/projects'
import { totpRoutes } from './routes/me-totp'
import { csrfRefusal } from './csrf'
import { checkOffline, type OfflineGateDeps } from './offline-gate'
import { callerOf } from './auth'
import { authenticateRequest } from './session-auth'
import { noteAccess } from './request-access'
import { clientAddress as notedClientAddress, noteClientAddress } from '../identity/request-meta'
import { clientAddressResolver, peerOfCopy } from './client-address'
import { createAccessLog } from './access-log'
import type { FastAccessLog, Meter } from './fast-admission'
import { callerIfAny } from './auth'
import { asCodeRoutes } from './routes/as-code'
import { promotionRoutes } from './routes/promotion'
import { experimentRoutes } from './routes/experiments'
import { experimentMetricRoutes } from './routes/experiment-metrics'
import { eventRoutes } from './routes/events'
import { experimentUnitRoutes } from './routes/experiment-units'
import { relayRoutes } from './routes/relay'
import type { AppDeps, RelayAppDeps } from './deps'
import { relayEdgeRoutes, relayRefusal } from './relay-edge'
import { releasePlanRoutes } from './routes/release-plans'

/** Not in the OpenAPI document, and open to anyone (route-inventory.ts). */
const PUBLIC_HIDDEN = { hide: true, 'x-permission': 'public' }

export type { AppDeps } from './deps'

const PAGING_BOUNDS = { limit: S.Page.properties.limit, offset: S.Page.properties.offset } as const
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

export function createApp(deps: AppDeps | RelayAppDeps) {
  const { settings, authenticator, limiter } = deps
  // Relay mode (server/relay/): the evaluation surface only, fed from an upstream instead of a store.
  const relay = 'relay' in deps ? deps.relay : undefined
  const cors = createCors(settings.corsOrigins)
  const clientAddress = clientAddressResolver(settings.trustedProxies)
  // ACCESS_LOG: Elysia's answers are logged from its wrap, the fast paths' from their admission (access-log.ts).
  const accessLog = settings.accessLog ? createAccessLog(deps.log) : undefined
  const fastAccessLog: FastAccessLog | undefined =
    accessLog &&
    ((request, server, route, status, started, caller) =>
      accessLog(
        request,
        route,
        status,
        started,
        caller,
        clientAddress(server?.requestIP(request)?.address, request.headers.get('x-forwarded-for')),
      ))
  const limits: Record<RateClass, number> = {
    evaluation: settings.rateLimitEvaluationPerMinute,
    management: settings.rateLimitManagementPerMinute,
  }

  // Every route's declaration (route-contract.ts), read by the gates below; set once the routes are registered.
  let contracts: RouteContracts | undefined
  const offline: OfflineGateDeps = {
    offlineProject: settings.flagsFile ? settings.flagsProject : undefined,
    projectOf: (request) => {
      const caller = callerOf(request)
      if (caller.person?.sessionId === undefined) return caller.token.projectId
      const ref = request.headers.get('flagship-project')
      return ref === null ? undefined : deps.snapshots.projectByRef(ref)?.project.id
    },
    detailOf: (method, route) => contracts?.of(method, route),
  }

  const app = new Elysia({
    normalize: false,
    // Elysia finds a URL's path from its 12th character on by default (skipping `http://` and a host of at
    // least 4 characters): with a `Host` of 3 characters or fewer, `/xyz/api/v1/tokens` was routed as
    // `/api/v1/tokens` while the hooks below saw `/xyz/…`. From the 8th on (after `http://`; Bun's URLs here
    // always start so), routing and hooks read the same path whatever the Host.
    handler: { standardHostname: false },
    // Every request reaches Elysia through the service's own `fetch` (fast-dispatch.ts, listen.ts): none of
    // its routes is handed to Bun's router, where it would claim the fast paths' requests first.
    systemRouter: false,
  })
    // Every answer Elysia gives (refusals in onRequest and errors included) is counted under its route
    // template; the fast path counts its own (metrics.ts).
    .wrap(
      countRequests(
        deps.metrics.requests,
        (path): string | undefined => templateOf(path),
        accessLog &&
          ((request, route, status, started) =>
            accessLog(request, route, status, started, callerIfAny(request), notedClientAddress(request))),
      ),
    )
    // Authentication and the rate limit run before parsing and validation: an unauthenticated client
    // learns nothing about a route's schema, and X-RateLimit-* rides on every authenticated response.
    .onRequest(async ({ request, set, server }) => {
      // Behind a trusted reverse proxy, the client its X-Forwarded-For names (client-address.ts).
      // A request the OFREP fast path re-made with the body it read has no socket: its peer came along.
      const address = () =>
        clientAddress(server?.requestIP(request)?.address ?? peerOfCopy(request), request.headers.get('x-forwarded-for'))
      if (accessLog) noteClientAddress(request, address())
      const length = Number(request.headers.get('content-length') ?? 0)
      const path = pathOf(request.url)
      const limit = bodyLimitOf(path)
      if (length > limit) return errorResponse(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes`)
      if (!path.startsWith('/api/') && !path.startsWith('/ofrep/')) return
      // CORS on the evaluation surface only (cors.ts): preflights are answered here, and the headers ride on
      // every answer, errors included, so a page can read why it was refused.
      const origin = request.headers.get('origin')
      if (request.method === 'OPTIONS') {
        const preflight = cors.preflight(path, origin)
        if (preflight) return preflight
      }
      const corsHeaders = cors.headers(path, origin)
      const early = (r: Response) => {
        if (corsHeaders) for (const [k, v] of Object.entries(corsHeaders)) r.headers.set(k, v)
        return r
      }
      if (corsHeaders) Object.assign(set.headers, corsHeaders)
      if (!routeExists(request.method, path)) return early((relay && relayRefusal(relay, request)) || notFoundOrMethod(request))
      // What the route declares (route-contract.ts): whether it takes a caller, and its rate class.
      const declared = contracts?.ofRequest(request.method, path)
      const rateClass = rateClassOf(declared)
      if (relay && !relay.ready())
        return early(
          errorResponse(
            503,
            'NOT_READY',
            'This relay has no definitions yet: its upstream has not answered and it has no cache file',
            { upstream: relay.upstreamUrl },
            { 'Retry-After': '5' },
          ),
        )
      // Sign-in routes (`public`) take no caller (their own per-address and per-account limits apply), but
      // the cross-site rules do.
      if (takesNoCaller(declared)) {
        noteClientAddress(request, address())
        const refusal = csrfRefusal(request, path, false, settings)
        return refusal ? fromAppError(refusal) : undefined
      }
      let caller
      let cookieAuthenticated = false
      try {
        // A stream may be opened with a ticket instead of a token (EventSource sends no headers).
        const ticket =
          request.method === 'GET' && STREAM_PATHS.has(path) && !request.headers.has('authorization') && !request.headers.has('x-api-key')
            ? new URL(request.url).searchParams.get('ticket')
            : null
        ;({ caller, cookieAuthenticated } = await authenticateRequest(deps, request, ticket, address, rateClass === 'evaluation'))
      } catch (e) {
        if (e instanceof AppError) return early(fromAppError(e))
        throw e
      }
      const csrf = csrfRefusal(request, path, cookieAuthenticated, settings)
      if (csrf) return early(fromAppError(csrf))
      noteAccess(request, deps.access)
      const verdict = await limiter.hit(caller.rateKeys[rateClass], limits[rateClass])
      if (!verdict.allowed) return early(rateLimited(verdict))
      const limitHeaders = rateHeaders(verdict)
      Object.assign(set.headers, limitHeaders)
      // The URL's text before any route decodes it (url-input.ts): valid UTF-8 percent-encoding without
      // control characters in the path and the query, and paging parameters as plain decimal integers.
      const url = request.url
      const q = url.indexOf('?')
      const error = checkUrl(path, q === -1 ? '' : url.slice(q + 1), PAGING_BOUNDS)
      if (error) {
        const response = ofrepErrorResponse(path, error) ?? fromAppError(error)
        for (const [k, v] of Object.entries(limitHeaders)) response.headers.set(k, v)
        return early(response)
      }
    })
    // One JSON reader for every body (json-input.ts): 413 over the limit, 415 for other media types or
    // charsets, 400 for bytes that are not UTF-8, nesting too deep, or malformed JSON.
    .onParse(({ request }) =>
      !BODY_METHODS.has(request.method)
        ? undefined
        : pathOf(request.url) === IMPORT_PATH
          ? readDocumentBody(request)
          : readJsonBody(request),
    )
    // Offline mode: the file's project is read-only for flags, configs and segments, for every caller; the
    // route's declaration says whether a request writes them (offline-gate.ts).
    .onTransform({ as: 'global' }, ({ request, route, query }) => checkOffline(offline, request, route, query))
    // A route that takes no body refuses one with fields (POST /webhooks/:id/resume { "force": true } used to
    // be answered as if the field meant something); an empty object or no body is fine. Checked where a
    // schema's would be: after the permission (403 first).
    .onBeforeHandle({ as: 'global' }, ({ request, body, route }) => {
      if (!BODY_METHODS.has(request.method) || body === undefined || body === null || takesBody(request.method, route)) return
      if (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0) return
      throw new AppError(400, 'VALIDATION_ERROR', 'This endpoint takes no request body', {
        issues: [{ path: 'body', message: 'this endpoint takes no body (send none, or {})' }],
      })
    })
    .onError(({ code, error, request, path }) => {
      if (error instanceof AppError) {
        if (error.status === 503) {
          deps.log('store unavailable', { path, error: error.message }, 'warn')
          deps.metrics.counts.storeError('http')
        }
        return ofrepErrorResponse(path, error) ?? fromAppError(error)
      }
      // A context whose evaluation would overrun the work budget (engine/budget.ts): the client's to fix.
      if (error instanceof EvaluationBudgetExceeded)
        return errorResponse(400, 'EVALUATION_TOO_COSTLY', error.message, { budget: error.budget })
      if (isStoreUnavailable(error)) {
        deps.log('store unavailable', { path, ...errorForLog(error) }, 'warn')
        deps.metrics.counts.storeError('http')
        return fromAppError(storeUnavailable())
      }
      switch (code) {
        case 'VALIDATION': {
          const where = (error as { type?: string }).type ?? 'body'
          const issues = validationIssues(error as never, where)
          return errorResponse(400, 'VALIDATION_ERROR', `Invalid ${where}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, {
            issues,
          })
        }
        case 'PARSE':
          // Errors thrown by our onParse (415, 413, malformed JSON) arrive wrapped; their cause is the answer.
          if ((error as Error).cause instanceof AppError) {
            const cause = (error as Error).cause as AppError
            return ofrepErrorResponse(path, cause) ?? fromAppError(cause)
          }
          return errorResponse(400, 'VALIDATION_ERROR', 'Malformed request body', { issues: [{ path: '', message: 'malformed body' }] })
        case 'NOT_FOUND':
          return notFoundOrMethod(request)
        default: {
          const id = crypto.randomUUID()
          deps.log('unhandled error', { request_id: id, method: request.method, path, ...errorForLog(error) }, 'error')
          return errorResponse(500, 'INTERNAL', `Internal error (request id ${id})`, { request_id: id })
        }
      }
    })
    // Registered before the plugin so it applies to its route. The OpenAPI document is a cacheable public read
    // like any other (spec: max-age 3600, swr 86400).
    .onAfterHandle({ as: 'global' }, async ({ request, response }) => {
      if (pathOf(request.url) !== '/openapi.json') return
      const doc = response instanceof Response ? await response.clone().json() : response
      documentStreamMediaType(doc)
      finishOpenApi(doc, publicBase(deps, request))
      return cachedJson(request, doc, { maxAge: 3600, staleWhileRevalidate: 86400, public: true })
    })
    .use(
      openapi({
        specPath: '/openapi.json',
        openapiVersion: '3.0.3',
        // The plugin only generates the document; the /docs page is ours (routes/docs.ts), served offline.
        provider: null,
        documentation: {
          info: {
            title: 'Flagship: feature flag and configuration service',
            version: '1.0.0',
            description: 'Flags, remote configs and segments per project; evaluation over HTTP.',
          },
          components: {
            securitySchemes: {
              bearer: { type: 'http', scheme: 'bearer', description: 'An access token, `ff_{project}_{random}` (Authorization: Bearer)' },
              metrics: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN (GET /metrics, when the server has one)' },
            },
          },
          tags: [
            'auth',
            'me',
            'people',
            'projects',
            'flags',
            'schedules',
            'configs',
            'segments',
            'evaluation',
            'ofrep',
            'stream',
            'usage',
            'experiments',
            'tokens',
            'webhooks',
            'audit',
            'project',
            'as-code',
            'relay',
            'system',
          ].map((name) => ({ name })),
        },
      }),
    )
  if ('relay' in deps) app.use(relayEdgeRoutes(deps))
  else
    app
      // The console's built files (console.ts); their names carry a content hash, so they may be cached for good.
      .get('/assets/*', ({ params }) => consoleAsset(params['*']), { detail: PUBLIC_HIDDEN })
      .use(sdkRoutes())
      .use(docsRoutes())
      .use(healthRoutes(deps))
      .use(flagRoutes(deps))
      .use(flagLifecycleRoutes(deps))
      .use(configRoutes(deps))
      .use(segmentRoutes(deps))
      .use(evaluateRoutes(deps))
      .use(tokenRoutes(deps))
      .use(webhookRoutes(deps))
      .use(deliveryRoutes(deps))
      .use(auditRoutes(deps))
      .use(projectRoutes(deps))
      .use(ofrepRoutes(deps))
      .use(streamRoutes(deps))
      .use(definitionRoutes(deps))
      .use(usageRoutes(deps))
      .use(scheduleRoutes(deps))
      .use(changeRequestRoutes(deps))
      .use(metricsRoutes(deps))
      .use(authRoutes(deps))
      .use(oidcRoutes(deps))
      .use(meRoutes(deps))
      .use(peopleRoutes(deps))
      .use(projectsRoutes(deps))
      .use(totpRoutes(deps))
      .use(asCodeRoutes(deps))
      .use(promotionRoutes(deps))
      // (nested: one more link in this chain is past what TypeScript will instantiate)
      .use(experimentRoutes(deps).use(experimentUnitRoutes(deps)))
      .use(experimentMetricRoutes(deps))
      .use(eventRoutes(deps).use(releasePlanRoutes(deps)))
      .use(relayRoutes(deps))

  // Every route declares its permission, and its rate class if it takes a caller (route-inventory.ts); a
  // route without them is a bug, found here.
  const undeclared = undeclaredRoutes(app.routes as never)
  if (undeclared.length) throw new Error(`routes without a declared permission or rate class: ${undeclared.join(', ')}`)
  const declarations = routeContracts(app.routes as never)
  contracts = declarations

  // The evaluation GETs and OFREP's single-flag POST are answered before Elysia when they can be
  // (fast-evaluation.ts, fast-ofrep.ts), metered as their routes declare (read here, once); fast-dispatch.ts
  // picks them by path, and those paths' other methods stay Elysia's.
  const meter = (method: string, route: string): Meter => {
    const rateClass = rateClassOf(declarations.of(method, route))
    return { rateClass, limit: limits[rateClass] }
  }
  const fast = { ...deps, meter, requests: deps.metrics.requests, accessLog: fastAccessLog }
  // Elysia's fetch is composed on first use, once every route is registered.
  const toElysia = (request: Request) => app.fetch(request)
  const fetch = fastDispatch([...fastEvaluationRoutes(fast, toElysia), ...fastOfrepRoutes(fast, toElysia)], toElysia)

  /** Unknown path: 404 JSON, or 405 + Allow when the path exists under other methods; the console's
   *  client-side routes fall back to its index.html. */
  let routesByMethod: Map<string, RegExp> | undefined
  function routeMatchers(): Map<string, RegExp> {
    if (routesByMethod) return routesByMethod
    const grouped = new Map<string, string[]>()
    for (const r of app.routes) {
      const source = r.path
        .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
        .replace(/:[^/]+/g, '[^/]+')
        .replace(/\*/g, '.*')
      grouped.set(r.method, [...(grouped.get(r.method) ?? []), source])
    }
    return (routesByMethod = new Map([...grouped].map(([m, sources]) => [m, new RegExp(`^(?:${sources.join('|')})$`)])))
  }
  const routeExists = (method: string, path: string): boolean => routeMatchers().get(method)?.test(path) ?? false
  let withBody: Set<string> | undefined
  /** Whether the route (method and template) takes a body: a body schema, or a body it reads itself and
   *  describes in its OpenAPI detail (the import's YAML or JSON document). */
  const takesBody = (method: string, route: string): boolean =>
    (withBody ??= new Set(
      app.routes
        .filter((r) => {
          const hooks = (r as { hooks?: { body?: unknown; detail?: { requestBody?: unknown } } }).hooks
          return hooks?.body !== undefined || hooks?.detail?.requestBody !== undefined
        })
        .map((r) => `${r.method} ${r.path}`),
    )).has(`${method} ${route}`)
  let templates: ((path: string) => string | undefined) | undefined
  const templateOf = (path: string): string | undefined =>
    (templates ??= routeTemplates(app.routes.map((r: { path: string }) => r.path)))(path)

  function notFoundOrMethod(request: Request): Response {
    const path = pathOf(request.url)
    const allowed = [...routeMatchers()].filter(([m, re]) => m !== request.method && re.test(path)).map(([m]) => m)
    if (allowed.length && !path.startsWith('/docs') && path !== '/') {
      return errorResponse(
        405,
        'METHOD_NOT_ALLOWED',
        `${request.method} is not allowed on ${path}`,
        { allowed },
        { Allow: allowed.join(', ') },
      )
    }
    // The console's client-side routes get its index.html; the API's and OFREP's paths never do.
    if (!relay && request.method === 'GET' && !path.startsWith('/api/') && !path.startsWith('/ofrep/') && path !== '/ofrep') {
      const page = consoleResponse(path)
      if (page) return page
    }
    return errorResponse(404, 'NOT_FOUND', `No route for ${request.method} ${path}`)
  }

  /** Bun's `fetch` for this application (listen.ts): the fast paths, then Elysia. */
  return { app, fetch }
}
