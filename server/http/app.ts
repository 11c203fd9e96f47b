// server/http: transport only. Requests come in here and go one way: route -> service (changes) or the
// in-memory cache (evaluation); nothing in http/ writes to the store itself. This file is the application:
// cross-cutting request handling (auth, rate limits, body parsing, errors, 404/405), the OpenAPI document,
// the console, and one plugin per resource under routes/ (each taking only the parts of deps.ts it uses).
import { Elysia } from 'elysia'
import { openapi } from '@elysiajs/openapi'
import { staticPlugin } from '@elysiajs/static'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { errorForLog } from '../log'
import { AppError } from '../services/errors'
import { isStoreUnavailable, storeUnavailable } from '../store/unavailable'
import { cachedJson } from './caching'
import { CONSOLE_DIST, consoleResponse } from './console'
import { createCors } from './cors'
import { errorResponse, fromAppError, validationIssues } from './errors'
import { fastEvaluationRoutes } from './fast-evaluation'
import { fastOfrepRoutes } from './fast-ofrep'
import { bodyLimitOf, IMPORT_PATH, readDocumentBody, readJsonBody } from './json-input'
import { countRequests } from './metrics'
import { routeTemplates } from './route-templates'
import { rateHeaders, rateLimited, type RateClass } from './rate-limit'
import * as S from '../schemas'
import { checkUrl, pathOf } from './url-input'
import { healthRoutes } from './routes/health'
import { docsRoutes } from './routes/docs'
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
import { usageRoutes } from './routes/usage'
import { metricsRoutes } from './routes/metrics'
import { asCodeRoutes } from './routes/as-code'
import { promotionRoutes } from './routes/promotion'
import { documentStreamMediaType, STREAM_PATHS, streamRoutes } from './routes/stream'
import type { AppDeps } from './deps'

export type { AppDeps } from './deps'


const PAGING_BOUNDS = { limit: S.Page.properties.limit, offset: S.Page.properties.offset } as const
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** Requests that change flags, configs or segments (refused in offline mode): writes under their paths
 *  (explain only reads), applying an import, promoting. */
export function writesDocuments(method: string, path: string, url: string): boolean {
  if (!BODY_METHODS.has(method)) return false
  if (/^\/api\/v1\/(flags|configs|segments)(\/|$)/.test(path)) return !path.endsWith('/explain')
  if (path === IMPORT_PATH) return !/[?&]mode=plan(&|$)/.test(url) && /[?&]mode=/.test(url)
  return path === '/api/v1/promote'
}

/** Evaluation endpoints get the larger budget (docs/behaviour.md §7); everything else under /api is management. */
export function rateClassOf(method: string, path: string): RateClass {
  if (method === 'POST' && (path === '/api/v1/evaluate' || path.startsWith('/ofrep/'))) return 'evaluation'
  if (method === 'GET' && /^\/api\/v1\/(flags|configs)\/[^/]+$/.test(path)) return 'evaluation'
  if (method === 'GET' ? STREAM_PATHS.has(path) || path === '/api/v1/definitions' : path === '/api/v1/stream/tickets') return 'evaluation'
  return 'management'
}

