// The console's one HTTP client: same-origin `/api/v1`, bearer token from sessionStorage, JSON errors thrown
// as ApiError. Also holds the resource types, the react-query keys and the endpoint functions.

// Domain types come from the server's pure modules (no I/O): one schema source for server and console.
// Wire shapes of tokens, webhooks, deliveries, audit entries, the project and /me: the server's schemas.
import type {
  ArchiveMark,
  AuditEntry,
  ConfigView,
  Delivery,
  FlagListItem,
  FlagMetadata,
  Me,
  Project,
  Token,
  Webhook,
} from '../../server/schemas'
import type {
  Condition,
  EnvironmentOverride,
  EvaluationContext,
  EvaluationResult,
  FlagDefinition,
  Json,
  SegmentDefinition,
  ValidationIssue,
} from '../../server/engine/types'

export {
  OPERATORS,
  REASONS,
  type Condition,
  type EnvironmentOverride,
  type EvaluationContext,
  type EvaluationResult,
  type FlagDefinition,
  type Json,
  type Operator,
  type Reason,
  type Rollout,
  type Rule,
  type Targeting,
  type ValueType,
} from '../../server/engine/types'
export {
  EVENT_KINDS,
  RESOURCE_TYPES,
  type Action as AuditAction,
  type EventKind,
  type ResourceType,
} from '../../server/store/vocabulary/changes'

export { PERMISSIONS, type Permission } from '../../server/store/vocabulary/permissions'

/** What every stored document carries besides its body. */
export interface Versioned {
  version: number
  created_at: string
  updated_at: string
}
/** The stored flag: its definition, metadata (docs: lifecycle), and the archive mark while archived. */
export type Flag = FlagDefinition & Versioned & FlagMetadata & ArchiveMark
export type Segment = SegmentDefinition & Versioned
/** The stored config as the API answers it (the kind's view schema, server/kinds/config.ts), with its key. */
export type Config = ConfigView & { key: string }
export type { AuditEntry, Delivery, Me, Project, Token, Webhook }
export type { Schedule, UsageBucket } from '../../server/schemas'
export type { ScheduleStatus } from '../../server/store/vocabulary/schedule-statuses'
/** A flag as the flag lists carry it: with when it was last evaluated (and, in the stale list, why it is stale). */
export type ListedFlag = Flag & Pick<FlagListItem, 'last_evaluated_at' | 'stale_reason'>
export interface AuditFilter {
  resource_type?: string
  resource_key?: string
  action?: string
  actor?: string
  since?: string
  until?: string
  limit: number
  offset: number
}
/** One page of a list endpoint, as the list pages ask for it. */
export interface PageParams {
  limit: number
  offset: number
}
export interface ListPage<T> {
  items: T[]
  total: number
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message)
    this.name = 'ApiError'
  }
  get issues(): ValidationIssue[] {
    const issues = this.details?.issues
    return Array.isArray(issues) ? (issues as ValidationIssue[]) : []
  }
  get isNotFound(): boolean {
    return this.status === 404
  }
  get isConflict(): boolean {
    return this.code === 'CONFLICT'
  }
  /** On a change blocked by protection (a session's request): the same request again with a break-glass
   *  reason, which the server accepts from a project admin only (docs/change-requests.md §1). */
  bypass?: (reason: string) => Promise<unknown>
}

// ---- session token (sessionStorage only; never in the URL) ----

const TOKEN_KEY = 'flagship.token'
const tokenListeners = new Set<() => void>()

export const tokenStore = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set(token: string | null) {
    if (token) sessionStorage.setItem(TOKEN_KEY, token)
    else sessionStorage.removeItem(TOKEN_KEY)
    tokenListeners.forEach((l) => l())
  },
  subscribe(listener: () => void) {
    tokenListeners.add(listener)
    return () => void tokenListeners.delete(listener)
  },
}

// ---- the project a signed-in person works on (sessions only; a token belongs to one project) ----

const PROJECT_KEY = 'flagship.project'
const projectListeners = new Set<() => void>()

