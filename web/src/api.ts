// The console's one HTTP client: same-origin `/api/v1`, bearer token from sessionStorage, JSON errors thrown
// as ApiError. Also holds the resource types, the react-query keys and the endpoint functions.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

export const OPERATORS = [
  'equals', 'not_equals', 'in', 'not_in', 'contains', 'not_contains', 'starts_with', 'ends_with', 'matches',
  'greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal', 'before', 'after',
  'semver_equals', 'semver_greater_than', 'semver_less_than', 'exists', 'not_exists', 'in_segment', 'not_in_segment',
] as const
export type Operator = (typeof OPERATORS)[number]

export const EVENT_KINDS = [
  'flag.created', 'flag.updated', 'flag.deleted',
  'config.created', 'config.updated', 'config.deleted',
  'segment.created', 'segment.updated', 'segment.deleted',
  'token.created', 'token.deleted', 'project.updated',
] as const

export const PERMISSIONS = ['read:flags', 'write:flags', 'read:configs', 'write:configs', '*'] as const
export type Permission = (typeof PERMISSIONS)[number]

export interface Condition { property: string; operator: Operator; value?: Json }
export interface Rule { conditions: Condition[]; value: Json }
export interface Targeting {
  rules?: Rule[]
  rollout?: { percentage: number; attribute: string } | null
  overrides?: Record<string, Json>
}
export interface Flag {
  key: string
  enabled: boolean
  value: Json
  targeting?: Targeting | null
  environments?: Record<string, { enabled: boolean; value?: Json }>
  active_from?: string | null
  active_until?: string | null
  version: number
  created_at: string
  updated_at: string
}
export interface Config {
  key: string
  value: Json
  environments: Record<string, { value: Json }>
  version: number
  created_at: string
  updated_at: string
}
export interface Segment { key: string; conditions: Condition[]; version: number; created_at?: string; updated_at?: string }
export interface Token {
  hash: string
  name: string
  token_prefix: string
  project_id: string
  permissions: Permission[]
  expires_at: string | null
  created_at: string
  last_used_at: string | null
}
export interface Webhook { id: string; config: { url: string; has_secret: boolean; events: string[] } }
export interface Delivery {
  id: string
  event: string
  status: 'pending' | 'delivering' | 'delivered' | 'failed'
  attempts: number
  last_status_code: number | null
  last_error: string | null
  next_attempt_at?: string | null
  created_at: string
  updated_at: string
}
export interface AuditEntry {
  id?: string | number
  timestamp: string
  actor: string
  action: string
  resource_type: string
  resource_key: string
  project_id: string
  before: Json
  after: Json
}
export interface Project { id: string; name: string; slug: string; environments: string[] }
export interface Me { name: string; token_prefix: string; project_id: string; permissions: Permission[]; expires_at: string | null }
export interface Evaluation { value: Json; type: string; reason: string }
export interface EvaluationContext { user_id?: string; plan?: string; environment?: string; custom?: Record<string, Json> }
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
export interface Issue { path: string; message: string }

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
  get issues(): Issue[] {
    const issues = this.details?.issues
    return Array.isArray(issues) ? (issues as Issue[]) : []
  }
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

// ---- requests ----

type Query = Record<string, string | number | boolean | undefined | null>

interface RequestOptions {
  body?: unknown
  query?: Query
  /** the version the edit was based on; sent as `If-Match: "<version>"` */
  ifMatch?: number
  /** use this token instead of the session's (sign-in check) */
  token?: string
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
  if (opts.body !== undefined) headers['content-type'] = 'application/json'
  if (opts.ifMatch !== undefined) headers['if-match'] = `"${opts.ifMatch}"`
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
  let data: unknown = undefined
  if (text) {
    try {
      data = JSON.parse(text)
    } catch {
      data = undefined
    }
  }
  if (!res.ok) {
    const body = (data ?? {}) as { error?: string; code?: string; details?: Record<string, unknown> }
    throw new ApiError(res.status, body.code ?? `HTTP_${res.status}`, body.error ?? `Request failed (${res.status} ${res.statusText})`, body.details)
  }
  return data as T
}


/** Reads every page of a list endpoint (1000 per request). */
async function fetchAll<T>(path: string, plural: string): Promise<T[]> {
  const out: T[] = []
  for (let offset = 0; ; ) {
    const page = await request<{ has_more: boolean } & Record<string, unknown>>('GET', path, { query: { limit: 1000, offset } })
    const items = (page[plural] as T[] | undefined) ?? []
    out.push(...items)
    offset += items.length
    if (!page.has_more || items.length === 0) return out
  }
}

const enc = encodeURIComponent

// ---- react-query keys: one place, so invalidation matches reads ----

