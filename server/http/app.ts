// The HTTP application: cross-cutting request handling (auth, rate limits, body parsing, errors, 404/405),
// the OpenAPI document, the console, and one plugin per resource under routes/.
import { Elysia } from 'elysia'
import { openapi } from '@elysiajs/openapi'
import { staticPlugin } from '@elysiajs/static'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Snapshots } from '../cache/snapshots'
import type { Settings } from '../settings'
import { errorForLog, type Log } from '../log'
import type { Store } from '../store'
import { AppError } from '../services/errors'
import { isStoreUnavailable, storeUnavailable } from '../store/unavailable'
import type { Services } from '../services'
import { Authenticator } from './auth'
import { cachedJson } from './caching'
import { CONSOLE_DIST, consoleResponse } from './console'
import { createCors } from './cors'
import { errorResponse, fromAppError, pagingIssues, validationIssues } from './errors'
import { fastEvaluationRoutes } from './fast-evaluation'
import { MAX_BODY_BYTES, readJsonBody } from './json-input'
import { rateHeaders, rateLimited, type RateClass, type RateLimiter } from './rate-limit'
import * as S from './schemas'
import { healthRoutes } from './routes/health'
import { docsRoutes } from './routes/docs'
import { flagRoutes } from './routes/flags'
import { configRoutes } from './routes/configs'
import { segmentRoutes } from './routes/segments'
import { evaluateRoutes } from './routes/evaluate'
import { tokenRoutes } from './routes/tokens'
import { webhookRoutes } from './routes/webhooks'
import { deliveryRoutes } from './routes/deliveries'
import { auditRoutes } from './routes/audit'
import { projectRoutes } from './routes/project'
import { ofrepErrorResponse, ofrepRoutes } from './routes/ofrep'

export interface AppDeps {
  settings: Settings
  store: Store
  snapshots: Snapshots
  services: Services
  authenticator: Authenticator
  limiter: RateLimiter
  log: Log
}

const PAGING_BOUNDS = { limit: S.Page.properties.limit, offset: S.Page.properties.offset } as const
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** Evaluation endpoints get the larger budget (docs/behaviour.md §7); everything else under /api is management. */
export function rateClassOf(method: string, path: string): RateClass {
  if (method === 'POST' && (path === '/api/v1/evaluate' || path.startsWith('/ofrep/'))) return 'evaluation'
  if (method === 'GET' && /^\/api\/v1\/(flags|configs)\/[^/]+$/.test(path)) return 'evaluation'
  return 'management'
}

const pathOf = (url: string): string => {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  const q = url.indexOf('?', start)
  return q === -1 ? url.slice(start) : url.slice(start, q)
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
    // Bun's router answers the evaluation GETs before Elysia when it can (fast-evaluation.ts); Elysia merges
    // these over its own route table, so those paths' other methods stay Elysia's.
    serve: {
      routes: fastEvaluationRoutes({ ...deps, evaluationLimit: limits.evaluation }, (request) => elysiaFetch(request)),
    },
  })
    // Authentication and the rate limit run before parsing and validation: an unauthenticated client
    // learns nothing about a route's schema, and X-RateLimit-* rides on every authenticated response.
    .onRequest(async ({ request, set }) => {
      const length = Number(request.headers.get('content-length') ?? 0)
      if (length > MAX_BODY_BYTES) return errorResponse(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds ${MAX_BODY_BYTES} bytes`)
      const path = pathOf(request.url)
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
        caller = await authenticator.authenticate(request)
      } catch (e) {
        if (e instanceof AppError) return early(fromAppError(e))
        throw e
      }
      const rateClass = rateClassOf(request.method, path)
      const verdict = await limiter.hit(caller.rateKeys[rateClass], limits[rateClass])
      if (!verdict.allowed) return early(rateLimited(verdict))
      const limitHeaders = rateHeaders(verdict)
      Object.assign(set.headers, limitHeaders)
      // Paging parameters are plain decimal integers in range on every route (Elysia's coercion would take
      // `1e3`, `0x10` or ` 5`, and reports a range error without naming the parameter).
      const paging = pagingIssues(request.url, PAGING_BOUNDS)
      if (paging) return early(errorResponse(400, 'VALIDATION_ERROR', `Invalid query: ${paging.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues: paging }, limitHeaders))
    })
    // One JSON reader for every body (json-input.ts): 413 over the limit, 415 for other media types or
    // charsets, 400 for bytes that are not UTF-8, nesting too deep, or malformed JSON.
    .onParse(({ request }) => (BODY_METHODS.has(request.method) ? readJsonBody(request) : undefined))
    .onError(({ code, error, request, path }) => {
      if (error instanceof AppError) {
        if (error.status === 503) deps.log('store unavailable', { path, error: error.message }, 'warn')
        return ofrepErrorResponse(path, error) ?? fromAppError(error)
      }
      if (isStoreUnavailable(error)) {
        deps.log('store unavailable', { path, ...errorForLog(error) }, 'warn')
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
          components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'ff_<project>_<random> access token' } } },
          tags: ['flags', 'configs', 'segments', 'evaluation', 'ofrep', 'tokens', 'webhooks', 'audit', 'project', 'system'].map((name) => ({ name })),
        },
      }),
    )
    // The console's built files; their names carry a content hash, so they may be cached for good.
    .use(existsSync(join(CONSOLE_DIST, 'assets')) ? staticPlugin({ assets: join(CONSOLE_DIST, 'assets'), prefix: '/assets', indexHTML: false, alwaysStatic: true, maxAge: 31536000, directive: 'public', detail: { hide: true } }) : new Elysia())
    .use(docsRoutes())
    .use(healthRoutes(deps))
    .use(flagRoutes(deps))
    .use(configRoutes(deps))
    .use(segmentRoutes(deps))
    .use(evaluateRoutes(deps))
    .use(tokenRoutes(deps))
    .use(webhookRoutes(deps))
    .use(deliveryRoutes(deps))
    .use(auditRoutes(deps))
    .use(projectRoutes(deps))
    .use(ofrepRoutes(deps))

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

  function notFoundOrMethod(request: Request): Response {
    const path = pathOf(request.url)
    const allowed = [...routeMatchers()].filter(([m, re]) => m !== request.method && re.test(path)).map(([m]) => m)
    if (allowed.length && !path.startsWith('/docs') && path !== '/') {
      return errorResponse(405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}`, { allowed }, { Allow: allowed.join(', ') })
    }
    if (request.method === 'GET' && !path.startsWith('/api/')) {
      const page = consoleResponse(path)
      if (page) return page
    }
    return errorResponse(404, 'NOT_FOUND', `No route for ${request.method} ${path}`)
  }

  return app
}
export type App = ReturnType<typeof createApp>