export const projectStore = {
  get: (): string | null => localStorage.getItem(PROJECT_KEY),
  set(project: string | null) {
    if (project === projectStore.get()) return
    if (project) localStorage.setItem(PROJECT_KEY, project)
    else localStorage.removeItem(PROJECT_KEY)
    projectListeners.forEach((l) => l())
  },
  subscribe(listener: () => void) {
    projectListeners.add(listener)
    return () => void projectListeners.delete(listener)
  },
}

// ---- requests ----

type Query = Record<string, string | number | boolean | undefined | null>

interface RequestOptions {
  body?: unknown
  query?: Query
  /** the version the edit was based on; sent as `If-Match: "<version>"` */
  ifMatch?: number
  /** use this token instead of the session's (sign-in check) */
  token?: string
  /** the Flagship-Project header (sessions): null for none; default the switcher's project */
  project?: string | null
  /** more request headers (the break-glass reason) */
  headers?: Record<string, string>
}

function buildPath(path: string, query?: Query): string {
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== '') params.set(k, String(v))
  const qs = params.toString()
  return qs ? `${path}?${qs}` : path
}

export async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  const token = opts.token ?? tokenStore.get()
  if (token) headers.authorization = `Bearer ${token}`
  else {
    // A session (cookie) acts on the project picked in the switcher.
    const project = opts.project === undefined ? projectStore.get() : opts.project
    if (project) headers['flagship-project'] = project
  }
  // Every write says it comes from the console (teams.md §3, CSRF): a cross-site form cannot set it.
  if (method !== 'GET' && method !== 'HEAD') headers['x-flagship-request'] = '1'
  if (opts.body !== undefined) headers['content-type'] = 'application/json'
  if (opts.ifMatch !== undefined) headers['if-match'] = `"${opts.ifMatch}"`
  Object.assign(headers, opts.headers)
  let res: Response
  try {
    res = await fetch(buildPath(`/api/v1${path}`, opts.query), {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      // reads carry Cache-Control max-age; the console always wants the current state
      cache: 'no-store',
    })
  } catch {
    throw new ApiError(0, 'NETWORK_ERROR', 'Could not reach the server. Check your connection and try again.')
  }
  const text = await res.text()
  let data: unknown
  if (text) {
    try {
      data = JSON.parse(text)
    } catch {
      data = undefined
    }
  }
  if (!res.ok) {
    const body = (data ?? {}) as { error?: string; code?: string; details?: Record<string, unknown> }
    const error = new ApiError(
      res.status,
      body.code ?? `HTTP_${res.status}`,
      body.error ?? `Request failed (${res.status} ${res.statusText})`,
      body.details,
    )
    if (error.code === 'CHANGE_REQUEST_REQUIRED' && !token)
      error.bypass = (reason) => request(method, path, { ...opts, headers: { ...opts.headers, 'flagship-bypass-reason': reason } })
    throw error
  }
  return data as T
}

export type Envelope = Record<string, unknown> & { key: string }
/** `{ key, flag: {...} }` -> `{ ...flag, key }` */
const unwrap =
  <T>(singular: string) =>
  (e: Envelope): T =>
    ({ ...(e[singular] as object), key: e.key }) as T

/** A list endpoint's items, one page (ListPage) or all of them. */
function listEndpoint<T>(path: string, plural: string, item: (e: Envelope) => T) {
  type Body = { total: number; has_more: boolean } & Record<string, unknown>
  const itemsOf = (body: Body) => ((body[plural] as Envelope[] | undefined) ?? []).map(item)
  return {
    page: async ({ limit, offset }: PageParams): Promise<ListPage<T>> => {
      const body = await request<Body>('GET', path, { query: { limit, offset } })
      return { items: itemsOf(body), total: body.total }
    },
    /** every page (1000 per request) */
    all: async (): Promise<T[]> => {
      const out: T[] = []
      for (let offset = 0; ; ) {
        const body = await request<Body>('GET', path, { query: { limit: 1000, offset } })
        const items = itemsOf(body)
        out.push(...items)
        offset += items.length
        if (!body.has_more || items.length === 0) return out
      }
    },
  }
}

/** One resource read as `{ key, <singular> }`, flattened. */
const one = async <T>(path: string, singular: string): Promise<T> => unwrap<T>(singular)(await request<Envelope>('GET', path))

const enc = encodeURIComponent