export const keys = {
  me: ['me'] as const,
  project: ['project'] as const,
  flags: ['flags'] as const,
  evaluation: (key: string, context: EvaluationContext) => ['flags', key, 'evaluation', context] as const,
  configs: ['configs'] as const,
  segments: ['segments'] as const,
  tokens: ['tokens'] as const,
  webhooks: ['webhooks'] as const,
  deliveries: (id: string) => ['webhooks', id, 'deliveries'] as const,
  audit: ['audit'] as const,
  auditPage: (f: AuditFilter) => ['audit', f] as const,
}

// ---- endpoints ----

type Ok<T> = { success: true } & T

export const api = {
  me: (token?: string) => request<Me>('GET', '/me', { token }),

  project: () => request<Project>('GET', '/project'),
  updateProject: (patch: { name?: string; slug?: string }) => request<Project>('PUT', '/project', { body: patch }),
  addEnvironment: (name: string) => request<Ok<{ environments: string[] }>>('POST', '/project/environments', { body: { name } }),
  removeEnvironment: (name: string, force = false) =>
    request<Ok<{ environments: string[] }>>('DELETE', `/project/environments/${enc(name)}`, { query: { force: force || undefined } }),

  flags: async (): Promise<Flag[]> =>
    (await fetchAll<{ key: string; flag: Flag }>('/flags', 'flags')).map(({ key, flag }) => ({ ...flag, key })),
  evaluate: (key: string, context: EvaluationContext) =>
    request<Evaluation>('GET', `/flags/${enc(key)}`, { query: { context: JSON.stringify(context) } }),
  createFlag: (flag: Partial<Flag> & { key: string }) => request<Ok<{ key: string; flag: Flag }>>('POST', '/flags', { body: flag }),
  updateFlag: (key: string, patch: Partial<Flag>, version?: number) =>
    request<Ok<{ key: string; flag: Flag }>>('PUT', `/flags/${enc(key)}`, { body: patch, ifMatch: version }),
  deleteFlag: (key: string) => request<Ok<{ key: string }>>('DELETE', `/flags/${enc(key)}`),
  setFlagEnvironment: (key: string, env: string, override: { enabled: boolean; value?: Json }) =>
    request<Ok<{ key: string }>>('PUT', `/flags/${enc(key)}/environments/${enc(env)}`, { body: override }),

  configs: async (): Promise<Config[]> =>
    (await fetchAll<{ key: string; config: Config }>('/configs', 'configs')).map(({ key, config }) => ({ ...config, key })),
  createConfig: (c: { key: string; value: Json; environments?: Config['environments'] }) =>
    request<Ok<{ key: string }>>('POST', '/configs', { body: c }),
  updateConfig: (key: string, patch: Partial<Pick<Config, 'value' | 'environments'>>, version?: number) =>
    request<Ok<{ key: string }>>('PUT', `/configs/${enc(key)}`, { body: patch, ifMatch: version }),
  deleteConfig: (key: string) => request<Ok<{ key: string }>>('DELETE', `/configs/${enc(key)}`),

  segments: async (): Promise<Segment[]> =>
    (await fetchAll<{ key: string; segment: Segment }>('/segments', 'segments')).map(({ key, segment }) => ({ ...segment, key })),
  createSegment: (s: { key: string; conditions: Condition[] }) => request<Ok<{ key: string }>>('POST', '/segments', { body: s }),
  updateSegment: (key: string, patch: { conditions: Condition[] }, version?: number) =>
    request<Ok<{ key: string }>>('PUT', `/segments/${enc(key)}`, { body: patch, ifMatch: version }),
  deleteSegment: (key: string, force = false) => request<Ok<{ key: string }>>('DELETE', `/segments/${enc(key)}`, { query: { force: force || undefined } }),

  tokens: () => fetchAll<Token>('/tokens', 'tokens'),
  createToken: (t: { name: string; project_id: string; permissions: string[]; expires_at?: string }) =>
    request<Ok<{ token: string; meta: Token }>>('POST', '/tokens', { body: t }),
  deleteToken: (hash: string) => request<Ok<{ hash: string }>>('DELETE', `/tokens/${enc(hash)}`),

  webhooks: async () => (await request<{ webhooks: Webhook[] }>('GET', '/webhooks')).webhooks,
  createWebhook: (w: { url: string; events: string[]; secret?: string }) => request<Ok<Webhook>>('POST', '/webhooks', { body: w }),
  deleteWebhook: (id: string) => request<Ok<{ id: string }>>('DELETE', `/webhooks/${enc(id)}`),
  deliveries: async (id: string) => (await request<{ deliveries: Delivery[] }>('GET', `/webhooks/${enc(id)}/deliveries`)).deliveries,
  redeliver: (id: string, deliveryId: string) => request<unknown>('POST', `/webhooks/${enc(id)}/deliveries/${enc(deliveryId)}/redeliver`),

  audit: (f: AuditFilter) => request<{ entries: AuditEntry[]; total: number; has_more: boolean }>('GET', '/audit', { query: { ...f } }),
}