export function createApp(deps: AppDeps) {
  const { settings, authenticator, limiter } = deps
  const cors = createCors(settings.corsOrigins)
  const limits: Record<RateClass, number> = {
    evaluation: settings.rateLimitEvaluationPerMinute,
    management: settings.rateLimitManagementPerMinute,
  }

  // What the fast path hands back goes through Elysia's own fetch (assigned once `app` exists).
  let elysiaFetch: (request: Request) => Response | Promise<Response>
  const app = new Elysia({
    normalize: false,
    // Bun's router answers the evaluation GETs and OFREP's single-flag POST before Elysia when it can
    // (fast-evaluation.ts, fast-ofrep.ts); Elysia merges these over its own route table, so those paths'
    // other methods stay Elysia's.
    serve: {
      routes: {
        ...fastEvaluationRoutes({ ...deps, evaluationLimit: limits.evaluation, requests: deps.metrics.requests }, (request) => elysiaFetch(request)),
        ...fastOfrepRoutes({ ...deps, evaluationLimit: limits.evaluation, requests: deps.metrics.requests }, (request) => elysiaFetch(request)),
      },
    },
  })
    // Every answer Elysia gives (refusals in onRequest and errors included) is counted under its route
    // template; the fast path counts its own (metrics.ts).
    .wrap(countRequests(deps.metrics.requests, (path): string | undefined => templateOf(path)))
    // Authentication and the rate limit run before parsing and validation: an unauthenticated client
    // learns nothing about a route's schema, and X-RateLimit-* rides on every authenticated response.
    .onRequest(async ({ request, set }) => {
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
      if (!routeExists(request.method, path)) return early(notFoundOrMethod(request))
      let caller
      try {
        // A stream may be opened with a ticket instead of a token (EventSource sends no headers).
        const ticket = request.method === 'GET' && STREAM_PATHS.has(path) && !request.headers.has('authorization') && !request.headers.has('x-api-key')
          ? new URL(request.url).searchParams.get('ticket') : null
        caller = ticket !== null ? await authenticator.authenticateTicket(request, ticket) : await authenticator.authenticate(request)
      } catch (e) {
        if (e instanceof AppError) return early(fromAppError(e))
        throw e
      }
      // Offline mode: the file's project is read-only for flags, configs and segments (docs/as-code.md).
      if (settings.flagsFile && caller.token.projectId === settings.flagsProject && writesDocuments(request.method, path, request.url)) {
        return early(errorResponse(405, 'READ_ONLY', `Flags, configs and segments of this project are served read-only from FLAGS_FILE; change the file instead`))
      }
      const rateClass = rateClassOf(request.method, path)
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
    .onParse(({ request }) => (!BODY_METHODS.has(request.method) ? undefined : pathOf(request.url) === IMPORT_PATH ? readDocumentBody(request) : readJsonBody(request)))
    .onError(({ code, error, request, path }) => {
      if (error instanceof AppError) {
        if (error.status === 503) {
          deps.log('store unavailable', { path, error: error.message }, 'warn')
          deps.metrics.counts.storeError('http')
        }
        return ofrepErrorResponse(path, error) ?? fromAppError(error)
      }
      if (isStoreUnavailable(error)) {
        deps.log('store unavailable', { path, ...errorForLog(error) }, 'warn')
        deps.metrics.counts.storeError('http')
        return fromAppError(storeUnavailable())
      }
      switch (code) {
        case 'VALIDATION': {
          const where = (error as { type?: string }).type ?? 'body'
          const issues = validationIssues(error as never, where)
          return errorResponse(400, 'VALIDATION_ERROR', `Invalid ${where}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues })
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
    // Registered before the plugin so it applies to its route. The OpenAPI document is a cacheable public read like any other (spec: max-age 3600, swr 86400).
    .onAfterHandle({ as: 'global' }, async ({ request, response }) => {
      if (pathOf(request.url) !== '/openapi.json') return
      const doc = response instanceof Response ? await response.clone().json() : response
      documentStreamMediaType(doc)
      return cachedJson(request, doc, { maxAge: 3600, staleWhileRevalidate: 86400, public: true })
    })
    .use(
      openapi({
        specPath: '/openapi.json',
        openapiVersion: '3.0.3',
        // The plugin only generates the document; the /docs page is ours (routes/docs.ts), served offline.
        provider: null,
        documentation: {
          info: { title: 'Flagship: feature flag and configuration service', version: '1.0.0', description: 'Flags, remote configs and segments per project; evaluation over HTTP.' },
          components: {
            securitySchemes: {
              bearer: { type: 'http', scheme: 'bearer', description: 'ff_<project>_<random> access token' },
              metrics: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN (GET /metrics, when the server has one)' },
            },
          },
          tags: ['flags', 'schedules', 'configs', 'segments', 'evaluation', 'ofrep', 'stream', 'usage', 'tokens', 'webhooks', 'audit', 'project', 'as-code', 'system'].map((name) => ({ name })),
        },
      }),
    )
    // The console's built files; their names carry a content hash, so they may be cached for good.
    .use(existsSync(join(CONSOLE_DIST, 'assets')) ? staticPlugin({ assets: join(CONSOLE_DIST, 'assets'), prefix: '/assets', indexHTML: false, alwaysStatic: true, maxAge: 31536000, directive: 'public', detail: { hide: true } }) : new Elysia())
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
    .use(metricsRoutes(deps))
    .use(asCodeRoutes(deps))
    .use(promotionRoutes(deps))

  elysiaFetch = (request) => app.fetch(request)

  /** Unknown path: 404 JSON, or 405 + Allow when the path exists under other methods; the console's
   *  client-side routes fall back to its index.html. */
  let routesByMethod: Map<string, RegExp> | undefined
  function routeMatchers(): Map<string, RegExp> {
    if (routesByMethod) return routesByMethod
    const grouped = new Map<string, string[]>()
    for (const r of app.routes) {
      const source = r.path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+').replace(/\*/g, '.*')
      grouped.set(r.method, [...(grouped.get(r.method) ?? []), source])
    }
    return (routesByMethod = new Map([...grouped].map(([m, sources]) => [m, new RegExp(`^(?:${sources.join('|')})$`)])))
  }
  const routeExists = (method: string, path: string): boolean => routeMatchers().get(method)?.test(path) ?? false
  let templates: ((path: string) => string | undefined) | undefined
  const templateOf = (path: string): string | undefined => (templates ??= routeTemplates(app.routes.map((r: { path: string }) => r.path)))(path)

  function notFoundOrMethod(request: Request): Response {
    const path = pathOf(request.url)
    const allowed = [...routeMatchers()].filter(([m, re]) => m !== request.method && re.test(path)).map(([m]) => m)
    if (allowed.length && !path.startsWith('/docs') && path !== '/') {
      return errorResponse(405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}`, { allowed }, { Allow: allowed.join(', ') })
    }
    // The console's client-side routes get its index.html; the API's and OFREP's paths never do.
    if (request.method === 'GET' && !path.startsWith('/api/') && !path.startsWith('/ofrep/') && path !== '/ofrep') {
      const page = consoleResponse(path)
      if (page) return page
    }
    return errorResponse(404, 'NOT_FOUND', `No route for ${request.method} ${path}`)
  }

  return app
}
export type App = ReturnType<typeof createApp>