// ---- react-query keys: one place, so invalidation matches reads ----
// Everything about one resource kind sits under its root key (`keys.flags` etc.), so invalidating the root
// refreshes its list pages, the full list and every single-resource read together.

export const keys = {
  me: ['me'] as const,
  project: ['project'] as const,
  flags: ['flags'] as const,
  flagPages: ['flags', 'page'] as const,
  flagPage: (p: PageParams) => ['flags', 'page', p] as const,
  flagsAll: ['flags', 'all'] as const,
  flag: (key: string) => ['flags', 'one', key] as const,
  evaluation: (key: string, context: EvaluationContext) => ['flags', 'evaluation', key, context] as const,
  /** every evaluation of one flag, or of all flags */
  evaluations: (key?: string) => (key === undefined ? ['flags', 'evaluation'] : ['flags', 'evaluation', key]) as readonly string[],
  configs: ['configs'] as const,
  configPages: ['configs', 'page'] as const,
  configPage: (p: PageParams) => ['configs', 'page', p] as const,
  configsAll: ['configs', 'all'] as const,
  config: (key: string) => ['configs', 'one', key] as const,
  segments: ['segments'] as const,
  segmentPages: ['segments', 'page'] as const,
  segmentPage: (p: PageParams) => ['segments', 'page', p] as const,
  segmentsAll: ['segments', 'all'] as const,
  segment: (key: string) => ['segments', 'one', key] as const,
  tokens: ['tokens'] as const,
  webhooks: ['webhooks'] as const,
  deliveries: (id: string) => ['webhooks', id, 'deliveries'] as const,
  audit: ['audit'] as const,
  auditPage: (f: AuditFilter) => ['audit', f] as const,
  /** under `flags`, so every flag change refreshes it */
  staleFlags: ['flags', 'stale'] as const,
  /** evaluation counts (not in the change stream: read again on a timer) */
  usageAll: ['usage'] as const,
  usage: (key: string, range: string, environment?: string) => ['usage', key, range, environment ?? null] as const,
  /** every schedule read; a flag change refreshes them too (an applied schedule changes the flag) */
  schedules: ['schedules'] as const,
  flagSchedules: (key: string) => ['schedules', 'flag', key] as const,
  projectSchedules: (status: string | undefined, p: PageParams) => ['schedules', 'project', status ?? 'all', p] as const,
}

// ---- endpoints ----

type Ok<T> = { success: true } & T

/** a list entry with its flag flattened, keeping when it was last evaluated (and why it is stale) */
export const listedFlag = (e: Envelope): ListedFlag => {
  const item = e as unknown as FlagListItem
  return {
    ...unwrap<Flag>('flag')(e),
    last_evaluated_at: item.last_evaluated_at ?? null,
    ...(item.stale_reason !== undefined && { stale_reason: item.stale_reason }),
  }
}
const flagList = listEndpoint('/flags', 'flags', listedFlag)
const configList = listEndpoint('/configs', 'configs', unwrap<Config>('config'))
const segmentList = listEndpoint('/segments', 'segments', unwrap<Segment>('segment'))
const tokenList = listEndpoint('/tokens', 'tokens', (e) => e as unknown as Token)

export const api = {
  me: (token?: string) => request<Me>('GET', '/me', { token }),

  project: () => request<Project>('GET', '/project'),
  updateProject: (patch: { name?: string; slug?: string }) => request<Project>('PUT', '/project', { body: patch }),
  addEnvironment: (name: string) => request<Ok<{ environments: string[] }>>('POST', '/project/environments', { body: { name } }),
  removeEnvironment: (name: string, force = false) =>
    request<Ok<{ environments: string[] }>>('DELETE', `/project/environments/${enc(name)}`, { query: { force: force || undefined } }),

  flagPage: flagList.page,
  flags: flagList.all,
  /** the stored flag, for editors (GET /flags/:key evaluates it) */
  flag: (key: string) => one<Flag>(`/flags/${enc(key)}/definition`, 'flag'),
  evaluate: (key: string, context: EvaluationContext) =>
    request<EvaluationResult>('GET', `/flags/${enc(key)}`, { query: { context: JSON.stringify(context) } }),
  createFlag: (flag: Partial<Flag> & { key: string }) => request<Ok<{ key: string; flag: Flag }>>('POST', '/flags', { body: flag }),
  updateFlag: (key: string, patch: Partial<Flag>, version?: number) =>
    request<Ok<{ key: string; flag: Flag }>>('PUT', `/flags/${enc(key)}`, { body: patch, ifMatch: version }),
  /** one environment's override, through its own endpoint so the change's event names the environment */
  putFlagOverride: (key: string, env: string, override: EnvironmentOverride, version?: number) =>
    request<Ok<{ key: string; environment: string; override: EnvironmentOverride }>>('PUT', `/flags/${enc(key)}/environments/${enc(env)}`, {
      body: override,
      ifMatch: version,
    }),
  deleteFlagOverride: (key: string, env: string, version?: number) =>
    request<Ok<{ key: string }>>('DELETE', `/flags/${enc(key)}/environments/${enc(env)}`, { ifMatch: version }),
  deleteFlag: (key: string) => request<Ok<{ key: string }>>('DELETE', `/flags/${enc(key)}`),

  configPage: configList.page,
  configs: configList.all,
  /** the stored config with its environment values (GET /configs/:key reads one value) */
  config: (key: string) => one<Config>(`/configs/${enc(key)}/definition`, 'config'),
  createConfig: (c: { key: string; value: Json; environments?: Config['environments'] }) =>
    request<Ok<{ key: string }>>('POST', '/configs', { body: c }),
  updateConfig: (key: string, patch: Partial<Pick<Config, 'value' | 'environments' | 'client_side'>>, version?: number) =>
    request<Ok<{ key: string; config: Config }>>('PUT', `/configs/${enc(key)}`, { body: patch, ifMatch: version }),
  deleteConfig: (key: string) => request<Ok<{ key: string }>>('DELETE', `/configs/${enc(key)}`),

  segmentPage: segmentList.page,
  segments: segmentList.all,
  segment: (key: string) => one<Segment>(`/segments/${enc(key)}`, 'segment'),
  createSegment: (s: { key: string; conditions: Condition[] }) => request<Ok<{ key: string }>>('POST', '/segments', { body: s }),
  updateSegment: (key: string, patch: { conditions: Condition[] }, version?: number) =>
    request<Ok<{ key: string; segment: Segment }>>('PUT', `/segments/${enc(key)}`, { body: patch, ifMatch: version }),
  deleteSegment: (key: string, force = false) =>
    request<Ok<{ key: string }>>('DELETE', `/segments/${enc(key)}`, { query: { force: force || undefined } }),

  tokens: tokenList.all,
  createToken: (t: { name: string; project_id: string; permissions: string[]; expires_at?: string; environment?: string }) =>
    request<Ok<{ token: string; meta: Token }>>('POST', '/tokens', { body: t }),
  deleteToken: (hash: string) => request<Ok<{ hash: string }>>('DELETE', `/tokens/${enc(hash)}`),

  webhooks: async () => (await request<{ webhooks: Webhook[] }>('GET', '/webhooks')).webhooks,
  createWebhook: (w: { url: string; events: string[]; secret?: string }) => request<Ok<Webhook>>('POST', '/webhooks', { body: w }),
  deleteWebhook: (id: string) => request<Ok<{ id: string }>>('DELETE', `/webhooks/${enc(id)}`),
  resumeWebhook: (id: string) => request<Ok<Webhook>>('POST', `/webhooks/${enc(id)}/resume`),
  deliveries: async (id: string) => (await request<{ deliveries: Delivery[] }>('GET', `/webhooks/${enc(id)}/deliveries`)).deliveries,
  redeliver: (id: string, deliveryId: string) => request<unknown>('POST', `/webhooks/${enc(id)}/deliveries/${enc(deliveryId)}/redeliver`),

  /** a short-lived ticket that opens the change stream (EventSource cannot send the Authorization header) */
  streamTicket: () => request<{ ticket: string; expires_at: string; url: string }>('POST', '/stream/tickets'),

  audit: (f: AuditFilter) => request<{ entries: AuditEntry[]; total: number; has_more: boolean }>('GET', '/audit', { query: { ...f } }),
}
